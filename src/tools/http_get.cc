#include "tools/http_get.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <limits>

namespace strata::tools {

namespace {

bool parse_port(std::string_view text, uint16_t& port) {
  uint32_t p = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), p);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || p == 0 ||
      p > 65535) {
    return false;
  }
  port = uint16_t(p);
  return true;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<HttpUrl, std::string> parse_http_url(std::string_view url, std::string_view default_path) {
  const std::string what = "expected http://HOST:PORT[/PATH], got '" + std::string(url) + "'";
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) return fail(what);
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  HttpUrl out;
  out.path = slash == std::string_view::npos ? std::string(default_path) : std::string(rest.substr(slash));
  std::string_view port;
  bool has_port = false;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail(what);
    out.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return fail(what);
    has_port = !after.empty();
    if (has_port) port = after.substr(1);
  } else {
    const size_t colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    has_port = colon != std::string_view::npos;
    if (has_port) port = authority.substr(colon + 1);
  }
  if (out.host.empty() || (has_port && !parse_port(port, out.port))) return fail(what);
  for (char c : out.path) {
    if (c <= 0x20 || c == 0x7f) return fail(what);
  }
  return out;
}

Result<HttpResponse, std::string> parse_http_response(std::string_view raw) {
  const size_t eol = raw.find('\n');
  if (eol == std::string_view::npos) return fail(std::string("no HTTP status line in the response"));
  const std::string_view status_line = trim(raw.substr(0, eol));
  // "HTTP/1.x NNN reason"
  if (!status_line.starts_with("HTTP/1.") || status_line.size() < 12 || status_line[8] != ' ') {
    return fail("not an HTTP/1 response: '" + std::string(status_line.substr(0, 80)) + "'");
  }
  HttpResponse out;
  const std::string_view code = status_line.substr(9, 3);
  const auto [end, ec] = std::from_chars(code.data(), code.data() + code.size(), out.status);
  if (ec != std::errc() || end != code.data() + 3 || out.status < 100) {
    return fail("bad HTTP status line: '" + std::string(status_line.substr(0, 80)) + "'");
  }
  std::optional<size_t> content_length;
  size_t at = eol + 1;
  for (;;) {
    const size_t next = raw.find('\n', at);
    if (next == std::string_view::npos) return fail(std::string("the response's headers are cut short"));
    const std::string_view line = trim(raw.substr(at, next - at));
    at = next + 1;
    if (line.empty()) break;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (iequals(line.substr(0, colon), "content-length")) {
      const std::string_view v = trim(line.substr(colon + 1));
      size_t n = 0;
      const auto r = std::from_chars(v.data(), v.data() + v.size(), n);
      if (r.ec != std::errc() || r.ptr != v.data() + v.size()) {
        return fail("bad Content-Length: '" + std::string(v) + "'");
      }
      content_length = n;
    }
  }
  std::string_view body = raw.substr(at);
  if (content_length) {
    if (body.size() < *content_length) {
      return fail("the response body is cut short (" + std::to_string(body.size()) + " of " +
                  std::to_string(*content_length) + " bytes)");
    }
    body = body.substr(0, *content_length);
  }
  out.body = std::string(body);
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return int(std::max<int64_t>(0, left.count()));
}

// Waits until fd is ready for `events`; false on timeout (errno ETIMEDOUT) or error.
bool wait_ready(int fd, short events, Clock::time_point deadline) {
  pollfd p{fd, events, 0};
  int rc = 0;
  do {
    rc = ::poll(&p, 1, remaining_ms(deadline));
  } while (rc < 0 && errno == EINTR);
  if (rc == 0) errno = ETIMEDOUT;
  return rc > 0;
}

// A non-blocking socket connected to one of host:port's addresses, or -1 with `error`.
int connect_to(const HttpUrl& url, Clock::time_point deadline, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(url.port);
  if (const int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    error = ::gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (const addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
      error = std::strerror(errno);
      continue;
    }
    int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS && wait_ready(fd, POLLOUT, deadline)) {
      int so_error = 0;
      socklen_t len = sizeof so_error;
      rc = ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) == 0 && so_error == 0 ? 0 : -1;
      if (so_error != 0) errno = so_error;
    }
    if (rc != 0) {
      error = errno == ETIMEDOUT ? "timed out" : std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  return fd;
}

Result<void, std::string> send_all(int fd, std::string_view bytes, Clock::time_point deadline) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_ready(fd, POLLOUT, deadline)) return fail(std::string("send timed out"));
      continue;
    }
    if (n <= 0) return fail(std::string("send: ") + std::strerror(errno));
    bytes.remove_prefix(size_t(n));
  }
  return {};
}

// Everything up to the server's close.
Result<std::string, std::string> receive_all(int fd, Clock::time_point deadline, size_t bytes_max) {
  std::string raw;
  char chunk[16384];
  for (;;) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n == 0) return raw;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_ready(fd, POLLIN, deadline)) return fail(std::string("no complete response in time"));
      continue;
    }
    if (n < 0) return fail(std::string("receive: ") + std::strerror(errno));
    if (raw.size() + size_t(n) > bytes_max) {
      return fail("the response is larger than " + std::to_string(bytes_max) + " bytes");
    }
    raw.append(chunk, size_t(n));
  }
}

}  // namespace

Result<HttpResponse, std::string> http_get(const HttpUrl& url, int timeout_ms, size_t bytes_max) {
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  const bool v6 = url.host.find(':') != std::string::npos;
  const std::string where = (v6 ? "[" + url.host + "]" : url.host) + ":" + std::to_string(url.port);
  std::string error;
  const int fd = connect_to(url, deadline, error);
  if (fd < 0) return fail("cannot connect to " + where + ": " + error);
  const std::string request = "GET " + url.path + " HTTP/1.0\r\nHost: " + where +
                              "\r\nUser-Agent: strata\r\nAccept: text/plain\r\n"
                              "Connection: close\r\n\r\n";
  if (auto sent = send_all(fd, request, deadline); !sent) {
    ::close(fd);
    return fail(where + ": " + sent.error());
  }
  auto raw = receive_all(fd, deadline, bytes_max);
  ::close(fd);
  if (!raw) return fail(where + ": " + raw.error());
  auto response = parse_http_response(*raw);
  if (!response) return fail(where + ": " + response.error());
  return response;
}

// ---- Prometheus text lines ----------------------------------------------------------

namespace {

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

std::string_view take_name(std::string_view& s) {
  size_t n = 0;
  if (!s.empty() && name_start(s[0])) {
    while (n < s.size() && name_char(s[n])) ++n;
  }
  const std::string_view name = s.substr(0, n);
  s.remove_prefix(n);
  return name;
}

// `"..."` with \\, \" and \n escapes; nullopt if unterminated.
std::optional<std::string> take_quoted(std::string_view& s) {
  if (s.empty() || s[0] != '"') return std::nullopt;
  std::string out;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '"') {
      s.remove_prefix(i + 1);
      return out;
    }
    if (s[i] == '\\' && i + 1 < s.size()) {
      ++i;
      out += s[i] == 'n' ? '\n' : s[i];
    } else {
      out += s[i];
    }
  }
  return std::nullopt;
}

std::optional<double> parse_value(std::string_view v) {
  if (v == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (v == "+Inf" || v == "Inf") return std::numeric_limits<double>::infinity();
  if (v == "-Inf") return -std::numeric_limits<double>::infinity();
  if (v.starts_with('+')) v.remove_prefix(1);
  double x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return x;
}

}  // namespace

std::optional<PrometheusSample> parse_prometheus_line(std::string_view line) {
  line = trim(line);
  if (line.empty() || line[0] == '#') return std::nullopt;
  PrometheusSample out;
  out.name = std::string(take_name(line));
  if (out.name.empty()) return std::nullopt;
  if (!line.empty() && line[0] == '{') {
    line.remove_prefix(1);
    while (!line.empty() && line[0] != '}') {
      const std::string label(take_name(line));
      if (label.empty() || line.empty() || line[0] != '=') return std::nullopt;
      line.remove_prefix(1);
      auto value = take_quoted(line);
      if (!value) return std::nullopt;
      out.labels[label] = std::move(*value);
      if (!line.empty() && line[0] == ',') line.remove_prefix(1);
    }
    if (line.empty()) return std::nullopt;
    line.remove_prefix(1);  // '}'
  }
  line = trim(line);
  const std::string_view value = line.substr(0, line.find_first_of(" \t"));
  auto v = parse_value(value);
  if (!v) return std::nullopt;
  out.value = *v;
  return out;
}

}  // namespace strata::tools

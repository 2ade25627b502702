#include "tools/http_get.h"

#include <httplib.h>

#include <charconv>
#include <limits>

#include "common/ascii.h"

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

Result<HttpResponse, std::string> http_get(const HttpUrl& url, int timeout_ms, size_t bytes_max) {
  httplib::Client client(url.host, url.port);
  const time_t sec = timeout_ms / 1000;
  const time_t usec = (timeout_ms % 1000) * 1000;
  client.set_connection_timeout(sec, usec);
  client.set_read_timeout(sec, usec);
  client.set_write_timeout(sec, usec);
  HttpResponse out;
  bool too_big = false;
  auto r = client.Get(
      url.path, httplib::Headers{},
      [&out](const httplib::Response& response) {
        out.status = response.status;
        return true;
      },
      [&out, &too_big, bytes_max](const char* data, size_t n) {
        if (out.body.size() + n > bytes_max) {
          too_big = true;
          return false;
        }
        out.body.append(data, n);
        return true;
      });
  const std::string where = url.host + ":" + std::to_string(url.port);
  if (too_big) return fail(where + ": the response is over " + std::to_string(bytes_max) + " bytes");
  if (!r) return fail(where + ": " + httplib::to_string(r.error()));
  return out;
}

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
  line = trim_blanks(line);
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
  line = trim_blanks(line);
  const std::string_view value = line.substr(0, line.find_first_of(" \t"));
  auto v = parse_value(value);
  if (!v) return std::nullopt;
  out.value = *v;
  return out;
}

}  // namespace strata::tools

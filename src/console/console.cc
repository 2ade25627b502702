#include "console/console.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <strings.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>

#include "console/api.h"
#include "console/assets.h"
#include "console/cluster_reader.h"
#include "security/base64.h"

namespace strata::console {

using nlohmann::json;

namespace {

constexpr const char* kJson = "application/json";
constexpr const char* kRealm = "Basic realm=\"Strata console\", charset=\"UTF-8\"";

// JSON text; bytes that are not UTF-8 (a group id, a header key, a client id: whatever
// clients sent) become U+FFFD rather than failing the answer.
std::string text_of(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

void answer(httplib::Response& res, const Answer<json>& a) {
  if (a) {
    res.set_content(text_of(*a), kJson);
  } else {
    res.status = a.error().status;
    if (res.status == 401) res.set_header("WWW-Authenticate", kRealm);
    res.set_content(text_of(json{{"error", a.error().message}}), kJson);
  }
}

// A decimal parameter: nullopt when absent, a 400 when it is not a number.
Answer<std::optional<int64_t>> int_param(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) return std::optional<int64_t>();
  const std::string v = req.get_param_value(name);
  int64_t out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size()) return fail(bad_request(std::string(name) + ": not a number"));
  return std::optional<int64_t>(out);
}

// A number the route's pattern matched (digits only, so only its range can be wrong).
template <class T>
std::optional<T> matched(const httplib::Request& req, size_t index) {
  const std::string s = req.matches[index];
  T out = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return out;
}

// The Host a request names must be this listener's own name, an IP address or
// localhost: a page of another site whose name an attacker points at this address (DNS
// rebinding) names its own host, and is refused before it can read or write.
bool trusted_host(const httplib::Request& req, const std::string& listener_host) {
  std::string host = req.get_header_value("Host");
  if (host.starts_with('[')) return host.find(']') != std::string::npos;  // an IPv6 literal
  host = host.substr(0, host.rfind(':'));
  in_addr v4{};
  return host == "localhost" || (!listener_host.empty() && host == listener_host) ||
         inet_pton(AF_INET, host.c_str(), &v4) == 1;
}

// The security the console's connections use for this request: the target's, with the
// page user's name and password (HTTP Basic) when the cluster's listener wants SASL, so
// the cluster authenticates each user and its ACLs decide what the user sees and does.
Answer<client::ConnectOptions> login(const ConsoleTarget& target, const httplib::Request& req) {
  client::ConnectOptions options = target.options;
  if (!options.security || !options.security->sasl) return options;
  const std::string header = req.get_header_value("Authorization");
  std::optional<std::string> pair;
  if (header.size() > 6 && strncasecmp(header.c_str(), "Basic ", 6) == 0) {
    pair = security::base64_decode(std::string_view(header).substr(6));
  }
  const size_t colon = pair ? pair->find(':') : std::string::npos;
  if (colon == std::string::npos) return fail(Failure{401, "log in with a user of the cluster"});
  auto user = std::make_shared<client::ClientSecurity>(*options.security);
  user->username = pair->substr(0, colon);
  user->password = pair->substr(colon + 1);
  options.security = std::move(user);
  return options;
}

struct Guard {
  ConsoleSettings settings;
  bool needs_login = false;
  std::optional<std::string> disabled;  // why the API does not serve at all
};

// Connects as the request's user and answers `route(reader)`.
template <class F>
void serve(const ConsoleTarget& target, const Guard& guard, const httplib::Request& req, httplib::Response& res,
           F&& route) {
  if (!trusted_host(req, guard.settings.listener_host)) {
    return answer(res, fail(Failure{403, "the console answers requests for its own address only"}));
  }
  if (guard.disabled) return answer(res, fail(Failure{503, *guard.disabled}));
  auto options = login(target, req);
  if (!options) return answer(res, fail(options.error()));
  auto c = ClusterReader::connect(target.bootstrap, *options);
  if (!c) {
    const bool refused = c.error().kind == client::ClientError::Kind::kAuthentication;
    return answer(res, fail(Failure{refused ? 401 : 502, c.error().message}));
  }
  answer(res, route(*c));
}

// Writes are refused in read-only mode, and from other sites: a write must come as JSON
// (which a cross-site form cannot send without the browser asking first, a question this
// server never answers) and, when the browser names its origin, from this very host.
std::optional<Failure> refused(const httplib::Request& req, const ConsoleSettings& settings, bool with_body) {
  if (settings.read_only) return Failure{403, "the console is read-only (strata.console.read.only=true)"};
  if (with_body && req.get_header_value("Content-Type").rfind("application/json", 0) != 0) {
    return Failure{415, "a write is sent as application/json"};
  }
  const std::string origin = req.get_header_value("Origin");
  if (!origin.empty() && origin != "http://" + req.get_header_value("Host")) {
    return Failure{403, "a write from another site is refused"};
  }
  return std::nullopt;
}

// Runs `write(reader, body)` unless the request is refused or its body is not a JSON
// object. The route reads the body's fields with find() and type checks.
template <class F>
void write_route(const ConsoleTarget& target, const Guard& guard, bool with_body, const httplib::Request& req,
                 httplib::Response& res, F&& write) {
  if (auto no = refused(req, guard.settings, with_body)) return answer(res, fail(*no));
  json body = json::object();
  if (with_body) {
    body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) return answer(res, fail(bad_request("the body is not a JSON object")));
  }
  serve(target, guard, req, res, [&](ClusterReader& c) { return write(c, body); });
}

Answer<Browse> browse_of(const httplib::Request& req) {
  Browse q;
  auto offset = int_param(req, "offset");
  auto timestamp = int_param(req, "timestamp");
  auto limit = int_param(req, "limit");
  if (!offset) return fail(offset.error());
  if (!timestamp) return fail(timestamp.error());
  if (!limit) return fail(limit.error());
  // Below 0, ListOffsets would read a timestamp as one of its special values (latest...).
  if (*timestamp && **timestamp < 0) return fail(bad_request("timestamp: milliseconds since the epoch"));
  q.offset = *offset;
  q.timestamp = *timestamp;
  q.limit = limit->value_or(50);
  q.newest = req.get_param_value("from") == "newest";
  q.filter = req.get_param_value("filter");
  return q;
}

}  // namespace

void install_console(httplib::Server& server, ConsoleTarget target, ConsoleSettings settings) {
  Guard guard;
  const auto& security = target.options.security;
  guard.needs_login = security && security->sasl;
  // TLS without SASL: the console's connections would carry the broker's own certificate
  // (often a super user's), not the page user's identity, so its ACLs would not apply.
  if (security && security->tls && !security->sasl) {
    guard.disabled = "the console needs a PLAINTEXT or SASL inter-broker listener: over SSL alone it would read "
                     "as the broker itself, whatever the ACLs allow its users";
  }
  guard.settings = std::move(settings);
  auto t = std::make_shared<const ConsoleTarget>(std::move(target));
  for (const Asset& a : assets()) {
    std::string pattern;  // httplib's patterns are regular expressions: the dots escaped
    for (char ch : a.path) pattern += ch == '.' ? std::string("\\.") : std::string(1, ch);
    server.Get(pattern, [a, guard](const httplib::Request& req, httplib::Response& res) {
      if (!trusted_host(req, guard.settings.listener_host)) {
        return answer(res, fail(Failure{403, "the console answers requests for its own address only"}));
      }
      if (guard.needs_login && req.get_header_value("Authorization").empty()) {  // the browser asks the user
        return answer(res, fail(Failure{401, "log in with a user of the cluster"}));
      }
      res.set_content(std::string(a.body), std::string(a.content_type));
    });
  }
  server.Get("/api/settings", [guard](const httplib::Request&, httplib::Response& res) {
    json s = {{"read_only", guard.settings.read_only}, {"login", guard.needs_login}};
    if (guard.disabled) s["disabled"] = *guard.disabled;
    res.set_content(text_of(s), kJson);
  });
  auto get = [&server, t, guard](const std::string& pattern, auto route) {
    server.Get(pattern, [t, guard, route](const httplib::Request& req, httplib::Response& res) {
      serve(*t, guard, req, res, [&](ClusterReader& c) { return route(c, req); });
    });
  };
  auto write = [&server, t, guard](const std::string& method, const std::string& pattern, bool with_body,
                                   auto route) {
    auto handler = [t, guard, with_body, route](const httplib::Request& req, httplib::Response& res) {
      write_route(*t, guard, with_body, req, res, [&](ClusterReader& c, const json& body) { return route(c, req, body); });
    };
    if (method == "POST") server.Post(pattern, handler);
    if (method == "DELETE") server.Delete(pattern, handler);
  };
  using Req = const httplib::Request&;
  static const std::string kTopic = "/api/topics/([A-Za-z0-9._-]{1,249})";
  static const std::string kPartition = kTopic + "/partitions/([0-9]{1,9})";
  get("/api/cluster", [](ClusterReader& c, Req) { return cluster(c); });
  get("/api/topics", [](ClusterReader& c, Req) { return topics(c); });
  get(kTopic, [](ClusterReader& c, Req req) { return topic(c, req.matches[1]); });
  // The log's batches from ?offset=N; /N: the batch holding offset N, opened.
  get(kPartition + "/batches", [](ClusterReader& c, Req req) -> Answer<json> {
    auto offset = int_param(req, "offset");
    if (!offset) return fail(offset.error());
    return batches(c, req.matches[1], *matched<int32_t>(req, 2), std::max<int64_t>(0, offset->value_or(0)));
  });
  get(kPartition + "/batches/([0-9]{1,18})", [](ClusterReader& c, Req req) -> Answer<json> {
    return batch(c, req.matches[1], *matched<int32_t>(req, 2), *matched<int64_t>(req, 3));
  });
  get(kPartition + "/messages", [](ClusterReader& c, Req req) -> Answer<json> {
    auto q = browse_of(req);
    if (!q) return fail(q.error());
    return messages(c, req.matches[1], *matched<int32_t>(req, 2), *q);
  });
  get("/api/groups", [](ClusterReader& c, Req) { return groups(c); });
  // /api/group?id=G: a group id may hold any character, so it is a parameter.
  get("/api/group", [](ClusterReader& c, Req req) -> Answer<json> {
    if (!req.has_param("id")) return fail(bad_request("no id"));
    return group(c, req.get_param_value("id"));
  });
  write("POST", "/api/topics", true, [](ClusterReader& c, Req, const json& b) { return create(c, b); });
  write("DELETE", kTopic, false, [](ClusterReader& c, Req req, const json&) { return remove(c, req.matches[1]); });
  write("POST", kTopic + "/partitions", true, [](ClusterReader& c, Req req, const json& b) {
    return grow(c, req.matches[1], b);
  });
  write("POST", kTopic + "/configs", true, [](ClusterReader& c, Req req, const json& b) {
    return configure(c, req.matches[1], b);
  });
  write("DELETE", "/api/group", false, [](ClusterReader& c, Req req, const json&) -> Answer<json> {
    if (!req.has_param("id")) return fail(bad_request("no id"));
    return forget(c, req.get_param_value("id"));
  });
  write("POST", "/api/group/offsets", true, [](ClusterReader& c, Req req, const json& b) -> Answer<json> {
    if (!req.has_param("id")) return fail(bad_request("no id"));
    return reset(c, req.get_param_value("id"), b);
  });
}

}  // namespace strata::console

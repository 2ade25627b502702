#include "console/console.h"

#include <httplib.h>

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

std::optional<int64_t> int_param(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) return std::nullopt;
  const std::string v = req.get_param_value(name);
  int64_t out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return out;
}

void answer(httplib::Response& res, const Answer<json>& a) {
  if (a) {
    res.set_content(a->dump(), kJson);
  } else {
    res.status = a.error().status;
    if (res.status == 401) res.set_header("WWW-Authenticate", kRealm);
    res.set_content(json{{"error", a.error().message}}.dump(), kJson);
  }
}

// The security the console's connections use for this request: the target's, with the
// page user's name and password (HTTP Basic) when the cluster's listener wants SASL, so
// the cluster authenticates each user and its ACLs decide what the user sees and does.
Answer<client::ConnectOptions> login(const ConsoleTarget& target, const httplib::Request& req) {
  client::ConnectOptions options = target.options;
  if (!options.security || !options.security->sasl) return options;
  const std::string header = req.get_header_value("Authorization");
  constexpr std::string_view kBasic = "Basic ";
  std::optional<std::string> pair;
  if (header.rfind(kBasic, 0) == 0) pair = security::base64_decode(std::string_view(header).substr(kBasic.size()));
  const size_t colon = pair ? pair->find(':') : std::string::npos;
  if (colon == std::string::npos) return fail(Failure{401, "log in with a user of the cluster"});
  auto user = std::make_shared<client::ClientSecurity>(*options.security);
  user->username = pair->substr(0, colon);
  user->password = pair->substr(colon + 1);
  options.security = std::move(user);
  return options;
}

// Connects as the request's user and answers `route(reader)`.
template <class F>
void serve(const ConsoleTarget& target, const httplib::Request& req, httplib::Response& res, F&& route) {
  auto options = login(target, req);
  if (!options) return answer(res, fail(options.error()));
  auto c = ClusterReader::connect(target.bootstrap, *options);
  if (!c) {
    const bool refused = c.error().kind == client::ClientError::Kind::kAuthentication;
    return answer(res, fail(Failure{refused ? 401 : 502, c.error().message}));
  }
  answer(res, route(*c));
}

std::optional<int32_t> partition_of(const httplib::Request& req) {
  int32_t p = 0;
  const std::string s = req.matches[2];
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), p);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return p;
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
    return Failure{403, "a write from another site (" + origin + ") is refused"};
  }
  return std::nullopt;
}

// Runs `write(reader, body)` unless the request is refused or its body is not a JSON
// object.
template <class F>
void write_route(const ConsoleTarget& target, const ConsoleSettings& settings, bool with_body,
                 const httplib::Request& req, httplib::Response& res, F&& write) {
  if (auto no = refused(req, settings, with_body)) return answer(res, fail(*no));
  json body = json::object();
  if (with_body) {
    body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) return answer(res, fail(bad_request("the body is not a JSON object")));
  }
  serve(target, req, res, [&](ClusterReader& c) -> Answer<json> {
    try {
      return write(c, body);
    } catch (const json::exception& e) {  // a field of the wrong type
      return fail(bad_request(std::string("bad field: ") + e.what()));
    }
  });
}

}  // namespace

void install_console(httplib::Server& server, ConsoleTarget target, ConsoleSettings settings) {
  // TLS without SASL: the console's connections carry the broker's own certificate, not
  // the page user's identity, so it may read but not write.
  const auto& security = target.options.security;
  if (security && security->tls && !security->sasl) settings.read_only = true;
  const bool needs_login = security && security->sasl;
  auto t = std::make_shared<const ConsoleTarget>(std::move(target));
  for (const Asset& a : assets()) {
    server.Get(std::string(a.path), [a, needs_login](const httplib::Request& req, httplib::Response& res) {
      if (needs_login && req.get_header_value("Authorization").empty()) {  // the browser asks the user
        return answer(res, fail(Failure{401, "log in with a user of the cluster"}));
      }
      res.set_content(std::string(a.body), std::string(a.content_type));
    });
  }
  server.Get("/api/settings", [settings, needs_login](const httplib::Request&, httplib::Response& res) {
    res.set_content(json{{"read_only", settings.read_only}, {"login", needs_login}}.dump(), kJson);
  });
  auto get = [&server, t](const std::string& pattern, auto route) {
    server.Get(pattern, [t, route](const httplib::Request& req, httplib::Response& res) {
      serve(*t, req, res, [&](ClusterReader& c) { return route(c, req); });
    });
  };
  auto write = [&server, t, settings](const std::string& method, const std::string& pattern, bool with_body,
                                      auto route) {
    auto handler = [t, settings, with_body, route](const httplib::Request& req, httplib::Response& res) {
      write_route(*t, settings, with_body, req, res, [&](ClusterReader& c, const json& body) { return route(c, req, body); });
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
    auto p = partition_of(req);
    if (!p) return fail(bad_request("bad partition"));
    return batches(c, req.matches[1], *p, int_param(req, "offset").value_or(0));
  });
  get(kPartition + "/batches/([0-9]{1,18})", [](ClusterReader& c, Req req) -> Answer<json> {
    auto p = partition_of(req);
    const std::string s = req.matches[3];
    return p ? batch(c, req.matches[1], *p, std::stoll(s)) : fail(bad_request("bad partition"));
  });
  get(kPartition + "/messages", [](ClusterReader& c, Req req) -> Answer<json> {
    auto p = partition_of(req);
    if (!p) return fail(bad_request("bad partition"));
    Browse q;
    q.offset = int_param(req, "offset");
    q.timestamp = int_param(req, "timestamp");
    q.newest = req.get_param_value("from") == "newest";
    q.limit = int_param(req, "limit").value_or(50);
    q.filter = req.get_param_value("filter");
    return messages(c, req.matches[1], *p, q);
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

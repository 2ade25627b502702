#include "cluster/etcd_client.h"

#include <httplib.h>

#include <charconv>

namespace strata::cluster {

namespace {

constexpr const char* kJson = "application/json";
// A watch line longer than this is not one etcd writes (a message holds at most a
// request's worth of events, --max-request-bytes 1.5 MiB by default, base64-inflated).
constexpr size_t kWatchLineMax = size_t(64) << 20;
// An answer larger than this is not one Strata asks for (its largest reads are one
// topic's keys and the whole root at start).
constexpr size_t kAnswerMax = size_t(256) << 20;

std::unique_ptr<httplib::Client> make_client(const EtcdEndpoint& e,
                                             std::chrono::milliseconds connect,
                                             std::chrono::milliseconds read) {
  auto c = std::make_unique<httplib::Client>(e.host, int(e.port));
  c->set_keep_alive(true);
  c->set_tcp_nodelay(true);
  c->set_connection_timeout(connect);
  c->set_read_timeout(read);
  c->set_write_timeout(read);
  return c;
}

EtcdError unavailable(const EtcdEndpoint& e, httplib::Error err) {
  return {EtcdError::Kind::kUnavailable,
          "etcd at " + e.text() + " did not answer: " + httplib::to_string(err)};
}

// etcd's error object is a refusal; anything else that does not decode is a bad answer.
// An answer that decodes is parsed once; only a failed one is looked at again.
template <class T>
Result<T, EtcdError> decoded(const std::string& body,
                             Result<T, std::string> (*parse)(std::string_view)) {
  auto r = parse(body);
  if (r) return std::move(*r);
  if (auto e = gateway_error_object(body)) return fail(EtcdError{EtcdError::Kind::kRejected, *e});
  return fail(EtcdError{EtcdError::Kind::kBadAnswer, r.error()});
}

Result<uint16_t, std::string> parse_port(std::string_view s) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v == 0 || v > 65535) {
    return fail("etcd.connect: bad port '" + std::string(s) + "'");
  }
  return uint16_t(v);
}

}  // namespace

Result<EtcdConnect, std::string> parse_etcd_connect(std::string_view text) {
  EtcdConnect out;
  std::string_view hosts = text;
  if (auto slash = text.find('/'); slash != std::string_view::npos) {
    hosts = text.substr(0, slash);
    out.chroot = std::string(text.substr(slash));
    while (out.chroot.size() > 1 && out.chroot.back() == '/') out.chroot.pop_back();
    if (out.chroot == "/") out.chroot.clear();
    if (out.chroot.find("//") != std::string::npos)
      return fail("etcd.connect: bad chroot '" + out.chroot + "'");
  }
  while (!hosts.empty()) {
    const size_t comma = hosts.find(',');
    std::string_view one = hosts.substr(0, comma);
    hosts = comma == std::string_view::npos ? std::string_view() : hosts.substr(comma + 1);
    const size_t colon = one.rfind(':');
    EtcdEndpoint e;
    e.host = std::string(one.substr(0, colon));
    if (colon != std::string_view::npos) {
      auto port = parse_port(one.substr(colon + 1));
      if (!port) return fail(port.error());
      e.port = *port;
    }
    if (e.host.empty()) return fail("etcd.connect: empty host in '" + std::string(text) + "'");
    out.endpoints.push_back(std::move(e));
  }
  if (out.endpoints.empty()) return fail("etcd.connect: no host in '" + std::string(text) + "'");
  return out;
}

EtcdClient::EtcdClient(EtcdClientOptions options) : options_(std::move(options)) {}
EtcdClient::~EtcdClient() = default;

httplib::Client& EtcdClient::connection(size_t endpoint) {
  if (!client_ || endpoint != current_) {
    current_ = endpoint;
    client_ = make_client(options_.endpoints[endpoint], options_.connect_timeout,
                          options_.request_timeout);
  }
  return *client_;
}

// Tries the endpoint that answered last, then each other once. An HTTP answer of any
// status counts as etcd's: the gateway reports errors as a JSON body (decoded later).
//
// The body is collected by a content receiver rather than taken from the response: the
// gateway ends an error answer's chunked body with HTTP trailers
// (Grpc-Trailer-Content-Type), which cpp-httplib 0.11 fails to read (Error::Read), after
// it has handed over the whole body. So a complete JSON object received counts as the
// answer whatever the transport says; a partial one is a failed request.
Result<std::string, EtcdError> EtcdClient::post(const char* path, const std::string& body) {
  std::lock_guard lock(mu_);
  const size_t n = options_.endpoints.size();
  EtcdError last;
  for (size_t i = 0; i < n; ++i) {
    const size_t endpoint = (current_ + i) % n;
    std::string answer;
    httplib::Request req;
    req.method = "POST";
    req.path = path;
    req.body = body;
    req.set_header("Content-Type", kJson);
    req.content_receiver = [&answer](const char* data, size_t len, uint64_t, uint64_t) {
      answer.append(data, len);
      return answer.size() <= kAnswerMax;
    };
    auto res = connection(endpoint).send(req);
    if (res && res->status != 0) return answer;
    if (!res && res.error() == httplib::Error::Read && is_complete_json(answer)) {
      client_.reset();  // the connection is not reusable after the failed trailer read
      return answer;
    }
    last = unavailable(options_.endpoints[endpoint], res.error());
    client_.reset();  // a fresh connection next time
  }
  return fail(std::move(last));
}

Result<RangeResult, EtcdError> EtcdClient::range(std::string_view key, std::string_view range_end,
                                                 int64_t revision) {
  auto body = post("/v3/kv/range", range_body(key, range_end, revision));
  if (!body) return fail(body.error());
  return decoded(*body, &parse_range);
}

Result<TxnResult, EtcdError> EtcdClient::txn(const TxnRequest& t) {
  auto body = post("/v3/kv/txn", txn_body(t));
  if (!body) return fail(body.error());
  return decoded(*body, &parse_txn);
}

Result<LeaseGrant, EtcdError> EtcdClient::grant(int64_t ttl_s) {
  auto body = post("/v3/lease/grant", lease_grant_body(ttl_s));
  if (!body) return fail(body.error());
  return decoded(*body, &parse_lease_grant);
}

Result<int64_t, EtcdError> EtcdClient::keepalive(int64_t lease) {
  auto body = post("/v3/lease/keepalive", lease_id_body(lease));
  if (!body) return fail(body.error());
  return decoded(*body, &parse_keepalive);
}

Result<void, EtcdError> EtcdClient::revoke(int64_t lease) {
  auto body = post("/v3/lease/revoke", lease_id_body(lease));
  if (!body) return fail(body.error());
  if (auto e = gateway_error_object(*body)) return fail(EtcdError{EtcdError::Kind::kRejected, *e});
  return {};
}

EtcdWatch::EtcdWatch(EtcdEndpoint endpoint, std::chrono::milliseconds connect_timeout,
                     std::chrono::milliseconds quiet)
    : endpoint_(std::move(endpoint)), connect_timeout_(connect_timeout), quiet_(quiet) {}

EtcdWatch::~EtcdWatch() {
  stop();
}

void EtcdWatch::stop() {
  stopped_ = true;
  std::lock_guard lock(mu_);
  if (client_) client_->stop();
}

Result<void, EtcdError> EtcdWatch::run(std::string_view key, std::string_view range_end,
                                       int64_t start_revision, const OnMessage& on_message) {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return {};
    // The read timeout is the quiet bound: a stream silent for that long ends.
    client_ = make_client(endpoint_, connect_timeout_, quiet_);
  }
  auto heard = std::chrono::steady_clock::now();
  std::string pending;
  std::string failure;
  bool ended_by_caller = false;
  httplib::Request req;
  req.method = "POST";
  req.path = "/v3/watch";
  req.body = watch_body(key, range_end, start_revision);
  req.set_header("Content-Type", kJson);
  // etcd's require-leader metadata (clientv3's WithRequireLeader), which the gateway
  // passes on: a member that loses its leader cancels the watch instead of holding it
  // open while the others go on without it.
  req.set_header("Grpc-Metadata-hasleader", "true");
  req.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
    heard = std::chrono::steady_clock::now();
    pending.append(data, len);
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(pending.data() + start, nl - start);
      if (line.find_first_not_of(" \r\t") == std::string_view::npos) continue;
      auto m = parse_watch_message(line);
      if (!m) {
        failure = m.error();
        return false;
      }
      if (!on_message(*m)) {
        ended_by_caller = true;
        return false;
      }
    }
    pending.erase(0, start);
    if (pending.size() > kWatchLineMax) {
      failure = "etcd: a watch message longer than 64 MiB";
      return false;
    }
    return !stopped_.load();
  };
  auto res = client_->send(req);
  if (stopped_ || ended_by_caller) return {};
  if (!failure.empty()) return fail(EtcdError{EtcdError::Kind::kBadAnswer, failure});
  if (!res && res.error() == httplib::Error::Read &&
      std::chrono::steady_clock::now() - heard >= quiet_ - quiet_ / 10) {
    return fail(EtcdError{EtcdError::Kind::kQuiet, "etcd at " + endpoint_.text() + ": a quiet watch"});
  }
  if (!res) return fail(unavailable(endpoint_, res.error()));
  // A last message without its newline.
  if (!pending.empty()) {
    auto m = parse_watch_message(pending);
    if (!m) return fail(EtcdError{EtcdError::Kind::kBadAnswer, m.error()});
    if (!on_message(*m)) return {};
  }
  return fail(
      EtcdError{EtcdError::Kind::kUnavailable, "etcd at " + endpoint_.text() + " ended the watch"});
}

}  // namespace strata::cluster

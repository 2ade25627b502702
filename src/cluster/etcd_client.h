// A client of etcd's v3 API over its JSON gateway (etcd_json.h), through cpp-httplib
// (Debian libcpp-httplib-dev): one kept-alive HTTP/1.1 connection, requests one at a
// time (calls from several threads queue on a mutex), failing over to the next endpoint
// of `etcd.connect` when one does not answer.
//
// Every call blocks its thread for at most connect + request timeout: call it from the
// cluster's own threads or the blocking-work pool, never from a shard's event loop.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/etcd_json.h"
#include "common/result.h"

namespace httplib {
class Client;
}

namespace strata::cluster {

struct EtcdEndpoint {
  std::string host;
  uint16_t port = 2379;
  std::string text() const { return host + ":" + std::to_string(port); }
};

// etcd.connect=host:port[,host:port...][/chroot], like zookeeper.connect. The chroot is
// "" or starts with '/' and has no trailing '/'.
struct EtcdConnect {
  std::vector<EtcdEndpoint> endpoints;
  std::string chroot;
};
Result<EtcdConnect, std::string> parse_etcd_connect(std::string_view text);

struct EtcdError {
  enum class Kind {
    kUnavailable,  // no endpoint answered (connect, timeout, reset): retry later
    kRejected,     // etcd answered with an error (request too large, lease not found, ...)
    kBadAnswer,    // an answer that is not what the gateway sends
    kQuiet,        // a watch heard nothing for its quiet bound (EtcdWatch): watch again
  };
  Kind kind = Kind::kUnavailable;
  std::string message;
};

struct EtcdClientOptions {
  std::vector<EtcdEndpoint> endpoints;
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds request_timeout{5000};
};

class EtcdClient {
 public:
  explicit EtcdClient(EtcdClientOptions options);
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  // Keys from `key` up to `range_end` ("" for the one key), at `revision` (0: latest).
  Result<RangeResult, EtcdError> range(std::string_view key, std::string_view range_end = "",
                                       int64_t revision = 0);
  Result<TxnResult, EtcdError> txn(const TxnRequest& txn);
  Result<LeaseGrant, EtcdError> grant(int64_t ttl_s);
  // The lease's remaining TTL after renewal; 0 if it has expired.
  Result<int64_t, EtcdError> keepalive(int64_t lease);
  Result<void, EtcdError> revoke(int64_t lease);

  const EtcdClientOptions& options() const { return options_; }

 private:
  Result<std::string, EtcdError> post(const char* path, const std::string& body);
  httplib::Client& connection(size_t endpoint);

  EtcdClientOptions options_;
  std::mutex mu_;
  size_t current_ = 0;  // the endpoint that answered last
  std::unique_ptr<httplib::Client> client_;
};

// One watch stream of a key range, on its own connection. run() blocks the calling
// thread, handing each message to `on_message` in order, until the stream ends (etcd
// went away, the watch was canceled), `on_message` returns false, or stop() is called
// from another thread.
class EtcdWatch {
 public:
  using OnMessage = std::function<bool(const WatchMessage&)>;
  // `quiet` bounds the silence of the stream: a watch that hears nothing for that long
  // (no event, no progress notice) ends with kQuiet, so that a member cut off without a
  // reset (a dropped route, a blackholed port) cannot leave the caller with a stale view
  // for ever; watching again from the last revision costs one request.
  EtcdWatch(EtcdEndpoint endpoint, std::chrono::milliseconds connect_timeout,
            std::chrono::milliseconds quiet = std::chrono::hours(24));
  ~EtcdWatch();

  // Ok when stopped or ended by `on_message`; the error otherwise.
  Result<void, EtcdError> run(std::string_view key, std::string_view range_end,
                              int64_t start_revision, const OnMessage& on_message);
  void stop();

 private:
  EtcdEndpoint endpoint_;
  std::chrono::milliseconds connect_timeout_;
  std::chrono::milliseconds quiet_;
  std::atomic<bool> stopped_{false};
  std::mutex mu_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace strata::cluster

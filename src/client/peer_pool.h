// Requests from one broker to another (Kafka's inter-broker channel): the transaction
// coordinator's WriteTxnMarkers to partition leaders on other brokers.
//
// Each peer address has a pool of idle connections (KafkaClient). A call takes one, or
// connects within `connect_timeout_ms` (Kafka's socket.connection.setup.timeout.ms),
// sends the request and waits at most `request_timeout_ms` (request.timeout.ms) for
// each read and write; it returns the connection to the pool unless the call failed,
// since after a failure the stream may be out of step. Calls run on the pool's own
// threads, never on a shard or the blocking-work pool, so an unreachable peer holds
// only one of them. stop() breaks the connections in use, so that no call outlives it
// by more than the time its thread needs to notice.
//
// Threads: call() and stop() from any thread; `done` runs on a pool thread.
#pragma once

#include <asio/post.hpp>
#include <asio/thread_pool.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "client/kafka_client.h"

namespace strata::client {

struct PeerPoolConfig {
  size_t threads = 2;
  int connect_timeout_ms = 10000;  // socket.connection.setup.timeout.ms
  int request_timeout_ms = 30000;  // request.timeout.ms
  size_t idle_per_peer = 2;        // connections kept per peer between calls
  std::string client_id;
  std::shared_ptr<const ClientSecurity> security;  // the peers' listener's; null: PLAINTEXT
};

class PeerPool {
 public:
  explicit PeerPool(PeerPoolConfig config);
  ~PeerPool();
  PeerPool(const PeerPool&) = delete;
  PeerPool& operator=(const PeerPool&) = delete;

  // Sends `request` to `at` and passes the decoded answer (or why there is none) to
  // `done`. After stop(), `done` gets a kNetwork error at once.
  template <class Resp, class Req>
  void call(const HostPort& at, Req request, std::function<void(Result<Resp, ClientError>)> done) {
    if (stopped_.load()) return done(fail(stopped_error()));
    asio::post(threads_, [this, at, request = std::move(request), done = std::move(done)]() mutable {
      auto lease = take(at);
      if (!lease.client) return done(fail(std::move(lease.error)));
      Result<Resp, ClientError> r = lease.client->template call<Resp>(request);
      give_back(at, std::move(lease.client), r.ok());
      done(std::move(r));
    });
  }

  // Fails every later call, breaks the connections in use, waits for the threads.
  void stop();

  // Connections opened so far (tests and metrics).
  uint64_t connects() const { return connects_.load(); }

 private:
  struct Lease {
    std::unique_ptr<KafkaClient> client;
    ClientError error;
  };
  static std::string key_of(const HostPort& at);
  static ClientError stopped_error();
  Lease take(const HostPort& at);
  void give_back(const HostPort& at, std::unique_ptr<KafkaClient> client, bool healthy);

  PeerPoolConfig config_;
  std::atomic<bool> stopped_{false};
  std::atomic<uint64_t> connects_{0};
  std::mutex mu_;
  std::map<std::string, std::vector<std::unique_ptr<KafkaClient>>> idle_;  // guarded by mu_
  std::set<KafkaClient*> busy_;                                            // guarded by mu_
  asio::thread_pool threads_;  // last: its threads use the members above
};

}  // namespace strata::client

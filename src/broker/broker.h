// The broker: storage, topics and the network, and the request handlers between them.
//
// Threads: one shard (io_context + thread) per core. Each partition belongs to one
// shard (`owner_shard`), and its Log is touched only there: handlers on a connection's
// shard hop to the owner with `on_shard` for every log operation.
#pragma once

#include <asio.hpp>

#include <memory>
#include <string>

#include "broker/config.h"
#include "broker/fetch_waiters.h"
#include "broker/topics.h"
#include "net/server.h"
#include "protocol/headers.h"
#include "storage/log_manager.h"
#include "storage/sync_service.h"

namespace strata::broker {

struct RequestContext {
  protocol::RequestHeader header;
  const net::Frame& frame;
};

class Broker : public net::RequestHandler {
 public:
  explicit Broker(BrokerConfig config);
  ~Broker() override;

  // Opens the data directory and binds the listener; then serves until stop().
  Result<void, std::string> start();
  // Clean shutdown: stop serving, flush and close every log, write checkpoints.
  void stop();
  uint16_t port() const;

  asio::awaitable<std::optional<protocol::Output>> handle(net::Frame& frame) override;

  const BrokerConfig& config() const { return config_; }
  Topics& topics() { return topics_; }
  FetchWaiters& fetch_waiters() { return fetch_waiters_; }
  storage::LogManager& logs() { return *logs_; }
  size_t owner_shard(const storage::TopicPartition& tp) const;
  asio::io_context& shard(size_t i) { return server_->shard(i); }
  size_t shard_count() const { return server_->shard_count(); }
  // The LogConfig of a topic: broker defaults with the topic's overrides applied.
  storage::LogConfig log_config_for(const std::string& topic) const;
  // Creates a topic and its partition logs (auto-create and CreateTopics).
  Result<TopicInfo, std::pair<int16_t, std::string>> create_topic(
      const std::string& name, int32_t partitions, const std::map<std::string, std::string>& configs,
      bool validate_only);

  // Runs `fn` on shard `s` and returns its result to the caller's shard.
  // (Asio's co_spawn wants a default-constructible result: it travels in an optional.)
  template <class Fn>
  auto on_shard(size_t s, Fn fn) -> asio::awaitable<decltype(fn())> {
    using R = decltype(fn());
    std::optional<R> r = co_await asio::co_spawn(
        shard(s),
        [fn = std::move(fn)]() mutable -> asio::awaitable<std::optional<R>> { co_return fn(); },
        asio::use_awaitable);
    co_return std::move(*r);
  }

 private:
  void start_maintenance();

  BrokerConfig config_;
  Topics topics_;
  FetchWaiters fetch_waiters_;
  std::unique_ptr<storage::SyncService> sync_;
  std::unique_ptr<storage::LogManager> logs_;
  std::unique_ptr<net::Server> server_;
  std::unique_ptr<asio::steady_timer> maintenance_;
  bool stopped_ = false;
};

int64_t now_ms();

}  // namespace strata::broker

// The high watermarks of partitions whose logs are on other brokers, for the consumer-lag
// metrics of the groups this broker coordinates (kafka_metrics.h): a group commits
// offsets of partitions anywhere in the cluster, and kafka_exporter reports lag for all
// of them. Kept as their leaders last answered ListOffsets (latest), asked again through
// the inter-broker channel (client/peer_pool.h) at most every kRefreshMs and only when a
// scrape wants them, so an idle endpoint costs the cluster nothing. A scrape never waits:
// it reports what the last answers said (a value older than kStaleMs is left out, as is
// one never answered).
//
// At most one call per leader is in flight (an unreachable leader holds a pool thread for
// its connect timeout, and transaction markers share the pool); answers older than the
// stale bound are dropped from the cache.
//
// Thread-safe: scrapes (admin listener threads) and answers (peer pool threads) share it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "storage/log.h"

namespace strata::broker {

class Broker;

inline constexpr int64_t kRemoteWatermarksRefreshMs = 5000;
inline constexpr int64_t kRemoteWatermarksStaleMs = 60000;

class RemoteWatermarks {
 public:
  // The cached high watermarks of `wanted` (partitions with no log here); asks their
  // leaders again when the last round is older than the refresh interval.
  std::map<storage::TopicPartition, int64_t> get(const std::set<storage::TopicPartition>& wanted, Broker& broker);

 private:
  struct State {
    std::mutex mu;
    std::map<storage::TopicPartition, std::pair<int64_t, std::chrono::steady_clock::time_point>> known;
    std::set<int32_t> asking;  // leaders with a call in flight: not asked again until it ends
  };
  void ask(const std::set<storage::TopicPartition>& wanted, Broker& broker);

  std::shared_ptr<State> state_ = std::make_shared<State>();  // outlives answers in flight
  std::chrono::steady_clock::time_point asked_{};
};

}  // namespace strata::broker

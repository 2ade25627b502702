// Dynamic broker configs (Kafka's DynamicBrokerConfig, for the keys Strata changes while
// running): a cluster's /config/brokers/<node.id> and /config/brokers/<default> entries
// (docs/formats/etcd.md) over the static settings. A key's effective value is this
// broker's entry, else the default entity's, else the static setting (Kafka's order of
// sources). Dynamic today: leader.replication.throttled.rate and
// follower.replication.throttled.rate.
//
// Threads: update() from the cluster node's thread, the rest from any (the rates are
// atomics read on replica fetches).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "broker/config.h"
#include "common/result.h"

namespace strata::cluster {
struct ClusterView;
}

namespace strata::broker {

inline constexpr const char* kLeaderThrottledRate = "leader.replication.throttled.rate";
inline constexpr const char* kFollowerThrottledRate = "follower.replication.throttled.rate";

bool is_dynamic_broker_key(const std::string& name);
// Kafka's validation of a dynamic value (a long, at least 0): the value, or the message.
Result<int64_t, std::string> parse_dynamic_value(const std::string& name, const std::string& value);

class DynamicBrokerConfigs {
 public:
  explicit DynamicBrokerConfigs(const BrokerConfig& statics);

  // From each cluster view: this broker's and the default entity's overrides.
  void update(int32_t self, const cluster::ClusterView& view);

  int64_t leader_rate() const { return leader_rate_.load(std::memory_order_relaxed); }
  int64_t follower_rate() const { return follower_rate_.load(std::memory_order_relaxed); }

  // One entity's overrides as of the last view, and its key's mod revision (0: absent),
  // the pair a compare-and-swap of the key needs.
  struct Entry {
    std::map<std::string, std::string> values;
    int64_t revision = 0;
  };
  // `entity`: this broker's id or "<default>" (another's is not kept: empty).
  Entry entry(const std::string& entity) const;

 private:
  const int64_t static_leader_rate_;
  const int64_t static_follower_rate_;
  std::atomic<int64_t> leader_rate_;
  std::atomic<int64_t> follower_rate_;
  mutable std::mutex mu_;
  std::string self_;  // guarded by mu_
  Entry own_;         // guarded by mu_
  Entry defaults_;    // guarded by mu_
};

}  // namespace strata::broker

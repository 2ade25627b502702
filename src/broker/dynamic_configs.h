// Dynamic broker configs (Kafka's DynamicBrokerConfig, for the keys Strata changes while
// running): a cluster's /config/brokers/<node.id> and /config/brokers/<default> entries
// (docs/formats/etcd.md) over the static settings. A key's effective value is this
// broker's entry, else the default entity's, else the static setting. Dynamic today:
// leader.replication.throttled.rate and follower.replication.throttled.rate.
//
// Threads: update() from the cluster node's thread, the rest from any (the rates are
// atomics read on every replica fetch).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "broker/config.h"

namespace strata::cluster {
struct ClusterView;
}

namespace strata::broker {

inline constexpr const char* kLeaderThrottledRate = "leader.replication.throttled.rate";
inline constexpr const char* kFollowerThrottledRate = "follower.replication.throttled.rate";

bool is_dynamic_broker_key(const std::string& name);
// Kafka's validation of a dynamic value (a long, at least 0): the message if it fails.
std::optional<std::string> check_dynamic_value(const std::string& name, const std::string& value);

class DynamicBrokerConfigs {
 public:
  explicit DynamicBrokerConfigs(const BrokerConfig& statics);

  // From each cluster view: this broker's and the default entity's overrides.
  void update(int32_t self, const cluster::ClusterView& view);

  int64_t leader_rate() const { return leader_rate_.load(std::memory_order_relaxed); }
  int64_t follower_rate() const { return follower_rate_.load(std::memory_order_relaxed); }

  struct Override {
    std::string value;
    bool per_broker = false;  // this broker's own entry, else the default entity's
  };
  // The dynamic override of `name` in effect, if any.
  std::optional<Override> override_of(const std::string& name) const;

 private:
  const int64_t static_leader_rate_;
  const int64_t static_follower_rate_;
  std::atomic<int64_t> leader_rate_;
  std::atomic<int64_t> follower_rate_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> own_;       // guarded by mu_
  std::map<std::string, std::string> defaults_;  // guarded by mu_
};

}  // namespace strata::broker

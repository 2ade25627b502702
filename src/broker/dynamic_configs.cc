#include "broker/dynamic_configs.h"

#include <charconv>

#include "cluster/keys.h"
#include "cluster/view.h"

namespace strata::broker {

bool is_dynamic_broker_key(const std::string& name) {
  return name == kLeaderThrottledRate || name == kFollowerThrottledRate;
}

Result<int64_t, std::string> parse_dynamic_value(const std::string& name, const std::string& value) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return fail("Invalid value " + value + " for configuration " + name + ": Not a number of type LONG");
  }
  if (v < 0) return fail("Invalid value " + value + " for configuration " + name + ": Value must be at least 0");
  return v;
}

DynamicBrokerConfigs::DynamicBrokerConfigs(const BrokerConfig& statics)
    : static_leader_rate_(statics.leader_replication_throttled_rate),
      static_follower_rate_(statics.follower_replication_throttled_rate),
      leader_rate_(static_leader_rate_),
      follower_rate_(static_follower_rate_) {}

void DynamicBrokerConfigs::update(int32_t self, const cluster::ClusterView& view) {
  auto entry_of = [&view](const std::string& entity) {
    auto it = view.broker_configs.find(entity);
    return it == view.broker_configs.end() ? Entry{} : Entry{it->second.values, it->second.mod_revision};
  };
  std::lock_guard lock(mu_);
  self_ = std::to_string(self);
  own_ = entry_of(self_);
  defaults_ = entry_of(std::string(cluster::Keys::kDefaultEntity));
  // A value that does not parse (written by hand with etcdctl) is left out, as if absent.
  auto effective = [this](const char* name, int64_t fallback) -> int64_t {
    for (const Entry* e : {&own_, &defaults_}) {
      auto it = e->values.find(name);
      if (it == e->values.end()) continue;
      if (auto v = parse_dynamic_value(name, it->second)) return *v;
    }
    return fallback;
  };
  leader_rate_.store(effective(kLeaderThrottledRate, static_leader_rate_), std::memory_order_relaxed);
  follower_rate_.store(effective(kFollowerThrottledRate, static_follower_rate_), std::memory_order_relaxed);
}

DynamicBrokerConfigs::Entry DynamicBrokerConfigs::entry(const std::string& entity) const {
  std::lock_guard lock(mu_);
  if (entity == cluster::Keys::kDefaultEntity) return defaults_;
  return entity == self_ ? own_ : Entry{};
}

}  // namespace strata::broker

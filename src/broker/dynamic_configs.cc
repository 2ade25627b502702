#include "broker/dynamic_configs.h"

#include <charconv>

#include "cluster/keys.h"
#include "cluster/view.h"

namespace strata::broker {

bool is_dynamic_broker_key(const std::string& name) {
  return name == kLeaderThrottledRate || name == kFollowerThrottledRate;
}

std::optional<std::string> check_dynamic_value(const std::string& name, const std::string& value) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return "Invalid value " + value + " for configuration " + name + ": Not a number of type LONG";
  }
  if (v < 0) return "Invalid value " + value + " for configuration " + name + ": Value must be at least 0";
  return std::nullopt;
}

DynamicBrokerConfigs::DynamicBrokerConfigs(const BrokerConfig& statics)
    : static_leader_rate_(statics.leader_replication_throttled_rate),
      static_follower_rate_(statics.follower_replication_throttled_rate),
      leader_rate_(static_leader_rate_),
      follower_rate_(static_follower_rate_) {}

void DynamicBrokerConfigs::update(int32_t self, const cluster::ClusterView& view) {
  auto values = [&view](const std::string& entity) {
    auto it = view.broker_configs.find(entity);
    return it == view.broker_configs.end() ? std::map<std::string, std::string>{} : it->second.values;
  };
  std::lock_guard lock(mu_);
  own_ = values(std::to_string(self));
  defaults_ = values(std::string(cluster::Keys::kDefaultEntity));
  // A value that does not parse (written by hand with etcdctl) is left out, as if absent.
  auto effective = [this](const char* name, int64_t fallback) -> int64_t {
    for (const auto* m : {&own_, &defaults_}) {
      auto it = m->find(name);
      if (it == m->end() || check_dynamic_value(name, it->second)) continue;
      return std::stoll(it->second);
    }
    return fallback;
  };
  leader_rate_.store(effective(kLeaderThrottledRate, static_leader_rate_), std::memory_order_relaxed);
  follower_rate_.store(effective(kFollowerThrottledRate, static_follower_rate_), std::memory_order_relaxed);
}

std::optional<DynamicBrokerConfigs::Override> DynamicBrokerConfigs::override_of(const std::string& name) const {
  std::lock_guard lock(mu_);
  if (auto it = own_.find(name); it != own_.end()) return Override{it->second, true};
  if (auto it = defaults_.find(name); it != defaults_.end()) return Override{it->second, false};
  return std::nullopt;
}

}  // namespace strata::broker

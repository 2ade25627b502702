#include "cluster/elections.h"

#include <algorithm>
#include <map>

namespace strata::cluster {

namespace {

bool contains(const std::vector<int32_t>& nodes, int32_t n) {
  return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
}

PartitionState led_by(const PartitionState& s, int32_t leader) {
  PartitionState n = s;
  n.leader = leader;
  ++n.leader_epoch;
  ++n.partition_epoch;
  return n;
}

}  // namespace

Result<PartitionState, KafkaError> elect(const ClusterView& v, const PartitionState& s,
                                         const std::vector<int32_t>& replicas, ElectionType type) {
  if (type == ElectionType::kPreferred) {
    if (replicas.empty()) return fail(KafkaError::kPreferredLeaderNotAvailable);
    const int32_t preferred = replicas.front();
    if (s.leader == preferred) return fail(KafkaError::kElectionNotNeeded);
    if (!v.alive(preferred) || !contains(s.isr, preferred)) return fail(KafkaError::kPreferredLeaderNotAvailable);
    return led_by(s, preferred);
  }
  if (s.leader >= 0 && v.alive(s.leader)) return fail(KafkaError::kElectionNotNeeded);
  for (int32_t r : s.isr) {
    if (v.alive(r)) return led_by(s, r);
  }
  for (int32_t r : replicas) {
    if (!v.alive(r)) continue;
    PartitionState n = led_by(s, r);
    n.isr = {r};
    return n;
  }
  return fail(KafkaError::kEligibleLeadersNotAvailable);
}

std::vector<StateChange> plan_preferred_elections(const ClusterView& v, int64_t controller_epoch,
                                                  int32_t imbalance_percent) {
  struct Share {
    int64_t preferred = 0;
    int64_t not_led = 0;
  };
  std::map<int32_t, Share> shares;
  for (const auto& [topic, entry] : v.topics) {
    const auto& replicas = entry.assignment.replicas;
    for (size_t p = 0; p < replicas.size(); ++p) {
      const StateEntry* s = v.state(topic, int32_t(p));
      if (s == nullptr || replicas[p].empty()) continue;
      Share& share = shares[replicas[p].front()];
      ++share.preferred;
      if (s->state.leader != replicas[p].front()) ++share.not_led;
    }
  }
  std::vector<StateChange> out;
  for (const auto& [topic, entry] : v.topics) {
    const auto& replicas = entry.assignment.replicas;
    for (size_t p = 0; p < replicas.size(); ++p) {
      const StateEntry* s = v.state(topic, int32_t(p));
      if (s == nullptr || replicas[p].empty()) continue;
      const Share& share = shares[replicas[p].front()];
      if (share.not_led * 100 <= share.preferred * imbalance_percent) continue;
      auto n = elect(v, s->state, replicas[p], ElectionType::kPreferred);
      if (!n) continue;
      n->controller_epoch = controller_epoch;
      out.push_back({topic, int32_t(p), std::move(*n), s->mod_revision});
    }
  }
  return out;
}

}  // namespace strata::cluster

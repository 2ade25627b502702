#include "cluster/placement.h"

#include <algorithm>
#include <map>
#include <set>

namespace strata::cluster {

namespace {

// Kafka's getRackAlternatedBrokerList: racks in order, one broker of each in turn.
std::vector<int32_t> rack_alternated(const std::vector<PlacementBroker>& brokers) {
  std::map<std::string, std::vector<int32_t>> by_rack;
  for (const auto& b : brokers) by_rack[*b.rack].push_back(b.node_id);
  std::vector<int32_t> out;
  for (size_t round = 0; out.size() < brokers.size(); ++round) {
    for (auto& [rack, ids] : by_rack) {
      if (round < ids.size()) out.push_back(ids[round]);
    }
  }
  return out;
}

// Kafka's replicaIndex: the j-th follower after `first`, skipping `first` itself.
size_t replica_index(size_t first, size_t shift, size_t j, size_t n) {
  return (first + 1 + (shift + j) % (n - 1)) % n;
}

}  // namespace

Result<std::vector<std::vector<int32_t>>, std::string> assign_replicas(
    std::vector<PlacementBroker> brokers, int32_t partitions, int32_t rf, uint32_t start,
    uint32_t shift, int32_t first_partition) {
  const size_t n = brokers.size();
  if (rf <= 0) return fail(std::string("Replication factor must be larger than 0."));
  if (size_t(rf) > n) {
    return fail("Unable to replicate the partition " + std::to_string(rf) +
                " time(s): The target replication factor of " + std::to_string(rf) +
                " cannot be reached because only " + std::to_string(n) + " broker(s) are registered.");
  }
  std::sort(brokers.begin(), brokers.end(),
            [](const PlacementBroker& a, const PlacementBroker& b) { return a.node_id < b.node_id; });
  const size_t with_rack = size_t(std::count_if(brokers.begin(), brokers.end(),
                                                [](const PlacementBroker& b) { return b.rack.has_value(); }));
  if (with_rack != 0 && with_rack != n) {
    return fail(std::string("Not all brokers have rack information for replica rack aware assignment."));
  }
  std::vector<int32_t> order;
  std::map<int32_t, std::string> rack_of;
  std::set<std::string> racks;
  if (with_rack == n) {
    order = rack_alternated(brokers);
    for (const auto& b : brokers) {
      rack_of[b.node_id] = *b.rack;
      racks.insert(*b.rack);
    }
  } else {
    for (const auto& b : brokers) order.push_back(b.node_id);
  }
  std::vector<std::vector<int32_t>> out;
  out.reserve(size_t(partitions));
  const size_t begin = start % n;
  size_t next_shift = n > 1 ? shift % n : 0;
  for (int32_t i = 0; i < partitions; ++i) {
    const size_t p = size_t(first_partition + i);
    if (p > 0 && p % n == 0) ++next_shift;
    const size_t first = (p + begin) % n;
    std::vector<int32_t> replicas{order[first]};
    if (racks.empty()) {
      for (int32_t j = 0; j < rf - 1; ++j) replicas.push_back(order[replica_index(first, next_shift, size_t(j), n)]);
    } else {
      // Kafka's rack-aware choice: the next broker in the shifted order on a rack without
      // a replica yet (any rack once all have one), never a broker twice.
      std::set<std::string> used_racks{rack_of[order[first]]};
      std::set<int32_t> used{order[first]};
      for (size_t k = 0; replicas.size() < size_t(rf); ++k) {
        const int32_t b = order[replica_index(first, next_shift * racks.size(), k, n)];
        const bool rack_ok = used_racks.count(rack_of[b]) == 0 || used_racks.size() == racks.size();
        if (rack_ok && used.count(b) == 0) {
          replicas.push_back(b);
          used.insert(b);
          used_racks.insert(rack_of[b]);
        }
      }
    }
    out.push_back(std::move(replicas));
  }
  return out;
}

}  // namespace strata::cluster

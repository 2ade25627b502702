// Replica placement for new partitions, as Kafka's AdminUtils.assignReplicasToBrokers:
// partition p's first replica is broker (start + p) mod n of the list, the others follow
// at a shift that grows every n partitions, so leaders and replicas spread evenly; with
// racks, the list alternates racks first (Kafka's rack-alternated order), so each
// partition's replicas are on as many racks as it can be. Pure: the caller picks
// `start` and `shift` at random, as Kafka does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace strata::cluster {

struct PlacementBroker {
  int32_t node_id = -1;
  std::optional<std::string> rack;
};

// Fails (Kafka's INVALID_REPLICATION_FACTOR text) when `rf` exceeds the brokers, or when
// some brokers have a rack and others not.
Result<std::vector<std::vector<int32_t>>, std::string> assign_replicas(
    std::vector<PlacementBroker> brokers, int32_t partitions, int32_t rf, uint32_t start,
    uint32_t shift, int32_t first_partition = 0);

}  // namespace strata::cluster

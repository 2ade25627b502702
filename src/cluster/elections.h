// Leader elections asked for rather than forced by a broker's loss (docs/formats/etcd.md,
// "partition state"): ElectLeaders (KIP-183, KIP-460) and the controller's automatic
// leader rebalancing (auto.leader.rebalance.enable). Pure: they say which states to
// write; the writes are compare-and-swap transactions like every other state change.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/controller.h"
#include "common/kafka_errors.h"
#include "common/result.h"

namespace strata::cluster {

// ElectLeaders' election types.
enum class ElectionType : int8_t { kPreferred = 0, kUnclean = 1 };

// The state an election of `type` gives a partition of `replicas` now in `s`, or why not:
//  - preferred: the first replica leads if it is alive and in the ISR (else
//    PREFERRED_LEADER_NOT_AVAILABLE); ELECTION_NOT_NEEDED if it leads already;
//  - unclean: a partition without a live leader gets a live ISR member, else the first
//    live replica alone in the ISR (else ELIGIBLE_LEADERS_NOT_AVAILABLE);
//    ELECTION_NOT_NEEDED if its leader is alive.
// A new leader bumps the leader and partition epochs.
Result<PartitionState, KafkaError> elect(const ClusterView& v, const PartitionState& s,
                                         const std::vector<int32_t>& replicas, ElectionType type);

// Kafka's automatic leader rebalance: for every live broker whose share of the partitions
// it is the preferred replica of but does not lead exceeds `imbalance_percent`
// (leader.imbalance.per.broker.percentage), a preferred election of each such partition
// where it can lead. Ordered by topic and partition.
std::vector<StateChange> plan_preferred_elections(const ClusterView& v, int64_t controller_epoch,
                                                  int32_t imbalance_percent);

}  // namespace strata::cluster

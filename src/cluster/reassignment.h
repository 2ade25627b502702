// Partition reassignment (KIP-455; docs/formats/etcd.md, "assignment"): what a request
// does to a topic's assignment, and the controller's step that completes a move once
// every target replica is in the ISR. Pure, except write_reassignment_steps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/controller.h"
#include "common/kafka_errors.h"
#include "common/result.h"

namespace strata::cluster {

// A partition's target: the full set less the replicas being removed (the full set
// itself when it is not moving).
std::vector<int32_t> target_of(const TopicAssignment& a, int32_t p);
// Its origin: the full set less the replicas being added.
std::vector<int32_t> origin_of(const TopicAssignment& a, int32_t p);

// Applies one request to partition `p` of `a`: a target starts (or replaces) a move, a
// target equal to the origin or a reordering of the current set takes effect at once,
// and nullopt cancels (NO_REASSIGNMENT_IN_PROGRESS when nothing moves). The target is
// checked by the caller (brokers known, no duplicates, not empty).
Result<void, KafkaError> reassign(TopicAssignment& a, int32_t p, const std::optional<std::vector<int32_t>>& target);

// One topic's controller write: the assignment (when a move completes) and the states
// it changes, compared against the revisions the view had.
struct ReassignmentStep {
  std::string topic;
  int64_t assignment_revision = 0;
  std::optional<TopicAssignment> assignment;  // nullopt: unchanged (only states)
  std::vector<StateChange> states;
  std::vector<int32_t> completed;  // partitions whose move this step completes
};

// What the view calls for: a moving partition whose target is all in the ISR gets the
// target as its replicas and an ISR without the removed ones (a leader being removed, or
// dead, hands over to the first target replica in the ISR: leader epoch + 1); a
// partition not moving whose ISR holds non-replicas (a cancelled move) loses them. At
// most kStatesPerTxn - 2 states per step. Ordered by topic.
std::vector<ReassignmentStep> plan_reassignment_steps(const ClusterView& v, int64_t controller_epoch);

// Writes each step in one transaction fenced by the controller epoch, with the
// assignment's and every state's revision compared.
ControllerRun write_reassignment_steps(EtcdClient& etcd, const Keys& keys, const std::vector<ReassignmentStep>& steps,
                                       int64_t epoch);

}  // namespace strata::cluster

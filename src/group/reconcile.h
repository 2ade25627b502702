// Reconciliation of one consumer-protocol member towards its target assignment (Kafka's
// CurrentAssignmentBuilder): partitions that move away are revoked before anything new
// is assigned, and a partition is handed to its new owner only once its previous owner
// has let it go. A pure function: the group's state goes in, the member's next state
// comes out.
#pragma once

#include <functional>
#include <optional>

#include "common/kafka_errors.h"
#include "common/result.h"
#include "group/consumer_group.h"

namespace strata::group {

struct ReconcileInput {
  const ConsumerMember& member;
  int32_t target_epoch = 0;
  const Assignment& target;
  // What the member says it owns in this heartbeat; nullopt when it did not say
  // (it still owns what it was given, as far as revocation goes).
  const std::optional<Assignment>& owned;
  // The epoch of the member holding (topic, partition), or -1 if none does.
  std::function<int32_t(const Uuid&, int32_t)> owner_epoch;
};

// The member's next state, or FENCED_MEMBER_EPOCH for a member in an unknown state that
// still claims partitions (it must rejoin with none).
Result<ConsumerMember, KafkaError> reconcile(const ReconcileInput& in);

}  // namespace strata::group

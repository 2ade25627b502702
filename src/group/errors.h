// The Kafka errors the group coordinator answers with: `errc::kXxx` is the typed
// `KafkaError::kXxx` of the one table (common/kafka_errors.h). The coordinator returns
// these, never raw numbers; handlers turn them into wire codes with code_of().
#pragma once

#include "common/kafka_errors.h"

namespace strata::group {
using errc = ::strata::KafkaError;

// Kafka's mapping of append failures for offset commits (GroupMetadataManager.storeOffsets),
// plain and transactional: transient storage or replication trouble ->
// COORDINATOR_NOT_AVAILABLE (the client retries), leadership lost meanwhile ->
// NOT_COORDINATOR (it looks the coordinator up again), a record too large ->
// INVALID_COMMIT_OFFSET_SIZE, anything else as the partition gave it.
constexpr KafkaError commit_store_error(KafkaError append_error) {
  switch (append_error) {
    case errc::kUnknownTopicOrPartition:
    case errc::kKafkaStorageError:
    case errc::kNotEnoughReplicas:
    case errc::kNotEnoughReplicasAfterAppend:
    case errc::kRequestTimedOut:
      return errc::kCoordinatorNotAvailable;
    case errc::kNotLeaderOrFollower:
      return errc::kNotCoordinator;
    case errc::kMessageTooLarge:
    case errc::kRecordListTooLarge:
      return errc::kInvalidCommitOffsetSize;
    default:
      return append_error;
  }
}

}  // namespace strata::group

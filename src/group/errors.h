// The Kafka error codes the group coordinator answers with: `errc::kXxx` is the table's
// `kafka_error::kXxx` (common/kafka_errors.h, where every number is declared).
#pragma once

#include <cstdint>

#include "common/kafka_errors.h"

namespace strata::group {
namespace errc = ::strata::kafka_error;

// Kafka's mapping of append failures for offset commits (GroupMetadataManager.storeOffsets),
// plain and transactional: transient storage trouble -> COORDINATOR_NOT_AVAILABLE (the
// client retries), a record too large -> INVALID_COMMIT_OFFSET_SIZE, anything else as the
// partition gave it.
constexpr int16_t commit_store_error(int16_t append_error) {
  switch (append_error) {
    case errc::kUnknownTopicOrPartition:
    case errc::kKafkaStorageError:
      return errc::kCoordinatorNotAvailable;
    case errc::kMessageTooLarge:
    case errc::kRecordListTooLarge:
      return errc::kInvalidCommitOffsetSize;
    default:
      return append_error;
  }
}

}  // namespace strata::group

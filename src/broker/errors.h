// Kafka's error codes (the protocol's numbers) used by the handlers, and the one
// mapping from storage errors to them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "storage/errors.h"

namespace strata::broker {

namespace kafka_error {
inline constexpr int16_t kUnknownServerError = -1;
inline constexpr int16_t kNone = 0;
inline constexpr int16_t kOffsetOutOfRange = 1;
inline constexpr int16_t kCorruptMessage = 2;
inline constexpr int16_t kUnknownTopicOrPartition = 3;
inline constexpr int16_t kLeaderNotAvailable = 5;
inline constexpr int16_t kMessageTooLarge = 10;
inline constexpr int16_t kInvalidTopic = 17;
inline constexpr int16_t kRecordListTooLarge = 18;
inline constexpr int16_t kInvalidRequiredAcks = 21;
inline constexpr int16_t kUnsupportedVersion = 35;
inline constexpr int16_t kTopicAlreadyExists = 36;
inline constexpr int16_t kInvalidPartitions = 37;
inline constexpr int16_t kInvalidReplicationFactor = 38;
inline constexpr int16_t kInvalidReplicaAssignment = 39;
inline constexpr int16_t kInvalidConfig = 40;
inline constexpr int16_t kInvalidRequest = 42;
inline constexpr int16_t kPolicyViolation = 44;
inline constexpr int16_t kOutOfOrderSequenceNumber = 45;
inline constexpr int16_t kInvalidProducerEpoch = 47;
inline constexpr int16_t kInvalidTxnState = 48;
inline constexpr int16_t kTransactionCoordinatorFenced = 52;
inline constexpr int16_t kKafkaStorageError = 56;
inline constexpr int16_t kFetchSessionIdNotFound = 70;
inline constexpr int16_t kInvalidFetchSessionEpoch = 71;
inline constexpr int16_t kFencedLeaderEpoch = 74;
inline constexpr int16_t kUnknownLeaderEpoch = 75;
inline constexpr int16_t kInvalidRecord = 87;
inline constexpr int16_t kProducerFenced = 90;
inline constexpr int16_t kUnknownTopicId = 100;
inline constexpr int16_t kFetchSessionTopicIdError = 106;
inline constexpr int16_t kMismatchedEndpointType = 114;
inline constexpr int16_t kUnsupportedEndpointType = 115;
}  // namespace kafka_error

// An error code with its message (null: the client shows the code's standard text).
struct ApiError {
  int16_t code = kafka_error::kNone;
  std::optional<std::string> message;
};

int16_t kafka_error_of(const storage::StorageError& e);

}  // namespace strata::broker

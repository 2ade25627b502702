// The Kafka error codes the group coordinator answers with (the protocol's numbers).
#pragma once

#include <cstdint>

namespace strata::group::errc {
inline constexpr int16_t kNone = 0;
inline constexpr int16_t kUnknownServerError = -1;
inline constexpr int16_t kUnknownTopicOrPartition = 3;
inline constexpr int16_t kOffsetMetadataTooLarge = 12;
inline constexpr int16_t kCoordinatorLoadInProgress = 14;
inline constexpr int16_t kCoordinatorNotAvailable = 15;
inline constexpr int16_t kNotCoordinator = 16;
inline constexpr int16_t kIllegalGeneration = 22;
inline constexpr int16_t kInconsistentGroupProtocol = 23;
inline constexpr int16_t kInvalidGroupId = 24;
inline constexpr int16_t kUnknownMemberId = 25;
inline constexpr int16_t kInvalidSessionTimeout = 26;
inline constexpr int16_t kRebalanceInProgress = 27;
inline constexpr int16_t kNonEmptyGroup = 68;
inline constexpr int16_t kGroupIdNotFound = 69;
inline constexpr int16_t kMemberIdRequired = 79;
inline constexpr int16_t kGroupMaxSizeReached = 81;
inline constexpr int16_t kFencedInstanceId = 82;
inline constexpr int16_t kUnstableOffsetCommit = 88;
inline constexpr int16_t kGroupSubscribedToTopic = 86;
}  // namespace strata::group::errc

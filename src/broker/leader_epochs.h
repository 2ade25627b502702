// Leader epochs as Kafka's LeaderEpochFileCache answers them, shared by
// OffsetForLeaderEpoch, the leader's check of a follower's fetch (KIP-320's diverging
// epoch) and the follower's truncation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "broker/errors.h"
#include "storage/checkpoint.h"

namespace strata::broker {

inline constexpr int32_t kUndefinedEpoch = -1;
inline constexpr int64_t kUndefinedEpochOffset = -1;

// (epoch, end offset) for `requested`, from `epochs` (start offsets, ascending) of a log
// ending at `log_end` whose current leader epoch is `current` (-1 on a follower, whose
// newest epoch ends at its log end): the current epoch ends at the log end; an older one
// at the start of the next; an epoch past every known one is unknown (-1, -1); one
// before the first known gets (it, the first start).
inline std::pair<int32_t, int64_t> end_offset_for(std::vector<storage::EpochEntry> epochs, int32_t requested,
                                                 int64_t log_end, int32_t current) {
  // A leader's cache always holds its own epoch (Kafka assigns it the log end when
  // leadership begins); here it appears with the first batch written in it.
  if (current >= 0 && (epochs.empty() || epochs.back().epoch.value() < current)) {
    epochs.push_back({LeaderEpoch(current), Offset(log_end)});
  }
  if (requested == kUndefinedEpoch || epochs.empty()) return {kUndefinedEpoch, kUndefinedEpochOffset};
  if (epochs.back().epoch.value() == requested) return {requested, log_end};
  auto higher = std::upper_bound(epochs.begin(), epochs.end(), requested,
                                 [](int32_t r, const storage::EpochEntry& e) { return r < e.epoch.value(); });
  if (higher == epochs.end()) return {kUndefinedEpoch, kUndefinedEpochOffset};
  if (higher == epochs.begin()) return {requested, higher->start_offset.value()};
  return {std::prev(higher)->epoch.value(), higher->start_offset.value()};
}

// A request's current_leader_epoch against the partition's: FENCED_LEADER_EPOCH when
// the sender's is older, UNKNOWN_LEADER_EPOCH when newer (its metadata is ahead), 0 for
// -1 (none given) or equal.
inline int16_t check_current_epoch(int32_t theirs, int32_t ours) {
  if (theirs == kUndefinedEpoch) return kafka_error::kNone;
  if (theirs < ours) return kafka_error::kFencedLeaderEpoch;
  if (theirs > ours) return kafka_error::kUnknownLeaderEpoch;
  return kafka_error::kNone;
}

}  // namespace strata::broker

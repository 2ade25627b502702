// One consumer-protocol group (KIP-848): members with their epochs, subscriptions and
// current assignments, the group's target assignment, and which member owns each
// partition. The coordinator (coordinator_consumer.cc) runs the protocol over it; the
// pieces that decide things (assignors.h, reconcile.h) are pure functions of this state.
//
// Threads: lives inside its Group, on the shard that owns the group's
// __consumer_offsets partition, and is touched only there.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/types.h"

namespace strata::group {

struct UuidLess {
  bool operator()(const Uuid& a, const Uuid& b) const { return a.bytes < b.bytes; }
};

struct TopicPartitionLess {
  bool operator()(const std::pair<Uuid, int32_t>& a, const std::pair<Uuid, int32_t>& b) const {
    if (a.first.bytes != b.first.bytes) return a.first.bytes < b.first.bytes;
    return a.second < b.second;
  }
};

// Partitions by topic id; no empty sets (normalize() drops them).
using Assignment = std::map<Uuid, std::set<int32_t>, UuidLess>;
void normalize(Assignment& a);
bool contains_any(const Assignment& a, const Assignment& b);  // a ∩ b ≠ ∅
bool is_subset(const Assignment& a, const Assignment& b);    // a ⊆ b
size_t partition_count(const Assignment& a);

// Kafka's MemberState; the numbers are the values of the current-assignment record.
enum class MemberState : int8_t {
  kStable = 0,
  kUnrevokedPartitions = 1,   // waits for the member to give up partitions
  kUnreleasedPartitions = 2,  // waits for other members to give up partitions it is due
  kUnknown = 127,
};
const char* to_string(MemberState s);

// Kafka's ConsumerGroupState: "Empty", "Assigning", "Reconciling", "Stable", "Dead".
enum class ConsumerGroupState { kEmpty, kAssigning, kReconciling, kStable, kDead };
const char* to_string(ConsumerGroupState s);

// A member that speaks the classic protocol inside a consumer-protocol group (KIP-848's
// migration): its JoinGroup session timeout and protocols (name, subscription bytes).
struct ClassicMembership {
  int32_t session_timeout_ms = 0;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> protocols;
  bool operator==(const ClassicMembership&) const = default;
};

struct ConsumerMember {
  std::string id;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_topic_names;  // sorted, unique
  std::string subscribed_topic_regex;               // "" for none
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::string> server_assignor;
  std::optional<ClassicMembership> classic;  // set for a classic-protocol member

  int32_t epoch = 0;
  int32_t previous_epoch = -1;
  MemberState state = MemberState::kStable;
  Assignment assigned;
  Assignment pending_revocation;

  // Timers (not persisted): the session ends unless a heartbeat comes first; while the
  // member holds partitions due elsewhere (kUnrevokedPartitions) it must give them up
  // within its rebalance timeout, counted from when it was asked at `revoke_epoch`.
  std::chrono::steady_clock::time_point session_deadline;
  std::optional<std::chrono::steady_clock::time_point> revoke_deadline;
  int32_t revoke_epoch = -1;
  // A classic member told to rejoin (REBALANCE_IN_PROGRESS) must do so within its
  // rebalance timeout.
  std::optional<std::chrono::steady_clock::time_point> rejoin_deadline;

  bool same_metadata(const ConsumerMember& o) const;
  bool same_assignment(const ConsumerMember& o) const;
  bool reconciled_to(int32_t target_epoch) const {
    return state == MemberState::kStable && epoch == target_epoch;
  }
};

// A regular expression's topics when it was last resolved (record type 16).
struct ResolvedRegex {
  std::set<std::string> topics;
  int64_t version = 0;    // Strata: the topic-set hash it was resolved against
  int64_t timestamp = 0;  // wall ms of the resolution
};

struct ConsumerGroup {
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  int64_t metadata_hash = 0;  // of the subscribed topics when the epoch last moved
  std::map<std::string, ConsumerMember> members;
  std::map<std::string, std::string> static_members;  // instance id -> member id
  std::map<std::string, Assignment> target;           // member id -> target assignment
  std::map<std::string, ResolvedRegex> regexes;       // regex -> its topics
  // Who holds each partition (assigned or pending revocation): topic, partition -> epoch.
  std::map<std::pair<Uuid, int32_t>, int32_t, TopicPartitionLess> owners;

  ConsumerGroupState state() const;
  // The epoch of the member holding (topic, partition), or -1 if none does.
  int32_t owner_epoch(const Uuid& topic, int32_t partition) const;
  // Replaces member `m.id` (or adds it) and keeps `owners` and `static_members` in step.
  void put(ConsumerMember m);
  void remove(const std::string& member_id);
  // Every regex some member uses.
  std::set<std::string> regexes_in_use() const;
  // The topics member `m` subscribes to: its names plus what its regex resolved to.
  std::set<std::string> topics_of(const ConsumerMember& m) const;
  // Every topic some member subscribes to.
  std::set<std::string> subscribed_topics() const;
};

}  // namespace strata::group

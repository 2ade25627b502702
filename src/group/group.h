// One classic-protocol consumer group: its members, generation, chosen protocol and
// committed offsets. Plain state plus the small queries Kafka's GroupMetadata answers;
// the coordinator (coordinator.h) runs the rebalance protocol over it.
//
// Threads: a group lives on the shard that owns its __consumer_offsets partition and
// is touched only there.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/kafka_errors.h"
#include "group/consumer_group.h"

namespace strata::group {

using Clock = std::chrono::steady_clock;

enum class GroupState { kEmpty, kPreparingRebalance, kCompletingRebalance, kStable, kDead };
// Kafka's names: "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead".
const char* to_string(GroupState s);

struct Protocol {
  std::string name;
  std::vector<uint8_t> metadata;
  bool operator==(const Protocol&) const = default;
};

struct JoinMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::vector<uint8_t> metadata;
};

struct JoinResult {
  KafkaError error = KafkaError::kNone;
  int32_t generation = -1;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::string leader;
  std::string member_id;
  bool skip_assignment = false;
  std::vector<JoinMember> members;  // the leader's answer only
};

struct SyncResult {
  KafkaError error = KafkaError::kNone;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::vector<uint8_t> assignment;
};

using JoinDone = std::function<void(JoinResult)>;
using SyncDone = std::function<void(SyncResult)>;

struct Member {
  std::string id;
  std::optional<std::string> instance_id;
  std::string client_id;
  std::string client_host;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  std::string protocol_type;
  std::vector<Protocol> protocols;
  std::vector<uint8_t> assignment;
  JoinDone awaiting_join;  // set while the member's JoinGroup is parked
  SyncDone awaiting_sync;  // set while its SyncGroup waits for the leader's
  bool is_new = false;     // joined in the current rebalance; bounded by the join timeout
  Clock::time_point deadline;  // session expiry

  // The member's metadata for `protocol` (empty if it does not name it).
  std::vector<uint8_t> metadata(const std::optional<std::string>& protocol) const;
};

struct CommittedOffset {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp = -1;
  int64_t expire_timestamp = -1;  // set only by v1 commits with a retention time
};

using TopicPartitionKey = std::pair<std::string, int32_t>;

class Group {
 public:
  Group(std::string group_id, int32_t offsets_partition, asio::any_io_executor executor)
      : id(std::move(group_id)), partition(offsets_partition), timer(std::move(executor)) {}

  Member* find(const std::string& member_id);
  const Member* find(const std::string& member_id) const;
  bool has(const std::string& member_id) const { return find(member_id) != nullptr; }
  bool is_leader(const std::string& member_id) const { return leader == member_id; }
  // A static member whose instance id now belongs to a newer member id (KIP-345).
  bool is_static_member_fenced(const std::optional<std::string>& instance_id,
                               const std::string& member_id) const;
  // Whether a member with these protocols may join: same protocol type and at least
  // one protocol every current member supports.
  bool supports_protocols(const std::string& protocol_type,
                          const std::vector<Protocol>& protocols) const;
  // Kafka's vote: among the protocols all members support, each member votes for its
  // most preferred; the most votes wins (ties: the first candidate in the leader's order).
  std::string select_protocol() const;
  bool all_members_joined() const;
  int32_t max_rebalance_timeout_ms() const;
  // Adds a member; the first member of an empty group sets the protocol type and
  // becomes leader.
  void add(Member m);
  // Removes a member and its static mapping; the leader passes to the first remaining.
  void remove(const std::string& member_id);
  // The topics this consumer group's members subscribe to under the chosen protocol,
  // parsed from their ConsumerProtocolSubscription; nullopt when not knowable.
  std::optional<std::set<std::string>> subscribed_topics() const;
  bool can_rebalance() const {
    return state == GroupState::kStable || state == GroupState::kCompletingRebalance ||
           state == GroupState::kEmpty;
  }

  std::string id;
  int32_t partition;
  GroupState state = GroupState::kEmpty;
  int32_t generation = 0;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::optional<std::string> leader;
  int64_t state_timestamp = -1;  // wall ms of the last state change (currentStateTimestamp)
  std::vector<Member> members;   // in join order
  std::map<std::string, std::string> static_members;            // instance id -> member id
  std::map<std::string, Clock::time_point> pending_members;     // KIP-394 ids handed out
  std::set<std::string> pending_sync;  // joined this generation, SyncGroup not yet seen
  Clock::time_point join_deadline;     // PreparingRebalance: the join phase ends then
  Clock::time_point sync_deadline;     // CompletingRebalance: pending_sync must be empty
  bool initial_delay = false;          // the join phase is group.initial.rebalance.delay.ms
  int32_t initial_delay_remaining_ms = 0;
  bool new_member_added = false;
  std::map<TopicPartitionKey, CommittedOffset> offsets;
  // TxnOffsetCommit offsets by producer id, visible once its commit marker is written
  // (dropped on abort).
  std::map<int64_t, std::map<TopicPartitionKey, CommittedOffset>> pending_txn_offsets;
  bool has_pending_txn_offset(const TopicPartitionKey& tp) const {
    for (const auto& [pid, pending] : pending_txn_offsets) {
      if (pending.contains(tp)) return true;
    }
    return false;
  }
  asio::steady_timer timer;  // fires at the earliest deadline above (or of `consumer`)
  // Set while this is a consumer-protocol group (KIP-848): the classic fields above then
  // stay unused but for offsets, protocol_type ("consumer") and state (kEmpty without
  // members, else kStable, so offset retention reads it as for a classic group).
  std::unique_ptr<ConsumerGroup> consumer;
};

}  // namespace strata::group

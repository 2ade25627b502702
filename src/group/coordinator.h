// The group coordinator for Kafka's classic consumer-group protocol: JoinGroup /
// SyncGroup rebalances with Kafka's state machine (Empty, PreparingRebalance,
// CompletingRebalance, Stable, Dead), heartbeats and session timeouts, static
// membership (KIP-345), member ids handed out before the first join (KIP-394), and
// committed offsets. Every change that must survive a restart is written as records
// to __consumer_offsets (records.h) before it is acknowledged, and replayed on start.
//
// Threads: group `g` lives on the shard that owns __consumer_offsets partition
// partition_for(g). Every call naming a group must run on that shard, and its
// callbacks run there too; calls naming a partition likewise.
#pragma once

#include <asio/any_io_executor.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/kafka_errors.h"
#include "common/result.h"
#include "group/config.h"
#include "group/consumer_api.h"
#include "group/group.h"
#include "group/records.h"

namespace strata::group {

// Where the coordinator's records go: one __consumer_offsets partition per call.
class OffsetsLog {
 public:
  struct Record {
    std::vector<uint8_t> key;
    std::optional<std::vector<uint8_t>> value;  // nullopt: a tombstone
  };
  virtual ~OffsetsLog() = default;
  // Appends `records` to `partition` as one batch; runs `done` on the partition's
  // shard with kNone once they are durable, or the Kafka error of the failure.
  virtual void append(int32_t partition, std::vector<Record> records,
                      std::function<void(KafkaError)> done) = 0;
  // The same as one transactional batch of producer `producer_id` at `epoch`
  // (TxnOffsetCommit): the records count only once the transaction commits.
  virtual void append_transactional(int32_t partition, int64_t producer_id, int16_t epoch,
                                    std::vector<Record> records,
                                    std::function<void(KafkaError)> done) = 0;
};

struct JoinRequest {
  std::string group_id;
  std::string member_id;  // "" on a first join
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  std::string protocol_type;
  std::vector<Protocol> protocols;
  bool require_known_member_id = false;  // JoinGroup v4+ (KIP-394)
  bool supports_skip_assignment = false;  // JoinGroup v9+ (KIP-814)
  // The cluster's topics, for a classic member of a consumer-protocol group (its owned
  // partitions by name); read only during the call.
  const TopicView* topics = nullptr;
};

struct SyncRequest {
  std::string group_id;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  int32_t generation = -1;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol_name;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> assignments;  // the leader's
  const TopicView* topics = nullptr;  // as JoinRequest::topics (the assignment by name)
};

struct MemberRef {
  std::string group_id;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  int32_t generation = -1;  // or a consumer-protocol member's epoch
  // OffsetCommit v9+: the request may come from a consumer-protocol member (its epoch
  // in `generation`); a missing group is GROUP_ID_NOT_FOUND rather than ILLEGAL_GENERATION.
  bool epoch_aware = false;
};

struct LeaveResult {
  KafkaError error = KafkaError::kNone;  // for the whole request
  std::vector<KafkaError> members;  // one per leaving member, in request order
};

struct CommitPartition {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t expire_timestamp = -1;
};

struct FetchedOffset {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  KafkaError error = KafkaError::kNone;  // UNSTABLE_OFFSET_COMMIT when asked for stable offsets
};

// TxnOffsetCommit: offsets a transactional producer commits for a group.
struct TxnCommitRequest {
  std::string group_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t generation = -1;     // v3+; -1: not checked
  std::string member_id;       // v3+; "": not checked
  std::optional<std::string> group_instance_id;
  std::vector<CommitPartition> partitions;
};

struct GroupListing {
  std::string group_id;
  std::string protocol_type;
  std::string state;  // Kafka's name of the classic or consumer group state
  std::string type;   // "classic" or "consumer"
};

struct MemberDescription {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  std::vector<uint8_t> metadata;
  std::vector<uint8_t> assignment;
};

struct GroupDescription {
  bool exists = false;
  GroupState state = GroupState::kDead;
  std::string protocol_type;
  std::string protocol_name;
  std::vector<MemberDescription> members;
};

class GroupCoordinator {
 public:
  using ExecutorFor = std::function<asio::any_io_executor(int32_t partition)>;
  GroupCoordinator(GroupConfig config, int32_t partitions, OffsetsLog& log,
                   ExecutorFor executor_for);
  ~GroupCoordinator();

  const GroupConfig& config() const { return config_; }
  int32_t partitions() const { return int32_t(groups_.size()); }
  int32_t partition_for(const std::string& group_id) const {
    return partition_for_group(group_id, partitions());
  }

  void join(JoinRequest r, JoinDone done);
  void sync(SyncRequest r, SyncDone done);
  KafkaError heartbeat(const MemberRef& r);
  // LeaveGroup: each (member id, instance id) of `members` leaves `group_id`.
  LeaveResult leave(const std::string& group_id,
                    const std::vector<std::pair<std::string, std::optional<std::string>>>& members);
  // OffsetCommit: `done` gets one error per partition, in order. Topics must already
  // have been checked to exist.
  void commit(const MemberRef& member, std::vector<CommitPartition> partitions,
              std::function<void(std::vector<KafkaError>)> done);
  // OffsetFetch: the named partitions (-1 where nothing is committed), or with
  // `which` unset every committed one.
  // `require_stable` (OffsetFetch v7+): a partition with a transactional commit not
  // yet ended answers UNSTABLE_OFFSET_COMMIT.
  std::vector<FetchedOffset> fetch_offsets(
      const std::string& group_id,
      const std::optional<std::vector<std::pair<std::string, std::vector<int32_t>>>>& which,
      bool require_stable = false) const;

  // Transactions (coordinator_txn.cc). txn_commit writes the offsets as a
  // transactional batch and holds them pending; complete_txn applies (commit) or
  // drops (abort) producer `producer_id`'s pending offsets of the partition's groups
  // once its marker is written there.
  void txn_commit(TxnCommitRequest r, std::function<void(std::vector<KafkaError>)> done);
  void complete_txn(int32_t partition, int64_t producer_id, bool commit);
  // Loading: a record of a transactional batch, and a marker.
  void replay_txn(int32_t partition, int64_t producer_id, Bytes key, std::optional<Bytes> value);
  void replay_marker(int32_t partition, int64_t producer_id, bool commit);
  // OffsetDelete: top-level error, and one error per partition.
  void delete_offsets(const std::string& group_id,
                      std::vector<std::pair<std::string, int32_t>> partitions,
                      std::function<void(KafkaError, std::vector<KafkaError>)> done);

  // Consumer-protocol groups (coordinator_consumer.cc): ConsumerGroupHeartbeat (join,
  // heartbeat, acknowledge, leave) answered once its records are durable, and
  // ConsumerGroupDescribe.
  void consumer_heartbeat(ConsumerHeartbeat r, const TopicView& topics, ConsumerHeartbeatDone done);
  ConsumerGroupDescription consumer_describe(const std::string& group_id) const;
  // OffsetFetch v9+ from a consumer-protocol member: UNKNOWN_MEMBER_ID or
  // STALE_MEMBER_EPOCH when it is not who it says; kNone for anyone else.
  KafkaError check_offset_fetch(const std::string& group_id, const std::optional<std::string>& member_id,
                                int32_t member_epoch) const;

  std::vector<GroupListing> list(int32_t partition) const;
  // DescribeGroups: a consumer-protocol group is described as Kafka does for versions
  // before 6: Dead, no members.
  GroupDescription describe(const std::string& group_id) const;
  size_t member_count(const std::string& group_id) const;
  // DeleteGroups for one group: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP or 0 once the
  // group's tombstones are durable.
  void delete_group(const std::string& group_id, std::function<void(KafkaError)> done);

  // Loading: every record of a partition in log order, then finish_load (before any
  // request for the partition). A record that does not decode is logged and skipped.
  void replay(int32_t partition, Bytes key, std::optional<Bytes> value);
  void finish_load(int32_t partition);
  // Kafka's offset retention: expires offsets and removes empty groups without any.
  void expire(int32_t partition, int64_t now_ms);
  // Cancels every timer of the partition's groups (at shutdown).
  void shutdown(int32_t partition);
  // Kafka's onResignation: this broker no longer leads the partition. Its groups are
  // dropped (marked dead, timers cancelled) and the joins and syncs parked on them are
  // answered NOT_COORDINATOR, so their members find the new coordinator; a replay in
  // progress is discarded. Writes still in flight finish on the detached groups.
  void unload(int32_t partition);

 private:
  using GroupPtr = std::shared_ptr<Group>;
  struct Loading;

  GroupPtr find(const std::string& group_id) const;
  GroupPtr get_or_create(const std::string& group_id);
  void erase(const Group& g);

  // Rebalance protocol (coordinator_join.cc).
  void join_new_member(const GroupPtr& g, JoinRequest& r, JoinDone done);
  void join_static_new_member(const GroupPtr& g, JoinRequest& r, const std::string& new_id,
                              JoinDone done);
  void join_known_member(const GroupPtr& g, JoinRequest& r, JoinDone done);
  void add_member_and_rebalance(const GroupPtr& g, JoinRequest& r, const std::string& member_id,
                                JoinDone done);
  void update_member_and_rebalance(const GroupPtr& g, Member& m, JoinRequest& r, JoinDone done);
  void replace_static_member(const GroupPtr& g, Member& m, JoinRequest& r,
                             const std::string& new_id, JoinDone done);
  void maybe_prepare_rebalance(const GroupPtr& g);
  void prepare_rebalance(const GroupPtr& g);
  void try_complete_join(const GroupPtr& g);
  void complete_join(const GroupPtr& g);
  JoinResult join_result(const Group& g, const Member& m, bool with_members) const;
  std::string new_member_id(const JoinRequest& r) const;

  // Members, sync and time (coordinator_members.cc).
  void remove_member_and_update(const GroupPtr& g, const std::string& member_id);
  void reset_and_propagate_assignment_error(Group& g, KafkaError error);
  void set_and_propagate_assignment(Group& g,
                                    const std::map<std::string, std::vector<uint8_t>>& assignment);
  void touch(Member& m) const;
  void arm(const GroupPtr& g);
  void on_timer(const GroupPtr& g);
  void transition(Group& g, GroupState s) const;

  // Consumer-protocol groups (coordinator_consumer.cc, coordinator_consumer_store.cc).
  struct HeartbeatStep;
  using Records = std::vector<OffsetsLog::Record>;
  void consumer_leave(ConsumerHeartbeat& r, ConsumerHeartbeatDone done);
  Result<ConsumerMember, HeartbeatProblem> settle_member(Group& g, const ConsumerMember& before_update,
                                                         ConsumerMember updated, bool is_new,
                                                         const std::optional<Assignment>& owned,
                                                         const TopicView& topics, std::chrono::milliseconds session,
                                                         Records& records);
  // KIP-848's online migration (coordinator_migration.cc): classic members inside a
  // consumer-protocol group, and a classic group turned into one when a consumer member
  // joins it.
  void classic_join_consumer(const GroupPtr& g, JoinRequest& r, JoinDone done);
  void classic_sync_consumer(const GroupPtr& g, SyncRequest& r, SyncDone done);
  KafkaError classic_heartbeat_consumer(const GroupPtr& g, const MemberRef& r);
  KafkaError classic_leave_consumer(const GroupPtr& g, const std::string& member_id,
                                    const std::optional<std::string>& instance_id);
  Result<void, HeartbeatProblem> upgrade_classic_group(const GroupPtr& g, const TopicView& topics, Records& records);
  // After a member left: a group whose remaining members all speak the classic protocol
  // becomes a classic group again and rebalances (policy downgrade or bidirectional).
  void maybe_downgrade(const GroupPtr& g, Records& records);
  Result<GroupPtr, HeartbeatProblem> consumer_group_for_join(ConsumerHeartbeat& r, const TopicView& topics,
                                                             Records& records);
  void fence_consumer_member(Group& g, const std::string& member_id, Records& records);
  void bump_group_epoch(Group& g, int64_t metadata_hash, Records& records);
  void consumer_arm(const GroupPtr& g);
  void consumer_on_timer(const GroupPtr& g);
  void consumer_write(Group& g, Records records, std::function<void(KafkaError)> done);
  KafkaError check_consumer_commit(const Group& g, const MemberRef& member) const;
  KafkaError check_classic_commit(const GroupPtr& g, const MemberRef& member);
  Records consumer_tombstones(const Group& g) const;
  void replay_consumer(int32_t partition, const ConsumerKey& key, std::optional<Bytes> value);
  void finish_consumer_load(Loading& loaded, size_t& count);
  std::chrono::milliseconds consumer_session_timeout() const;

  // Persistence (coordinator_store.cc).
  void store_group(const GroupPtr& g, const std::map<std::string, std::vector<uint8_t>>& assignment,
                   std::function<void(KafkaError)> done);
  GroupValue group_value(const Group& g,
                         const std::map<std::string, std::vector<uint8_t>>& assignment) const;

  GroupConfig config_;
  OffsetsLog& log_;
  ExecutorFor executor_for_;
  std::vector<std::map<std::string, GroupPtr>> groups_;  // per partition
  std::vector<std::unique_ptr<Loading>> loading_;        // per partition, while loading
};

// Wall-clock milliseconds (commit and state timestamps).
int64_t wall_ms();

}  // namespace strata::group

// What `strata group` asks of a cluster about consumer groups: a bootstrap connection
// plus one connection per group coordinator (found with FindCoordinator, kept for the
// run), and the group APIs in the shapes the subcommands need. Internal to the group
// command; each subcommand lives in its own group_<name>.cc. Single-threaded.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/cluster.h"
#include "tools/group_command.h"

namespace strata::tools {

// A member as DescribeGroups shows it, its ConsumerProtocolAssignment decoded.
struct GroupMember {
  std::string id;
  std::optional<std::string> instance_id;
  std::string client_id;
  std::string host;
  std::vector<PartitionKey> assignment;  // sorted
  // A consumer-protocol member (KIP-848): its epoch and its target assignment.
  std::optional<int32_t> epoch;
  std::vector<PartitionKey> target;  // sorted
};

struct GroupInfo {
  std::string id;
  std::string state;          // Kafka's names: "Stable", "Empty", "Dead", ...
  std::string protocol_type;  // "consumer", or "" for a group that only commits offsets
  std::string protocol;       // the assignor ("range"), while the group is Stable
  std::vector<GroupMember> members;
  Node coordinator;
  // A consumer-protocol group (KIP-848, from ConsumerGroupDescribe): "consumer", its group
  // epoch and the epoch of its target assignment; "classic" otherwise.
  std::string type = "classic";
  int32_t group_epoch = -1;
  int32_t assignment_epoch = -1;
};

// Committed offsets of a group; partitions without one are absent.
using GroupOffsets = std::map<PartitionKey, int64_t>;

class GroupAdmin {
 public:
  static Result<GroupAdmin, CommandError> connect(const GroupArgs& args);

  const GroupArgs& args() const { return *args_; }
  KafkaClient& bootstrap() { return bootstrap_; }

  // Metadata of every topic, asked once and kept for the run.
  Result<const protocol::MetadataResponse*, CommandError> metadata();
  // ConsumerGroupDescribe where the broker has it, and for a group it does not know as a
  // consumer-protocol group DescribeGroups, which fails for a protocol type neither
  // "consumer" nor empty, as Kafka's admin client does.
  Result<GroupInfo, CommandError> describe(const std::string& group);
  // OffsetFetch of every partition the group has committed (needs OffsetFetch v2+).
  Result<GroupOffsets, CommandError> committed(const std::string& group);
  // OffsetCommit outside any generation (generation -1, member ""), what Kafka's admin
  // client sends: the coordinator accepts it only while the group has no members.
  Status commit(const std::string& group, const GroupOffsets& offsets);
  // DeleteGroups for one group: its error code (0 on success).
  Result<int16_t, CommandError> remove(const std::string& group);
  // The ListOffsets answer for `timestamp` of each partition (see cluster.h).
  Result<std::map<PartitionKey, OffsetAnswer>, CommandError> offsets_at(
      const std::vector<PartitionKey>& partitions, int64_t timestamp);

 private:
  GroupAdmin(const GroupArgs& args, KafkaClient bootstrap)
      : args_(&args), bootstrap_(std::move(bootstrap)) {}
  // The coordinator's connection, found once per group and opened once per node.
  Result<KafkaClient*, CommandError> coordinator(const std::string& group);
  // ConsumerGroupDescribe: nullopt when the group is not a consumer-protocol group (or
  // the broker lacks the API).
  Result<std::optional<GroupInfo>, CommandError> describe_consumer(KafkaClient& client, const std::string& group);

  const GroupArgs* args_;
  KafkaClient bootstrap_;
  std::optional<protocol::MetadataResponse> metadata_;
  std::map<std::string, Node> coordinator_of_;  // group -> node
  std::map<int32_t, KafkaClient> connections_;  // node id -> connection
};

// Column padding as Java's "%-Ns" does it.
std::string pad(const std::string& s, size_t width);

// The subcommands (group_list.cc, group_describe.cc, group_reset_offsets.cc,
// group_delete.cc). Notes and warnings go to `err`; a returned error is printed by
// run_group.
Status list_groups(GroupAdmin& admin, std::ostream& out);
Status describe_groups(GroupAdmin& admin, std::ostream& out, std::ostream& err);
Status reset_offsets(GroupAdmin& admin, std::ostream& out, std::ostream& err);
Status delete_groups(GroupAdmin& admin, std::ostream& out, std::ostream& err);

// Group ids of every consumer group of the cluster, sorted (ListGroups on each broker).
Result<std::vector<std::string>, CommandError> consumer_group_ids(GroupAdmin& admin);

}  // namespace strata::tools

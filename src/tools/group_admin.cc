#include "tools/group_admin.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "protocol/apis/consumer_group_describe.h"
#include "protocol/apis/delete_groups.h"
#include "protocol/apis/describe_groups.h"
#include "protocol/apis/offset_commit.h"
#include "protocol/apis/offset_fetch.h"
#include "tools/consumer_protocol.h"

namespace strata::tools {

using namespace protocol;

namespace {

constexpr const char* kClientId = "strata-group";
constexpr auto kLoadRetry = std::chrono::milliseconds(100);

// A coordinator still replaying __consumer_offsets answers COORDINATOR_LOAD_IN_PROGRESS:
// wait and ask again until `deadline`. True when the caller should ask again.
bool wait_if_loading(int16_t error, std::chrono::steady_clock::time_point deadline) {
  if (error != kafka_error::kCoordinatorLoadInProgress) return false;
  if (std::chrono::steady_clock::now() + kLoadRetry > deadline) return false;
  std::this_thread::sleep_for(kLoadRetry);
  return true;
}

std::chrono::steady_clock::time_point deadline_after(int timeout_ms) {
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
}

Result<GroupMember, CommandError> member_of(DescribeGroupsResponse::Member& m) {
  GroupMember out{m.member_id, m.group_instance_id, m.client_id, m.client_host, {}};
  if (m.member_assignment.empty()) return out;
  auto a = decode_consumer_assignment(m.member_assignment);
  if (!a) return fail(CommandError{"member " + m.member_id + ": " + a.error()});
  for (const auto& tp : a->message.assigned_partitions) {
    for (int32_t p : tp.partitions) out.assignment.emplace_back(tp.topic, p);
  }
  std::sort(out.assignment.begin(), out.assignment.end());
  return out;
}

// The topics and partitions of an OffsetFetch answer, in whichever form it came.
Result<GroupOffsets, CommandError> offsets_of(const OffsetFetchResponse& r, int16_t version) {
  int16_t error = r.error_code;
  const std::vector<OffsetFetchResponse::Topic>* topics = &r.topics;
  if (version >= 8) {
    if (r.groups.size() != 1) return fail(CommandError{"OffsetFetch answered no group"});
    error = r.groups[0].error_code;
    topics = &r.groups[0].topics;
  }
  if (error != 0) return fail(kafka_error(error));
  GroupOffsets out;
  for (const auto& t : *topics) {
    for (const auto& p : t.partitions) {
      if (p.error_code != 0) return fail(kafka_error(p.error_code));
      if (p.committed_offset >= 0) out[{t.name, p.partition_index}] = p.committed_offset;
    }
  }
  return out;
}

}  // namespace

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

Result<GroupAdmin, CommandError> GroupAdmin::connect(const GroupArgs& args) {
  auto client = connect_bootstrap(args.bootstrap_server, args.timeout_ms, kClientId, args.command_config);
  if (!client) return fail(client.error());
  return GroupAdmin(args, std::move(*client));
}

Result<const MetadataResponse*, CommandError> GroupAdmin::metadata() {
  if (!metadata_) {
    auto m = all_topics(bootstrap_);
    if (!m) return fail(m.error());
    metadata_ = std::move(*m);
  }
  return &*metadata_;
}

Result<KafkaClient*, CommandError> GroupAdmin::coordinator(const std::string& group) {
  auto known = coordinator_of_.find(group);
  if (known == coordinator_of_.end()) {
    auto node = find_group_coordinator(bootstrap_, group, args_->timeout_ms);
    if (!node) return fail(node.error());
    known = coordinator_of_.emplace(group, *node).first;
  }
  const Node& node = known->second;
  auto open = connections_.find(node.id);
  if (open == connections_.end()) {
    auto client = KafkaClient::connect({node.host, uint16_t(node.port)}, bootstrap_.options());
    if (!client) return fail(client_error(client.error()));
    open = connections_.emplace(node.id, std::move(*client)).first;
  }
  return &open->second;
}

namespace {

std::vector<PartitionKey> partitions_of(const ConsumerGroupDescribeResponse::Assignment& a) {
  std::vector<PartitionKey> out;
  for (const auto& t : a.topic_partitions) {
    for (int32_t p : t.partitions) out.emplace_back(t.topic_name, p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<std::optional<GroupInfo>, CommandError> GroupAdmin::describe_consumer(KafkaClient& client,
                                                                            const std::string& group) {
  if (!client.version<ConsumerGroupDescribeRequest>()) return std::optional<GroupInfo>();
  const auto deadline = deadline_after(args_->timeout_ms);
  for (;;) {
    ConsumerGroupDescribeRequest request;
    request.group_ids = {group};
    auto r = client.call<ConsumerGroupDescribeResponse>(request);
    if (!r) return fail(client_error(r.error()));
    if (r->groups.size() != 1) return fail(CommandError{"ConsumerGroupDescribe answered no group"});
    ConsumerGroupDescribeResponse::Group& g = r->groups[0];
    if (wait_if_loading(g.error_code, deadline)) continue;
    if (g.error_code == kafka_error::kGroupIdNotFound) return std::optional<GroupInfo>();
    if (g.error_code != 0) return fail(kafka_error(g.error_code));
    GroupInfo info{group, g.group_state, "consumer", g.assignor_name, {}, coordinator_of_.at(group)};
    info.type = "consumer";
    info.group_epoch = g.group_epoch;
    info.assignment_epoch = g.assignment_epoch;
    for (auto& m : g.members) {
      GroupMember member{m.member_id, m.instance_id, m.client_id, m.client_host, partitions_of(m.assignment),
                         m.member_epoch, partitions_of(m.target_assignment)};
      info.members.push_back(std::move(member));
    }
    return std::optional<GroupInfo>(std::move(info));
  }
}

Result<GroupInfo, CommandError> GroupAdmin::describe(const std::string& group) {
  auto client = coordinator(group);
  if (!client) return fail(client.error());
  auto consumer = describe_consumer(**client, group);
  if (!consumer) return fail(consumer.error());
  if (*consumer) return std::move(**consumer);
  const auto deadline = deadline_after(args_->timeout_ms);
  for (;;) {
    DescribeGroupsRequest request;
    request.groups = {group};
    auto r = (*client)->call<DescribeGroupsResponse>(request);
    if (!r) return fail(client_error(r.error()));
    if (r->groups.size() != 1) return fail(CommandError{"DescribeGroups answered no group"});
    DescribeGroupsResponse::Group& g = r->groups[0];
    if (wait_if_loading(g.error_code, deadline)) continue;
    if (g.error_code != 0) return fail(kafka_error(g.error_code));
    if (!g.protocol_type.empty() && g.protocol_type != "consumer") {
      return fail(
          CommandError{"GroupId " + group + " is not a consumer group (" + g.protocol_type + ")."});
    }
    GroupInfo info{
        group, g.group_state, g.protocol_type, g.protocol_data, {}, coordinator_of_.at(group)};
    for (auto& m : g.members) {
      auto member = member_of(m);
      if (!member) return fail(member.error());
      info.members.push_back(std::move(*member));
    }
    return info;
  }
}

Result<GroupOffsets, CommandError> GroupAdmin::committed(const std::string& group) {
  auto client = coordinator(group);
  if (!client) return fail(client.error());
  const std::optional<int16_t> v = (*client)->version<OffsetFetchRequest>();
  if (v && *v < 2) {
    return fail(CommandError{"the broker serves OffsetFetch v" + std::to_string(*v) +
                             ", which cannot list a group's offsets (v2+ can)"});
  }
  const auto deadline = deadline_after(args_->timeout_ms);
  for (;;) {
    OffsetFetchRequest request;
    request.group_id = group;
    request.topics.reset();  // every partition the group committed
    request.groups.push_back({group, std::nullopt, -1, std::nullopt});
    auto r = (*client)->call<OffsetFetchResponse>(request);
    if (!r) return fail(client_error(r.error()));
    auto offsets = offsets_of(*r, *v);
    const int16_t error = *v >= 8 && !r->groups.empty() ? r->groups[0].error_code : r->error_code;
    if (!offsets && wait_if_loading(error, deadline)) continue;
    return offsets;
  }
}

Status GroupAdmin::commit(const std::string& group, const GroupOffsets& offsets) {
  auto client = coordinator(group);
  if (!client) return fail(client.error());
  OffsetCommitRequest request;
  request.group_id = group;
  request.generation_id_or_member_epoch = -1;
  request.member_id = "";
  for (const auto& [key, offset] : offsets) {
    if (request.topics.empty() || request.topics.back().name != key.first) {
      request.topics.push_back({key.first, {}});
    }
    OffsetCommitRequest::Partition p;
    p.partition_index = key.second;
    p.committed_offset = offset;
    request.topics.back().partitions.push_back(p);
  }
  auto r = (*client)->call<OffsetCommitResponse>(request);
  if (!r) return fail(client_error(r.error()));
  for (const auto& t : r->topics) {
    for (const auto& p : t.partitions) {
      if (p.error_code == 0) continue;
      return fail(CommandError{"committing the offset of " +
                               partition_text({t.name, p.partition_index}) +
                               " failed: " + kafka_error_name(p.error_code)});
    }
  }
  return {};
}

Result<int16_t, CommandError> GroupAdmin::remove(const std::string& group) {
  auto client = coordinator(group);
  if (!client) return fail(client.error());
  DeleteGroupsRequest request;
  request.groups_names = {group};
  auto r = (*client)->call<DeleteGroupsResponse>(request);
  if (!r) return fail(client_error(r.error()));
  for (const auto& result : r->results) {
    if (result.group_id == group) return result.error_code;
  }
  return fail(CommandError{"DeleteGroups did not answer for group '" + group + "'"});
}

Result<std::map<PartitionKey, OffsetAnswer>, CommandError> GroupAdmin::offsets_at(
    const std::vector<PartitionKey>& partitions, int64_t timestamp) {
  auto m = metadata();
  if (!m) return fail(m.error());
  TopicPartitions asked;
  for (const auto& [topic, partition] : partitions) asked[topic].push_back(partition);
  return list_offsets(**m, asked, timestamp, bootstrap_.options());
}

}  // namespace strata::tools

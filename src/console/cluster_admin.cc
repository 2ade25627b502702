#include "console/cluster_admin.h"

#include "protocol/apis/create_partitions.h"
#include "protocol/apis/create_topics.h"
#include "protocol/apis/delete_groups.h"
#include "protocol/apis/delete_topics.h"
#include "protocol/apis/incremental_alter_configs.h"
#include "protocol/apis/offset_commit.h"

namespace strata::console {

using namespace strata::protocol;

namespace {

constexpr int32_t kAdminTimeoutMs = 5000;  // how long the broker may take: within the console's 10 s
constexpr int8_t kTopicResource = 2;

Done kafka_result(int16_t code, const std::optional<std::string>& message) {
  if (code == 0) return {};
  return fail(kafka_text(code, message));
}

template <class Resp, class Req>
Result<Resp, std::string> ask(client::KafkaClient& c, Req& request) {
  auto r = c.call<Resp>(request);
  if (!r) return fail(r.error().message);
  return std::move(*r);
}

}  // namespace

Done create_topic(ClusterReader& c, const NewTopic& topic) {
  CreateTopicsRequest request;
  request.timeout_ms = kAdminTimeoutMs;
  CreateTopicsRequest::Topic t;
  t.name = topic.name;
  t.num_partitions = topic.partitions;
  t.replication_factor = topic.replication_factor;
  for (const auto& [k, v] : topic.configs) t.configs.push_back({k, v});
  request.topics.push_back(std::move(t));
  auto r = ask<CreateTopicsResponse>(c.bootstrap(), request);
  if (!r) return fail(r.error());
  if (r->topics.size() != 1) return fail(std::string("CreateTopics answered nothing"));
  return kafka_result(r->topics[0].error_code, r->topics[0].error_message);
}

Done delete_topic(ClusterReader& c, const std::string& name) {
  DeleteTopicsRequest request;
  request.timeout_ms = kAdminTimeoutMs;
  request.topics.push_back({name, Uuid{}});
  request.topic_names.push_back(name);
  auto r = ask<DeleteTopicsResponse>(c.bootstrap(), request);
  if (!r) return fail(r.error());
  if (r->responses.size() != 1) return fail(std::string("DeleteTopics answered nothing"));
  return kafka_result(r->responses[0].error_code, r->responses[0].error_message);
}

Done add_partitions(ClusterReader& c, const std::string& name, int32_t count) {
  CreatePartitionsRequest request;
  request.timeout_ms = kAdminTimeoutMs;
  CreatePartitionsRequest::Topic t;
  t.name = name;
  t.count = count;
  t.assignments.reset();  // the broker places the new replicas
  request.topics.push_back(std::move(t));
  auto r = ask<CreatePartitionsResponse>(c.bootstrap(), request);
  if (!r) return fail(r.error());
  if (r->results.size() != 1) return fail(std::string("CreatePartitions answered nothing"));
  return kafka_result(r->results[0].error_code, r->results[0].error_message);
}

Done alter_topic_config(ClusterReader& c, const std::string& name, const std::string& key,
                        const std::optional<std::string>& value) {
  IncrementalAlterConfigsRequest request;
  IncrementalAlterConfigsRequest::Resource resource;
  resource.resource_type = kTopicResource;
  resource.resource_name = name;
  resource.configs.push_back({key, int8_t(value ? 0 : 1), value});  // set, or delete the override
  request.resources.push_back(std::move(resource));
  auto r = ask<IncrementalAlterConfigsResponse>(c.bootstrap(), request);
  if (!r) return fail(r.error());
  if (r->responses.size() != 1) return fail(std::string("IncrementalAlterConfigs answered nothing"));
  return kafka_result(r->responses[0].error_code, r->responses[0].error_message);
}

Done delete_group(ClusterReader& c, const std::string& group) {
  auto coordinator = c.coordinator(group);
  if (!coordinator) return fail(coordinator.error());
  DeleteGroupsRequest request;
  request.groups_names.push_back(group);
  auto r = ask<DeleteGroupsResponse>(**coordinator, request);
  if (!r) return fail(r.error());
  if (r->results.size() != 1) return fail(std::string("DeleteGroups answered nothing"));
  return kafka_result(r->results[0].error_code, std::nullopt);
}

Done commit_offsets(ClusterReader& c, const std::string& group, const std::vector<GroupOffset>& offsets) {
  auto coordinator = c.coordinator(group);
  if (!coordinator) return fail(coordinator.error());
  OffsetCommitRequest request;
  request.group_id = group;
  request.generation_id_or_member_epoch = -1;  // not a member: allowed only while the group is empty
  for (const GroupOffset& o : offsets) {
    if (request.topics.empty() || request.topics.back().name != o.topic) request.topics.push_back({o.topic, {}});
    OffsetCommitRequest::Partition p;
    p.partition_index = o.partition;
    p.committed_offset = o.committed;
    request.topics.back().partitions.push_back(p);
  }
  auto r = ask<OffsetCommitResponse>(**coordinator, request);
  if (!r) return fail(r.error());
  for (const auto& t : r->topics) {
    for (const auto& p : t.partitions) {
      if (p.error_code != 0) return kafka_result(p.error_code, t.name + "-" + std::to_string(p.partition_index));
    }
  }
  return {};
}

}  // namespace strata::console

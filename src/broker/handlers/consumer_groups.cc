// ConsumerGroupHeartbeat and ConsumerGroupDescribe: consumer-protocol groups (KIP-848),
// run by group::GroupCoordinator on the shard that owns the group's __consumer_offsets
// partition (src/group/coordinator_consumer.cc).
// Errors: GROUP_AUTHORIZATION_FAILED, TOPIC_AUTHORIZATION_FAILED, UNSUPPORTED_VERSION (the
// consumer protocol switched off by group.coordinator.rebalance.protocols), the
// coordinator's errors (INVALID_REQUEST, UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH,
// UNRELEASED_INSTANCE_ID, GROUP_MAX_SIZE_REACHED, UNSUPPORTED_ASSIGNOR,
// INVALID_REGULAR_EXPRESSION, GROUP_ID_NOT_FOUND, ...), NOT_COORDINATOR and
// COORDINATOR_NOT_AVAILABLE.
#include "broker/handlers/authorize.h"
#include "broker/handlers/group_common.h"
#include "broker/handlers/topic_view.h"

namespace strata::broker {

using namespace protocol;

namespace {

group::Assignment assignment_of(const std::vector<ConsumerGroupHeartbeatRequest::TopicPartitions>& list) {
  group::Assignment a;
  for (const auto& t : list) a[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
  group::normalize(a);
  return a;
}

ConsumerGroupDescribeResponse::Assignment described(const group::Assignment& a, const MetadataSnapshot& snapshot) {
  ConsumerGroupDescribeResponse::Assignment out;
  for (const auto& [id, parts] : a) {
    const TopicMeta* t = snapshot.topic(id);
    if (t == nullptr) continue;  // as Kafka: partitions of topics no longer in metadata are left out
    out.topic_partitions.push_back({id, t->name, std::vector<int32_t>(parts.begin(), parts.end())});
  }
  return out;
}

}  // namespace

asio::awaitable<ConsumerGroupHeartbeatResponse> handle_consumer_group_heartbeat(
    Broker& broker, RequestContext& ctx, ConsumerGroupHeartbeatRequest& request) {
  ConsumerGroupHeartbeatResponse r;
  auto refuse = [&r](int16_t code, std::optional<std::string> message = std::nullopt) {
    r.error_code = code;
    r.error_message = std::move(message);
  };
  if (!broker.groups().config().consumer_protocol_enabled()) {
    refuse(kafka_error::kUnsupportedVersion,
           "The new consumer group protocol is not enabled (group.coordinator.rebalance.protocols).");
    co_return r;
  }
  // Kafka's checks: READ on the group, DESCRIBE on every topic subscribed by name.
  if (!authorized(broker, ctx, AclOperation::kRead, ResourceType::kGroup, request.group_id)) {
    refuse(kafka_error::kGroupAuthorizationFailed);
    co_return r;
  }
  if (request.subscribed_topic_names) {
    for (const std::string& t : *request.subscribed_topic_names) {
      if (!authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kTopic, t)) {
        refuse(kafka_error::kTopicAuthorizationFailed, "The member is not authorized to describe topic " + t + ".");
        co_return r;
      }
    }
  }
  if (!(co_await broker.ensure_offsets_topic())) {
    refuse(kafka_error::kCoordinatorNotAvailable);
    co_return r;
  }
  if (!request.group_id.empty()) {
    if (const KafkaError here = coordinator_error(broker, ctx, request.group_id); here != KafkaError::kNone) {
      refuse(code_of(here));
      co_return r;
    }
  }
  group::ConsumerHeartbeat h;
  h.api_version = ctx.header.api_version;
  h.group_id = request.group_id;
  h.member_id = request.member_id;
  h.member_epoch = request.member_epoch;
  h.instance_id = request.instance_id;
  h.rack_id = request.rack_id;
  h.rebalance_timeout_ms = request.rebalance_timeout_ms;
  h.subscribed_topic_names = request.subscribed_topic_names;
  h.subscribed_topic_regex = request.subscribed_topic_regex;
  h.server_assignor = request.server_assignor;
  if (request.topic_partitions) h.owned = assignment_of(*request.topic_partitions);
  h.client_id = ctx.header.client_id.value_or("");
  h.client_host = client_host(ctx);
  auto visible = [&broker, &ctx](const std::string& topic) {
    return authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kTopic, topic);
  };
  SnapshotTopics topics(broker.metadata(), visible);
  group::GroupCoordinator& coord = broker.groups();
  const size_t shard = broker.group_shard(request.group_id);
  group::ConsumerHeartbeatResult res = co_await broker.on_shard_async<group::ConsumerHeartbeatResult>(
      shard, [&coord, &h, &topics](std::function<void(group::ConsumerHeartbeatResult)> done) {
        coord.consumer_heartbeat(std::move(h), topics, std::move(done));
      });
  r.error_code = code_of(res.error);
  r.error_message = std::move(res.message);
  if (res.error != KafkaError::kNone) co_return r;
  r.member_id = std::move(res.member_id);
  r.member_epoch = res.member_epoch;
  r.heartbeat_interval_ms = res.heartbeat_interval_ms;
  if (res.assignment) {
    ConsumerGroupHeartbeatResponse::Assignment a;
    for (const auto& [id, parts] : *res.assignment) {
      a.topic_partitions.push_back({id, std::vector<int32_t>(parts.begin(), parts.end())});
    }
    r.assignment = std::move(a);
  }
  co_return r;
}

asio::awaitable<ConsumerGroupDescribeResponse> handle_consumer_group_describe(
    Broker& broker, RequestContext& ctx, ConsumerGroupDescribeRequest& request) {
  ConsumerGroupDescribeResponse r;
  const bool any_groups = broker.topics().get(group::kOffsetsTopic).has_value();
  group::GroupCoordinator& coord = broker.groups();
  auto snapshot = broker.metadata();
  for (const std::string& id : request.group_ids) {
    ConsumerGroupDescribeResponse::Group g;
    g.group_id = id;
    // Kafka's check: DESCRIBE on the group.
    if (!authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kGroup, id)) {
      g.error_code = kafka_error::kGroupAuthorizationFailed;
      r.groups.push_back(std::move(g));
      continue;
    }
    if (id.empty()) {
      g.error_code = kafka_error::kInvalidGroupId;
      r.groups.push_back(std::move(g));
      continue;
    }
    if (const KafkaError here = any_groups ? coordinator_error(broker, ctx, id) : KafkaError::kNone;
        here != KafkaError::kNone) {
      g.error_code = code_of(here);
      r.groups.push_back(std::move(g));
      continue;
    }
    group::ConsumerGroupDescription d;
    if (any_groups) {
      d = co_await broker.on_shard(broker.group_shard(id), [&coord, &id] { return coord.consumer_describe(id); });
    } else {
      d.error = KafkaError::kGroupIdNotFound;
      d.message = "Group " + id + " not found.";
    }
    if (d.error != KafkaError::kNone) {
      g.error_code = code_of(d.error);
      g.error_message = d.message;
      g.group_state = group::to_string(group::ConsumerGroupState::kDead);
      r.groups.push_back(std::move(g));
      continue;
    }
    g.group_state = group::to_string(d.state);
    g.group_epoch = d.group_epoch;
    g.assignment_epoch = d.assignment_epoch;
    g.assignor_name = d.assignor;
    bool topics_visible = true;
    for (const auto& md : d.members) {
      const group::ConsumerMember& m = md.member;
      ConsumerGroupDescribeResponse::Member out;
      out.member_id = m.id;
      out.instance_id = m.instance_id;
      out.rack_id = m.rack_id;
      out.member_epoch = m.epoch;
      out.client_id = m.client_id;
      out.client_host = m.client_host;
      out.subscribed_topic_names = m.subscribed_topic_names;
      if (!m.subscribed_topic_regex.empty()) out.subscribed_topic_regex = m.subscribed_topic_regex;
      out.assignment = described(m.assigned, *snapshot);
      out.target_assignment = described(md.target, *snapshot);
      out.member_type = m.classic ? 0 : 1;  // a classic member (KIP-848's migration), else consumer
      for (const auto* a : {&out.assignment, &out.target_assignment}) {
        for (const auto& t : a->topic_partitions) {
          if (!authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kTopic, t.topic_name)) topics_visible = false;
        }
      }
      g.members.push_back(std::move(out));
    }
    // Kafka's check: a group whose assignments name a topic the caller may not describe
    // is not shown.
    if (!topics_visible) {
      g.members.clear();
      g.error_code = kafka_error::kTopicAuthorizationFailed;
      g.error_message = "The group has assigned topic partitions that the client is not authorized to describe.";
    }
    if (request.include_authorized_operations) {
      g.authorized_operations = authorized_operations(broker, ctx, ResourceType::kGroup, id);
    }
    r.groups.push_back(std::move(g));
  }
  co_return r;
}

}  // namespace strata::broker

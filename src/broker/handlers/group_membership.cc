// FindCoordinator, JoinGroup, SyncGroup, Heartbeat and LeaveGroup: the rebalance
// protocol of classic consumer groups, run by group::GroupCoordinator on the shard that
// owns the group's __consumer_offsets partition.
// Errors (from the coordinator): INVALID_GROUP_ID, INVALID_SESSION_TIMEOUT,
// MEMBER_ID_REQUIRED, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS,
// INCONSISTENT_GROUP_PROTOCOL, FENCED_INSTANCE_ID, GROUP_MAX_SIZE_REACHED,
// COORDINATOR_NOT_AVAILABLE (no __consumer_offsets, or a failed write).
#include "broker/handlers/authorize.h"
#include "broker/handlers/group_common.h"
#include "broker/handlers/topic_view.h"
#include "broker/handlers/txn_common.h"

namespace strata::broker {

using namespace protocol;

namespace {

constexpr int8_t kGroupKey = 0;
constexpr int8_t kTransactionKey = 1;

// Kafka's coordinator answer for one key: the leader of the key's partition of
// __consumer_offsets (groups) or __transaction_state (transactional ids), this node on
// the single node (the internal topic is created on first use); share groups have no
// coordinator here.
void find_one(Broker& broker, const std::string& listener, int8_t key_type, bool ready, const std::string& key, int16_t& error,
              std::optional<std::string>& message, int32_t& node, std::string& host, int32_t& port) {
  node = -1;
  host = "";
  port = -1;
  if (key_type != kGroupKey && key_type != kTransactionKey) {
    error = kafka_error::kCoordinatorNotAvailable;
    message = "share-group coordinators are not available on this broker";
    return;
  }
  if (!ready) {
    error = kafka_error::kCoordinatorNotAvailable;
    message = key_type == kGroupKey ? "the __consumer_offsets topic could not be created"
                                    : "the __transaction_state topic could not be created";
    return;
  }
  auto snapshot = broker.metadata();
  const int32_t leader = !broker.in_cluster()   ? broker.config().node_id
                         : key_type == kGroupKey ? group_coordinator(broker, *snapshot, key)
                                                 : txn_coordinator(broker, *snapshot, key);
  const BrokerMeta* b = snapshot->cluster().broker(leader);
  const auto address = b == nullptr ? std::nullopt : b->address(listener);
  if (!address) {
    error = kafka_error::kCoordinatorNotAvailable;
    message = key_type == kGroupKey ? "the group's __consumer_offsets partition has no leader"
                                    : "the transactional id's __transaction_state partition has no leader";
    return;
  }
  error = 0;
  message = std::nullopt;
  node = b->node_id;
  host = address->host;
  port = address->port;
}

}  // namespace

asio::awaitable<FindCoordinatorResponse> handle_find_coordinator(Broker& broker, RequestContext& ctx,
                                                                 FindCoordinatorRequest& request) {
  FindCoordinatorResponse r;
  // The internal topic is created on first use.
  bool ready = false;
  if (request.key_type == kGroupKey) ready = co_await broker.ensure_offsets_topic();
  if (request.key_type == kTransactionKey) ready = co_await broker.ensure_txn_topic();
  // Kafka's checks: DESCRIBE on the group or the transactional id.
  auto denied = [&broker, &ctx, &request](const std::string& key, int16_t& error,
                                          std::optional<std::string>& message) {
    const bool group = request.key_type == kGroupKey;
    if (request.key_type != kGroupKey && request.key_type != kTransactionKey) return false;
    if (authorized(broker, ctx, AclOperation::kDescribe,
                   group ? ResourceType::kGroup : ResourceType::kTransactionalId, key)) {
      return false;
    }
    error = group ? kafka_error::kGroupAuthorizationFailed : kafka_error::kTransactionalIdAuthorizationFailed;
    message = std::nullopt;
    return true;
  };
  if (ctx.header.api_version < 4) {
    if (denied(request.key, r.error_code, r.error_message)) co_return r;
    find_one(broker, ctx.session().listener->name, request.key_type, ready, request.key, r.error_code, r.error_message, r.node_id,
             r.host, r.port);
    co_return r;
  }
  for (const std::string& key : request.coordinator_keys) {
    FindCoordinatorResponse::Coordinator c;
    c.key = key;
    if (!denied(key, c.error_code, c.error_message)) {
      find_one(broker, ctx.session().listener->name, request.key_type, ready, key, c.error_code, c.error_message,
               c.node_id, c.host, c.port);
    } else {
      c.node_id = -1;
      c.port = -1;
    }
    r.coordinators.push_back(std::move(c));
  }
  co_return r;
}

asio::awaitable<JoinGroupResponse> handle_join_group(Broker& broker, RequestContext& ctx,
                                                     JoinGroupRequest& request) {
  JoinGroupResponse r;
  r.member_id = request.member_id;
  if (!authorized(broker, ctx, AclOperation::kRead, ResourceType::kGroup, request.group_id)) {
    r.error_code = kafka_error::kGroupAuthorizationFailed;
    co_return r;
  }
  if (!(co_await broker.ensure_offsets_topic())) {
    r.error_code = kafka_error::kCoordinatorNotAvailable;
    co_return r;
  }
  if (const KafkaError here = coordinator_error(broker, ctx, request.group_id); here != KafkaError::kNone) {
    r.error_code = code_of(here);
    co_return r;
  }
  const int16_t version = ctx.header.api_version;
  group::JoinRequest j;
  j.group_id = request.group_id;
  j.member_id = request.member_id;
  j.group_instance_id = request.group_instance_id;
  j.client_id = ctx.header.client_id.value_or("");
  j.client_host = client_host(ctx);
  j.session_timeout_ms = request.session_timeout_ms;
  j.rebalance_timeout_ms = version >= 1 && request.rebalance_timeout_ms >= 0
                               ? request.rebalance_timeout_ms
                               : request.session_timeout_ms;
  j.protocol_type = request.protocol_type;
  for (auto& p : request.protocols) j.protocols.push_back({p.name, std::move(p.metadata)});
  j.require_known_member_id = version >= 4;
  j.supports_skip_assignment = version >= 9;
  const SnapshotTopics topics(broker.metadata(), [](const std::string&) { return true; });
  j.topics = &topics;  // a classic member of a consumer-protocol group names its partitions by topic
  group::GroupCoordinator& coord = broker.groups();
  group::JoinResult res = co_await broker.on_shard_async<group::JoinResult>(
      broker.group_shard(request.group_id),
      [&coord, &j](std::function<void(group::JoinResult)> done) { coord.join(std::move(j), std::move(done)); });
  r.error_code = code_of(res.error);
  r.generation_id = res.generation;
  r.protocol_type = res.protocol_type;
  // Before v7 the name may not be null.
  r.protocol_name = version >= 7 ? res.protocol_name : std::optional(res.protocol_name.value_or(""));
  r.leader = res.leader;
  r.skip_assignment = res.skip_assignment;
  r.member_id = res.member_id;
  for (auto& m : res.members) r.members.push_back({m.member_id, m.group_instance_id, std::move(m.metadata)});
  co_return r;
}

asio::awaitable<SyncGroupResponse> handle_sync_group(Broker& broker, RequestContext& ctx,
                                                     SyncGroupRequest& request) {
  SyncGroupResponse r;
  if (!authorized(broker, ctx, AclOperation::kRead, ResourceType::kGroup, request.group_id)) {
    r.error_code = kafka_error::kGroupAuthorizationFailed;
    co_return r;
  }
  if (request.group_id.empty()) {
    r.error_code = kafka_error::kInvalidGroupId;
    co_return r;
  }
  if (const KafkaError here = coordinator_error(broker, ctx, request.group_id); here != KafkaError::kNone) {
    r.error_code = code_of(here);
    co_return r;
  }
  group::SyncRequest s;
  s.group_id = request.group_id;
  s.member_id = request.member_id;
  s.group_instance_id = request.group_instance_id;
  s.generation = request.generation_id;
  s.protocol_type = request.protocol_type;
  s.protocol_name = request.protocol_name;
  for (auto& a : request.assignments) s.assignments.emplace_back(a.member_id, std::move(a.assignment));
  const SnapshotTopics topics(broker.metadata(), [](const std::string&) { return true; });
  s.topics = &topics;
  group::GroupCoordinator& coord = broker.groups();
  group::SyncResult res = co_await broker.on_shard_async<group::SyncResult>(
      broker.group_shard(request.group_id),
      [&coord, &s](std::function<void(group::SyncResult)> done) { coord.sync(std::move(s), std::move(done)); });
  r.error_code = code_of(res.error);
  r.protocol_type = res.protocol_type;
  r.protocol_name = res.protocol_name;
  r.assignment = std::move(res.assignment);
  co_return r;
}

asio::awaitable<HeartbeatResponse> handle_heartbeat(Broker& broker, RequestContext& ctx,
                                                    HeartbeatRequest& request) {
  HeartbeatResponse r;
  if (!authorized(broker, ctx, AclOperation::kRead, ResourceType::kGroup, request.group_id)) {
    r.error_code = kafka_error::kGroupAuthorizationFailed;
    co_return r;
  }
  if (request.group_id.empty()) {
    r.error_code = kafka_error::kInvalidGroupId;
    co_return r;
  }
  if (const KafkaError here = coordinator_error(broker, ctx, request.group_id); here != KafkaError::kNone) {
    // Kafka answers a heartbeat during the load blindly with NONE: the member keeps its
    // session and finds the loaded group on its next one.
    if (here != KafkaError::kCoordinatorLoadInProgress) r.error_code = code_of(here);
    co_return r;
  }
  group::MemberRef m{request.group_id, request.member_id, request.group_instance_id,
                     request.generation_id};
  group::GroupCoordinator& coord = broker.groups();
  r.error_code = co_await broker.on_shard(broker.group_shard(request.group_id),
                                          [&coord, &m] { return code_of(coord.heartbeat(m)); });
  co_return r;
}

asio::awaitable<LeaveGroupResponse> handle_leave_group(Broker& broker, RequestContext& ctx,
                                                       LeaveGroupRequest& request) {
  LeaveGroupResponse r;
  if (!authorized(broker, ctx, AclOperation::kRead, ResourceType::kGroup, request.group_id)) {
    r.error_code = kafka_error::kGroupAuthorizationFailed;
    co_return r;
  }
  if (request.group_id.empty()) {
    r.error_code = kafka_error::kInvalidGroupId;
    co_return r;
  }
  if (const KafkaError here = coordinator_error(broker, ctx, request.group_id); here != KafkaError::kNone) {
    r.error_code = code_of(here);
    co_return r;
  }
  const bool batched = ctx.header.api_version >= 3;
  std::vector<std::pair<std::string, std::optional<std::string>>> members;
  if (batched) {
    for (const auto& m : request.members) members.emplace_back(m.member_id, m.group_instance_id);
  } else {
    members.emplace_back(request.member_id, std::nullopt);
  }
  group::GroupCoordinator& coord = broker.groups();
  const std::string& id = request.group_id;
  group::LeaveResult res = co_await broker.on_shard(
      broker.group_shard(id), [&coord, &id, &members] { return coord.leave(id, members); });
  r.error_code = code_of(res.error);
  if (!batched) {
    if (r.error_code == 0 && !res.members.empty()) r.error_code = code_of(res.members[0]);
    co_return r;
  }
  for (size_t i = 0; i < members.size(); ++i) {
    r.members.push_back({members[i].first, members[i].second,
                         code_of(i < res.members.size() ? res.members[i]
                                                 : group::errc::kUnknownServerError)});
  }
  co_return r;
}

}  // namespace strata::broker

// AlterPartitionReassignments and ListPartitionReassignments (KIP-455). In a cluster any
// broker takes them: moves are written to the topic's assignment in etcd
// (Broker::reassign_partitions) and listed from the metadata snapshot. On the single
// node the only replica set is this broker alone.
// Errors per partition: UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT (an empty
// list, a broker named twice or not registered), NO_REASSIGNMENT_IN_PROGRESS (a cancel
// of a partition not moving), REQUEST_TIMED_OUT (etcd unreachable). Top level:
// CLUSTER_AUTHORIZATION_FAILED without ALTER (Alter) or DESCRIBE (List) on the cluster,
// Kafka's checks; Alter then also gives every partition that error, as Kafka's error
// response does.
#include <fmt/ranges.h>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"

namespace strata::broker {

using protocol::AlterPartitionReassignmentsRequest;
using protocol::AlterPartitionReassignmentsResponse;
using protocol::ListPartitionReassignmentsRequest;
using protocol::ListPartitionReassignmentsResponse;

namespace {

// The single node: the target must be this broker alone.
void answer_alone(const Broker& broker, const MetadataSnapshot& md, const std::string& topic,
                  std::vector<PartitionMove>& moves) {
  const int32_t self = broker.config().node_id;
  for (PartitionMove& m : moves) {
    if (md.partition(topic, m.partition) == nullptr) {
      m.error = KafkaError::kUnknownTopicOrPartition;
    } else if (!m.target) {
      m.error = KafkaError::kNoReassignmentInProgress;
    } else if (*m.target != std::vector<int32_t>{self}) {
      m.error = KafkaError::kInvalidReplicaAssignment;
      m.message = fmt::format("Replicas {} are not this single broker ({}).", fmt::join(*m.target, ","), self);
    }
  }
}

}  // namespace

asio::awaitable<AlterPartitionReassignmentsResponse> handle_alter_partition_reassignments(
    Broker& broker, RequestContext& ctx, AlterPartitionReassignmentsRequest& request) {
  AlterPartitionReassignmentsResponse r;
  if (!cluster_authorized(broker, ctx, AclOperation::kAlter)) {
    r.error_code = kafka_error::kClusterAuthorizationFailed;
    r.error_message = std::string(kafka_error_info(KafkaError::kClusterAuthorizationFailed).message);
    for (const auto& t : request.topics) {
      AlterPartitionReassignmentsResponse::Topic rt{t.name, {}};
      for (const auto& p : t.partitions) {
        rt.partitions.push_back({p.partition_index, r.error_code, r.error_message});
      }
      r.responses.push_back(std::move(rt));
    }
    co_return r;
  }
  for (auto& t : request.topics) {
    std::vector<PartitionMove> moves;
    for (auto& p : t.partitions) moves.push_back({p.partition_index, std::move(p.replicas)});
    if (broker.in_cluster()) {
      co_await broker.reassign_partitions(t.name, moves, request.timeout_ms);
    } else {
      answer_alone(broker, *ctx.metadata, t.name, moves);
    }
    AlterPartitionReassignmentsResponse::Topic rt{t.name, {}};
    for (const PartitionMove& m : moves) {
      AlterPartitionReassignmentsResponse::Partition rp{m.partition, code_of(m.error), std::nullopt};
      if (m.error != KafkaError::kNone) {
        rp.error_message = m.message.empty() ? std::string(kafka_error_info(m.error).message) : m.message;
      }
      rt.partitions.push_back(std::move(rp));
    }
    r.responses.push_back(std::move(rt));
  }
  co_return r;
}

asio::awaitable<ListPartitionReassignmentsResponse> handle_list_partition_reassignments(
    Broker& broker, RequestContext& ctx, ListPartitionReassignmentsRequest& request) {
  ListPartitionReassignmentsResponse r;
  if (!cluster_authorized(broker, ctx, AclOperation::kDescribe)) {
    r.error_code = kafka_error::kClusterAuthorizationFailed;
    r.error_message = std::string(kafka_error_info(KafkaError::kClusterAuthorizationFailed).message);
    co_return r;
  }
  const MetadataSnapshot& md = *ctx.metadata;
  auto add = [&r](const std::string& topic, int32_t p, const PartitionMeta& m) {
    if (m.adding_replicas.empty() && m.removing_replicas.empty()) return;
    if (r.topics.empty() || r.topics.back().name != topic) r.topics.push_back({topic, {}});
    r.topics.back().partitions.push_back({p, m.replicas, m.adding_replicas, m.removing_replicas});
  };
  if (!request.topics) {
    for (const auto& t : md.topics()) {
      for (int32_t p = 0; p < t->partition_count(); ++p) add(t->name, p, t->partitions[size_t(p)]);
    }
    co_return r;
  }
  // Kafka leaves out topics and partitions that do not exist or are not moving.
  for (const auto& t : *request.topics) {
    for (int32_t p : t.partition_indexes) {
      if (const PartitionMeta* m = md.partition(t.name, p)) add(t.name, p, *m);
    }
  }
  co_return r;
}

}  // namespace strata::broker

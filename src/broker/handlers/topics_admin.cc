// CreateTopics and DeleteTopics. A single node can host only replication factor 1 and
// assignments naming itself. Errors: INVALID_TOPIC_EXCEPTION, TOPIC_ALREADY_EXISTS,
// INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR, INVALID_REPLICA_ASSIGNMENT,
// INVALID_CONFIG, UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID.
#include <spdlog/spdlog.h>

#include "broker/errors.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"

namespace strata::broker {

using protocol::CreateTopicsRequest;
using protocol::CreateTopicsResponse;
using protocol::DeleteTopicsRequest;
using protocol::DeleteTopicsResponse;

namespace {

// Replication and placement checks; the rest is Broker::create_topic's.
std::optional<std::pair<int16_t, std::string>> check_placement(const Broker& broker,
                                                               const CreateTopicsRequest::Topic& t,
                                                               int32_t& partitions) {
  const int32_t node = broker.config().node_id;
  if (!t.assignments.empty()) {
    if (t.num_partitions != -1 || t.replication_factor != -1) {
      return std::pair{kafka_error::kInvalidRequest,
                       std::string("Both numPartitions or replicationFactor and replicasAssignments were set.")};
    }
    for (const auto& a : t.assignments) {
      if (a.broker_ids != std::vector<int32_t>{node}) {
        return std::pair{kafka_error::kInvalidReplicaAssignment,
                         std::string("Replica assignments must name only broker ") + std::to_string(node)};
      }
    }
    partitions = int32_t(t.assignments.size());
    return std::nullopt;
  }
  const int16_t rf = t.replication_factor == -1 ? broker.config().default_replication_factor
                                                : t.replication_factor;
  if (rf <= 0) {
    return std::pair{kafka_error::kInvalidReplicationFactor,
                     std::string("Replication factor must be larger than 0.")};
  }
  if (rf > 1) {
    return std::pair{kafka_error::kInvalidReplicationFactor,
                     "Unable to replicate the partition " + std::to_string(rf) +
                         " time(s): The target replication factor of " + std::to_string(rf) +
                         " cannot be reached because only 1 broker(s) are registered."};
  }
  partitions = t.num_partitions == -1 ? broker.config().num_partitions : t.num_partitions;
  return std::nullopt;
}

// In a cluster: the partition count or explicit assignment, checked against the live
// brokers (Kafka's INVALID_REPLICA_ASSIGNMENT rules: no empty or repeated replica list
// entries, only registered brokers, one replication factor for all partitions).
std::optional<std::pair<int16_t, std::string>> check_cluster_placement(
    const Broker& broker, const ClusterMeta& cluster, const CreateTopicsRequest::Topic& t,
    int32_t& partitions, std::vector<std::vector<int32_t>>& assignment) {
  if (t.assignments.empty()) {
    partitions = t.num_partitions == -1 ? broker.config().num_partitions : t.num_partitions;
    return std::nullopt;
  }
  if (t.num_partitions != -1 || t.replication_factor != -1) {
    return std::pair{kafka_error::kInvalidRequest,
                     std::string("Both numPartitions or replicationFactor and replicasAssignments were set.")};
  }
  std::vector<std::pair<int32_t, std::vector<int32_t>>> sorted;
  for (const auto& a : t.assignments) sorted.emplace_back(a.partition_index, a.broker_ids);
  std::sort(sorted.begin(), sorted.end());
  for (size_t p = 0; p < sorted.size(); ++p) {
    const auto& ids = sorted[p].second;
    std::vector<int32_t> unique = ids;
    std::sort(unique.begin(), unique.end());
    const bool repeated = std::adjacent_find(unique.begin(), unique.end()) != unique.end();
    if (sorted[p].first != int32_t(p) || ids.empty() || repeated || ids.size() != sorted[0].second.size()) {
      return std::pair{kafka_error::kInvalidReplicaAssignment,
                       std::string("Partitions must be 0..n-1, each with the same number of distinct brokers.")};
    }
    for (int32_t id : ids) {
      if (cluster.broker(id) == nullptr) {
        return std::pair{kafka_error::kInvalidReplicaAssignment,
                         "Unknown broker " + std::to_string(id) + " in the replica assignment."};
      }
    }
    assignment.push_back(ids);
  }
  partitions = int32_t(assignment.size());
  return std::nullopt;
}

}  // namespace

asio::awaitable<CreateTopicsResponse> handle_create_topics(Broker& broker, RequestContext& ctx,
                                                           CreateTopicsRequest& request) {
  CreateTopicsResponse r;
  for (const auto& t : request.topics) {
    CreateTopicsResponse::Topic out;
    out.name = t.name;
    out.error_message.reset();
    int32_t partitions = 0;
    std::map<std::string, std::string> configs;
    for (const auto& c : t.configs) {
      if (c.value) configs[c.name] = *c.value;
    }
    std::vector<std::vector<int32_t>> assignment;
    // Kafka's check: CREATE on the cluster or on the topic.
    if (!cluster_authorized(broker, ctx, AclOperation::kCreate) &&
        !authorized(broker, ctx, AclOperation::kCreate, ResourceType::kTopic, t.name)) {
      out.error_code = kafka_error::kTopicAuthorizationFailed;
      out.error_message = "Authorization failed.";
      r.topics.push_back(std::move(out));
      continue;
    }
    auto bad = broker.in_cluster()
                   ? check_cluster_placement(broker, ctx.metadata->cluster(), t, partitions, assignment)
                   : check_placement(broker, t, partitions);
    if (bad) {
      out.error_code = bad->first;
      out.error_message = bad->second;
    } else {
      auto created = co_await broker.create_topic(t.name, partitions, configs, request.validate_only,
                                                  t.replication_factor, assignment);
      if (!created) {
        out.error_code = created.error().first;
        out.error_message = created.error().second;
      } else {
        out.topic_id = created->id;
        out.num_partitions = partitions;
        out.replication_factor = !assignment.empty() ? int16_t(assignment[0].size())
                                 : t.replication_factor != -1 ? t.replication_factor
                                 : broker.in_cluster() ? broker.config().default_replication_factor
                                                       : int16_t(1);
        out.configs.emplace();
        for (const auto& [k, v] : configs) {
          CreateTopicsResponse::Config c;
          c.name = k;
          c.value = v;
          c.config_source = 1;  // DYNAMIC_TOPIC_CONFIG
          out.configs->push_back(std::move(c));
        }
      }
    }
    r.topics.push_back(std::move(out));
  }
  co_return r;
}

asio::awaitable<DeleteTopicsResponse> handle_delete_topics(Broker& broker, RequestContext& ctx,
                                                           DeleteTopicsRequest& request) {
  DeleteTopicsResponse r;
  std::vector<DeleteTopicsRequest::Topic> wanted = request.topics;
  if (ctx.header.api_version < 6) {
    for (const auto& name : request.topic_names) wanted.push_back({name, {}});
  }
  for (const auto& w : wanted) {
    DeleteTopicsResponse::Result out;
    out.name = w.name;
    out.topic_id = w.topic_id;
    std::optional<TopicInfo> info = w.name ? broker.topics().get(*w.name)
                                           : broker.topics().get(w.topic_id);
    // Kafka's check: DELETE on the topic (an unknown id stays unknown).
    const std::string* name = w.name ? &*w.name : info ? &info->name : nullptr;
    if (name != nullptr && !authorized(broker, ctx, AclOperation::kDelete, ResourceType::kTopic, *name)) {
      out.error_code = kafka_error::kTopicAuthorizationFailed;
      out.error_message = "Authorization failed.";
      r.responses.push_back(std::move(out));
      continue;
    }
    if (!info) {
      out.error_code = w.name ? kafka_error::kUnknownTopicOrPartition : kafka_error::kUnknownTopicId;
      r.responses.push_back(std::move(out));
      continue;
    }
    out.name = info->name;
    out.topic_id = info->id;
    if (auto removed = co_await broker.delete_topic(*info); !removed) {
      out.error_code = removed.error().first;
      out.error_message = removed.error().second;
    }
    r.responses.push_back(std::move(out));
  }
  co_return r;
}

}  // namespace strata::broker

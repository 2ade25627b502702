// Metadata: the live brokers, the controller, the cluster id (the snapshot's ClusterMeta), and topics with their partitions,
// auto-creating requested topics when allowed. Errors: INVALID_TOPIC_EXCEPTION for a
// bad name, UNKNOWN_TOPIC_OR_PARTITION / UNKNOWN_TOPIC_ID for what does not exist.
#include "broker/errors.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/partitions.h"
#include "storage/checkpoint.h"

namespace strata::broker {

using protocol::MetadataRequest;
using protocol::MetadataResponse;

namespace {

// A partition without a leader answers LEADER_NOT_AVAILABLE (clients retry); replicas
// on brokers that are not live are its offline replicas.
MetadataResponse::Topic describe(const TopicMeta& t, const ClusterMeta& cluster) {
  MetadataResponse::Topic out;
  out.name = t.name;
  out.is_internal = t.internal;
  out.topic_id = t.id;
  for (int32_t p = 0; p < t.partition_count(); ++p) {
    const PartitionMeta& meta = t.partitions[size_t(p)];
    MetadataResponse::Partition part;
    part.partition_index = p;
    part.leader_id = meta.leader;
    part.leader_epoch = meta.leader_epoch;
    part.replica_nodes = meta.replicas.empty() ? std::vector<int32_t>{meta.leader} : meta.replicas;
    part.isr_nodes = meta.replicas.empty() ? std::vector<int32_t>{meta.leader} : meta.isr;
    for (int32_t r : part.replica_nodes) {
      if (cluster.broker(r) == nullptr) part.offline_replicas.push_back(r);
    }
    if (meta.leader < 0) part.error_code = kafka_error::kLeaderNotAvailable;
    out.partitions.push_back(std::move(part));
  }
  return out;
}

MetadataResponse::Topic error_topic(std::optional<std::string> name, protocol::Uuid id,
                                    int16_t error) {
  MetadataResponse::Topic out;
  out.error_code = error;
  out.name = std::move(name);
  out.topic_id = id;
  return out;
}

// The authorized-operations bit fields, when asked for (v8+; the cluster's until v10),
// of the topics answered without an authorization error.
void add_authorized_operations(Broker& broker, const RequestContext& ctx, const MetadataRequest& request,
                               MetadataResponse& r) {
  if (request.include_topic_authorized_operations) {
    for (auto& t : r.topics) {
      if (t.name && t.error_code != kafka_error::kTopicAuthorizationFailed) {
        t.topic_authorized_operations = authorized_operations(broker, ctx, ResourceType::kTopic, *t.name);
      }
    }
  }
  if (request.include_cluster_authorized_operations) {
    r.cluster_authorized_operations = authorized_operations(broker, ctx, ResourceType::kCluster, kClusterName);
  }
}

}  // namespace

asio::awaitable<MetadataResponse> handle_metadata(Broker& broker, RequestContext& ctx,
                                                  MetadataRequest& request) {
  MetadataResponse r;
  // Held: auto-creation below replaces ctx.metadata.
  const std::shared_ptr<const ClusterMeta> cluster_ptr = ctx.metadata->cluster_ptr();
  const ClusterMeta& cluster = *cluster_ptr;
  const std::string& listener = ctx.session().listener->name;
  for (const BrokerMeta& b : cluster.brokers) {
    if (auto e = b.address(listener)) r.brokers.push_back({b.node_id, e->host, e->port, b.rack});
  }
  r.cluster_id = cluster.cluster_id;
  r.controller_id = cluster.controller_id;
  const int16_t version = ctx.header.api_version;
  // v0: an empty list means all topics; v1+: null means all, empty means none.
  const bool all = !request.topics || (version == 0 && request.topics->empty());
  // Kafka's checks: DESCRIBE on a topic to see it (all topics: the others are left
  // out; named ones: TOPIC_AUTHORIZATION_FAILED), CREATE to auto-create (auto_create).
  auto may_describe = [&broker, &ctx](const std::string& topic) {
    return authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kTopic, topic);
  };
  if (all) {
    for (const auto& t : ctx.metadata->topics()) {
      if (may_describe(t->name)) r.topics.push_back(describe(*t, cluster));
    }
    add_authorized_operations(broker, ctx, request, r);
    co_return r;
  }
  const bool auto_create_allowed = version < 4 || request.allow_auto_topic_creation;
  for (const auto& want : *request.topics) {
    if (!want.name || want.name->empty()) {
      const TopicMeta* t = ctx.metadata->topic(want.topic_id);
      if (t != nullptr && !may_describe(t->name)) t = nullptr;  // as if unknown (Kafka's answer)
      r.topics.push_back(t ? describe(*t, cluster)
                           : error_topic(std::nullopt, want.topic_id, kafka_error::kUnknownTopicId));
      continue;
    }
    const std::string& name = *want.name;
    if (!may_describe(name)) {
      r.topics.push_back(error_topic(name, {}, kafka_error::kTopicAuthorizationFailed));
      continue;
    }
    int16_t error = kafka_error::kUnknownTopicOrPartition;
    if (ctx.metadata->topic(name) == nullptr && auto_create_allowed) {
      error = co_await auto_create(broker, ctx, name);
    }
    const TopicMeta* t = ctx.metadata->topic(name);
    r.topics.push_back(t ? describe(*t, cluster) : error_topic(name, {}, error ? error : kafka_error::kUnknownTopicOrPartition));
  }
  add_authorized_operations(broker, ctx, request, r);
  co_return r;
}

}  // namespace strata::broker

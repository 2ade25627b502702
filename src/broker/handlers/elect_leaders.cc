// ElectLeaders (KIP-183, KIP-460): Kafka's controller elects the preferred replica, or with
// election type 1 a live replica where no in-sync one is alive, for the named partitions
// (every partition for a null list). In a cluster any broker takes the request and writes
// the new states to etcd itself (Broker::elect_leaders); on the single node every
// partition's only replica already leads (ELECTION_NOT_NEEDED).
// Errors per partition: ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
// ELIGIBLE_LEADERS_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST (a partition
// named twice), REQUEST_TIMED_OUT (etcd unreachable); top level: INVALID_REQUEST for an
// unknown election type; CLUSTER_AUTHORIZATION_FAILED, top level and for every partition
// named, without ALTER on the cluster (Kafka's check).
#include <set>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "cluster/elections.h"

namespace strata::broker {

using protocol::ElectLeadersRequest;
using protocol::ElectLeadersResponse;

namespace {

ElectLeadersResponse::PartitionResult result_of(int32_t partition, KafkaError error, const std::string& message) {
  ElectLeadersResponse::PartitionResult r;
  r.partition_id = partition;
  r.error_code = code_of(error);
  if (error != KafkaError::kNone) {
    r.error_message = message.empty() ? std::string(kafka_error_info(error).message) : message;
  }
  return r;
}

// The results grouped by topic, topics in the order first met.
void add(ElectLeadersResponse& r, const ElectionResult& e) {
  for (auto& t : r.replica_election_results) {
    if (t.topic == e.tp.topic) {
      t.partition_result.push_back(result_of(e.tp.partition.value(), e.error, e.message));
      return;
    }
  }
  r.replica_election_results.push_back({e.tp.topic, {result_of(e.tp.partition.value(), e.error, e.message)}});
}

}  // namespace

asio::awaitable<ElectLeadersResponse> handle_elect_leaders(Broker& broker, RequestContext& ctx,
                                                           ElectLeadersRequest& request) {
  ElectLeadersResponse r;
  if (!cluster_authorized(broker, ctx, AclOperation::kAlter)) {
    r.error_code = kafka_error::kClusterAuthorizationFailed;
    for (const auto& t : request.topic_partitions.value_or(decltype(request.topic_partitions)::value_type{})) {
      for (int32_t p : t.partitions) {
        add(r, {storage::TopicPartition{t.topic, PartitionId(p)}, KafkaError::kClusterAuthorizationFailed, {}});
      }
    }
    co_return r;
  }
  if (request.election_type != 0 && request.election_type != 1) {
    r.error_code = kafka_error::kInvalidRequest;
    co_return r;
  }
  const auto type = cluster::ElectionType(request.election_type);
  std::optional<std::vector<storage::TopicPartition>> which;
  std::vector<ElectionResult> refused;  // named twice
  if (request.topic_partitions) {
    which.emplace();
    std::set<std::pair<std::string, int32_t>> seen;
    for (const auto& t : *request.topic_partitions) {
      for (int32_t p : t.partitions) {
        storage::TopicPartition tp{t.topic, PartitionId(p)};
        if (!seen.insert({t.topic, p}).second) {
          refused.push_back({tp, KafkaError::kInvalidRequest, "Duplicate partition in the request."});
          continue;
        }
        which->push_back(std::move(tp));
      }
    }
  }
  std::vector<ElectionResult> results;
  if (broker.in_cluster()) {
    results = co_await broker.elect_leaders(type, which, request.timeout_ms);
  } else if (which) {
    for (const auto& tp : *which) {
      const bool exists = ctx.metadata->partition(tp.topic, tp.partition.value()) != nullptr;
      results.push_back({tp, exists ? KafkaError::kElectionNotNeeded : KafkaError::kUnknownTopicOrPartition});
    }
  }
  for (const ElectionResult& e : results) add(r, e);
  for (const ElectionResult& e : refused) add(r, e);
  co_return r;
}

}  // namespace strata::broker

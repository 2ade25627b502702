// CreatePartitions: raises a topic's partition count. The new partitions' logs are made
// (with the topic's LogConfig) before the new count is persisted, so no request can see
// a partition without its log; if persisting fails they are removed again. Assignments,
// when given, must name only this node.
// Errors: INVALID_REQUEST (a topic named twice), UNKNOWN_TOPIC_OR_PARTITION,
// INVALID_PARTITIONS (not an increase), INVALID_REPLICA_ASSIGNMENT, POLICY_VIOLATION
// (too many at once), KAFKA_STORAGE_ERROR.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "broker/handlers/authorize.h"
#include "broker/config_admin.h"
#include "broker/errors.h"
#include "broker/handlers/handlers.h"
#include "storage/checkpoint.h"

namespace strata::broker {

using protocol::CreatePartitionsRequest;
using protocol::CreatePartitionsResponse;

namespace {

// Kafka's controller refuses an operation of more records than this (one per partition).
constexpr int32_t kMaxNewPartitions = 10000;

// The checks of Kafka's ReplicationControlManager.createPartitions, for one node.
std::optional<ApiError> check(const Broker& broker, const CreatePartitionsRequest::Topic& t,
                              const TopicInfo& info) {
  const int32_t current = info.partitions;
  if (t.count == current) {
    return ApiError{kafka_error::kInvalidPartitions,
                    "Topic already has " + std::to_string(current) + " partition(s)."};
  }
  if (t.count < current) {
    return ApiError{kafka_error::kInvalidPartitions,
                    "The topic " + t.name + " currently has " + std::to_string(current) +
                        " partition(s); " + std::to_string(t.count) + " would not be an increase."};
  }
  const int64_t additional = int64_t(t.count) - current;
  if (additional > kMaxNewPartitions) {
    return ApiError{kafka_error::kPolicyViolation,
                    "Unable to perform excessively large batch operation."};
  }
  if (!t.assignments) return std::nullopt;
  if (int64_t(t.assignments->size()) != additional) {
    return ApiError{kafka_error::kInvalidReplicaAssignment,
                    "Attempted to add " + std::to_string(additional) +
                        " additional partition(s), but only " +
                        std::to_string(t.assignments->size()) + " assignment(s) were specified."};
  }
  const int32_t node = broker.config().node_id;
  for (const auto& a : *t.assignments) {
    if (a.broker_ids.empty()) {
      return ApiError{kafka_error::kInvalidReplicaAssignment,
                      "The manual partition assignment includes an empty replica list."};
    }
    for (int32_t id : a.broker_ids) {
      if (id != node) {
        return ApiError{kafka_error::kInvalidReplicaAssignment,
                        "The manual partition assignment includes broker " + std::to_string(id) +
                            ", but no such broker is registered."};
      }
    }
    if (a.broker_ids.size() != 1) {
      return ApiError{kafka_error::kInvalidReplicaAssignment,
                      "The manual partition assignment includes the broker " +
                          std::to_string(node) + " more than once."};
    }
  }
  return std::nullopt;
}

asio::awaitable<ApiError> grow(Broker& broker, const CreatePartitionsRequest::Topic& t,
                               bool validate_only) {
  if (broker.in_cluster()) {
    // Placed over the live brokers; the view brings the logs (not under admin_lock:
    // applying the view takes it).
    const std::optional<TopicInfo> info = broker.topics().get(t.name);
    if (!info) co_return ApiError{kafka_error::kUnknownTopicOrPartition, std::nullopt};
    if (t.assignments) {
      co_return ApiError{kafka_error::kInvalidReplicaAssignment,
                         std::string("Manual assignments of new partitions are not taken in a cluster yet.")};
    }
    if (auto bad = check(broker, t, *info)) co_return *bad;
    if (validate_only) co_return ApiError{};
    if (auto r = co_await broker.add_partitions_in_cluster(t.name, t.count); !r) {
      co_return ApiError{r.error().first, r.error().second};
    }
    co_return ApiError{};
  }
  auto guard = co_await broker.admin_lock().lock();
  const std::optional<TopicInfo> info = broker.topics().get(t.name);
  if (!info) co_return ApiError{kafka_error::kUnknownTopicOrPartition, std::nullopt};
  if (auto bad = check(broker, t, *info)) co_return *bad;
  if (validate_only) co_return ApiError{};
  if (auto r = co_await broker.add_partitions(*info, t.count); !r) {
    co_return ApiError{r.error().first, r.error().second};
  }
  spdlog::info("topic {}: partitions {} -> {}", t.name, info->partitions, t.count);
  co_return ApiError{};
}

}  // namespace

asio::awaitable<CreatePartitionsResponse> handle_create_partitions(
    Broker& broker, RequestContext& ctx, CreatePartitionsRequest& request) {
  CreatePartitionsResponse response;
  std::set<std::string> seen, dups;
  for (const auto& t : request.topics) {
    if (!seen.insert(t.name).second) dups.insert(t.name);
  }
  for (const auto& t : request.topics) {
    ApiError err;
    if (dups.count(t.name)) {
      err = {kafka_error::kInvalidRequest, "Duplicate topic name."};
    } else if (!authorized(broker, ctx, AclOperation::kAlter, ResourceType::kTopic, t.name)) {
      err = {kafka_error::kTopicAuthorizationFailed, std::nullopt};  // Kafka's check: ALTER on the topic
    } else {
      err = co_await grow(broker, t, request.validate_only);
    }
    CreatePartitionsResponse::Result out;
    out.name = t.name;
    out.error_code = err.code;
    out.error_message = err.message;
    response.results.push_back(std::move(out));
  }
  co_return response;
}

}  // namespace strata::broker

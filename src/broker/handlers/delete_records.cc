// DeleteRecords: moves each partition's log start offset forward on its owner shard
// (offset -1: to the high watermark, which on a single node is the log end); whole
// segments below it go at once. Answers the log start offset as the low watermark (it
// never moves back: asking for less than it answers it unchanged).
// Errors: UNKNOWN_TOPIC_OR_PARTITION, POLICY_VIOLATION (cleanup.policy without delete),
// OFFSET_OUT_OF_RANGE (a negative offset, or one past the log end), KAFKA_STORAGE_ERROR.
#include <algorithm>

#include "broker/handlers/authorize.h"
#include "broker/config_admin.h"
#include "broker/errors.h"
#include "broker/handlers/handlers.h"
#include "broker/partitions.h"

namespace strata::broker {

using protocol::DeleteRecordsRequest;
using protocol::DeleteRecordsResponse;

namespace {

constexpr int64_t kHighWatermark = -1;
constexpr int64_t kInvalidLowWatermark = -1;

// Runs on the partition's owner shard. As Kafka's Partition.deleteRecordsOnLeader.
DeleteRecordsResponse::Partition delete_before(storage::Log& log, int64_t offset) {
  DeleteRecordsResponse::Partition out;
  out.low_watermark = kInvalidLowWatermark;
  const std::vector<std::string> policy = split_list(log.config().cleanup_policy);
  if (std::find(policy.begin(), policy.end(), "delete") == policy.end()) {
    out.error_code = kafka_error::kPolicyViolation;
    return out;
  }
  const int64_t hw = log.high_watermark().value();
  const int64_t target = offset == kHighWatermark ? hw : offset;
  if (target < 0 || target > hw) {  // Kafka: not past the high watermark
    out.error_code = kafka_error::kOffsetOutOfRange;
    return out;
  }
  if (auto r = log.advance_log_start_offset(Offset(target), now_ms()); !r) {
    out.error_code = code_of(kafka_error_of(r.error()));
    return out;
  }
  out.low_watermark = log.log_start_offset().value();
  return out;
}

}  // namespace

asio::awaitable<DeleteRecordsResponse> handle_delete_records(Broker& broker, RequestContext& ctx,
                                                             DeleteRecordsRequest& request) {
  std::vector<PartitionRef> refs;
  std::vector<int64_t> offsets;
  for (const auto& topic : request.topics) {
    // Kafka's check: DELETE on the topic, else TOPIC_AUTHORIZATION_FAILED.
    const bool ok = authorized(broker, ctx, AclOperation::kDelete, ResourceType::kTopic, topic.name);
    for (const auto& p : topic.partitions) {
      refs.push_back(resolve_partition(broker, *ctx.metadata, topic.name, p.partition_index));
      if (!ok) refs.back().error = kafka_error::kTopicAuthorizationFailed;
      offsets.push_back(p.offset);
    }
  }
  std::vector<DeleteRecordsResponse::Partition> answers(refs.size());
  co_await for_each_log(broker, refs, [&answers, &offsets](size_t i, storage::Log* log) {
    if (log != nullptr) {
      answers[i] = delete_before(*log, offsets[i]);
      return;
    }
    answers[i].error_code = kafka_error::kUnknownTopicOrPartition;
    answers[i].low_watermark = kInvalidLowWatermark;
  });
  DeleteRecordsResponse response;
  size_t at = 0;
  for (const auto& topic : request.topics) {
    DeleteRecordsResponse::Topic tr;
    tr.name = topic.name;
    for (const auto& p : topic.partitions) {
      DeleteRecordsResponse::Partition pr = answers[at];
      if (refs[at].error != 0) {
        pr.error_code = refs[at].error;
        pr.low_watermark = kInvalidLowWatermark;
      }
      pr.partition_index = p.partition_index;
      tr.partitions.push_back(pr);
      ++at;
    }
    response.topics.push_back(std::move(tr));
  }
  co_return response;
}

}  // namespace strata::broker

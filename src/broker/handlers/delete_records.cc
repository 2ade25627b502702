// DeleteRecords: moves each partition's log start offset forward on its owner shard
// (offset -1: to the high watermark, which on a single node is the log end); whole
// segments below it go at once. Answers the log start offset as the low watermark (it
// never moves back: asking for less than it answers it unchanged).
// Errors: UNKNOWN_TOPIC_OR_PARTITION, POLICY_VIOLATION (cleanup.policy without delete),
// OFFSET_OUT_OF_RANGE (a negative offset, or one past the log end), KAFKA_STORAGE_ERROR.
#include <algorithm>

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
  const int64_t target = offset == kHighWatermark ? log.log_end_offset().value() : offset;
  if (target < 0) {
    out.error_code = kafka_error::kOffsetOutOfRange;
    return out;
  }
  if (auto r = log.advance_log_start_offset(Offset(target), now_ms()); !r) {
    out.error_code = kafka_error_of(r.error());
    return out;
  }
  out.low_watermark = log.log_start_offset().value();
  return out;
}

}  // namespace

asio::awaitable<DeleteRecordsResponse> handle_delete_records(Broker& broker, RequestContext&,
                                                             DeleteRecordsRequest& request) {
  DeleteRecordsResponse response;
  for (const auto& topic : request.topics) {
    DeleteRecordsResponse::Topic tr;
    tr.name = topic.name;
    for (const auto& p : topic.partitions) {
      DeleteRecordsResponse::Partition pr;
      Lookup found = find_partition(broker, topic.name, p.partition_index, false);
      if (!found.ref) {
        pr.error_code = found.error;
        pr.low_watermark = kInvalidLowWatermark;
      } else {
        // Looked up again on the owner shard: a concurrent DeleteTopics removes it there.
        // Captures references and pointers only, as Broker::on_shard requires.
        pr = co_await broker.on_shard(found.ref->shard,
                                      [&broker, tp = &found.ref->tp, offset = p.offset] {
                                        storage::Log* log = broker.logs().get(*tp);
                                        if (log != nullptr) return delete_before(*log, offset);
                                        DeleteRecordsResponse::Partition gone;
                                        gone.error_code = kafka_error::kUnknownTopicOrPartition;
                                        gone.low_watermark = kInvalidLowWatermark;
                                        return gone;
                                      });
      }
      pr.partition_index = p.partition_index;
      tr.partitions.push_back(pr);
    }
    response.topics.push_back(std::move(tr));
  }
  co_return response;
}

}  // namespace strata::broker

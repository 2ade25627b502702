// ListOffsets: earliest (-2), latest (-1), max timestamp (-3, KIP-734), earliest local
// (-4, the same here) and the first offset at or after a timestamp. read_committed
// (v2+ isolation level 1) answers latest with the last stable offset and hides
// timestamp matches at or past it, as Kafka does.
// Errors: UNKNOWN_TOPIC_OR_PARTITION, KAFKA_STORAGE_ERROR.
#include "broker/errors.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/partitions.h"

namespace strata::broker {

using protocol::ListOffsetsRequest;
using protocol::ListOffsetsResponse;

namespace {
constexpr int64_t kLatest = -1, kEarliest = -2, kMaxTimestamp = -3, kEarliestLocal = -4;

ListOffsetsResponse::Partition lookup(storage::Log* log, int64_t ts, bool committed) {
  ListOffsetsResponse::Partition out;
  out.leader_epoch = 0;
  int64_t fetchable = log->high_watermark().value();  // what a consumer may read
  if (committed) {
    if (auto unstable = log->first_unstable_offset()) fetchable = std::min(fetchable, unstable->value());
  }
  if (ts == kEarliest || ts == kEarliestLocal) {
    out.offset = log->log_start_offset().value();
  } else if (ts == kLatest) {
    out.offset = fetchable;
  } else if (ts == kMaxTimestamp) {
    if (auto max = log->max_timestamp_offset()) {
      out.offset = max->first.value();
      out.timestamp = max->second;
    }
  } else {
    auto found = log->offset_for_timestamp(ts);
    if (!found) {
      out.error_code = code_of(kafka_error_of(found.error()));
    } else if (*found && (*found)->first.value() < fetchable) {
      out.offset = (*found)->first.value();
      out.timestamp = (*found)->second;
    }
  }
  return out;
}
}  // namespace

asio::awaitable<ListOffsetsResponse> handle_list_offsets(Broker& broker, RequestContext& ctx,
                                                         ListOffsetsRequest& request) {
  std::vector<PartitionRef> refs;
  for (const auto& topic : request.topics) {
    // Kafka's check: DESCRIBE on the topic, else TOPIC_AUTHORIZATION_FAILED.
    const bool ok = authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kTopic, topic.name);
    for (const auto& p : topic.partitions) {
      refs.push_back(resolve_partition(broker, *ctx.metadata, topic.name, p.partition_index));
      if (!ok) refs.back().error = kafka_error::kTopicAuthorizationFailed;
    }
  }
  std::vector<ListOffsetsResponse::Partition> answers(refs.size());
  std::vector<int64_t> timestamps;
  for (const auto& topic : request.topics) {
    for (const auto& p : topic.partitions) timestamps.push_back(p.timestamp);
  }
  const bool committed = request.isolation_level == 1;
  co_await for_each_log(broker, refs, [&answers, &timestamps, committed](size_t i, storage::Log* log) {
    if (log == nullptr) {
      answers[i].error_code = kafka_error::kUnknownTopicOrPartition;
      return;
    }
    answers[i] = lookup(log, timestamps[i], committed);
  });
  ListOffsetsResponse r;
  size_t at = 0;
  for (const auto& topic : request.topics) {
    ListOffsetsResponse::Topic tr;
    tr.name = topic.name;
    for (const auto& p : topic.partitions) {
      ListOffsetsResponse::Partition pr = std::move(answers[at]);
      if (refs[at].error != 0) pr.error_code = refs[at].error;
      if (ctx.header.api_version == 0 && pr.error_code == 0 && pr.offset >= 0) {
        pr.old_style_offsets = {pr.offset};
      }
      pr.partition_index = p.partition_index;
      tr.partitions.push_back(std::move(pr));
      ++at;
    }
    r.topics.push_back(std::move(tr));
  }
  co_return r;
}

}  // namespace strata::broker

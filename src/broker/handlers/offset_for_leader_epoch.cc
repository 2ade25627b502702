// OffsetForLeaderEpoch: the end offset of a leader epoch, from the partition's leader
// epoch cache (storage::Log::epochs) as Kafka's LeaderEpochFileCache.endOffsetFor
// answers it: the leader's current epoch ends at the log end; an older one at the start
// of the next; -1 or an epoch past every known one is unknown (-1, -1); one before the
// first known gets (it, the first start). Strata's leader epoch is always 0 (what
// Metadata reports); a current_leader_epoch other than -1 (none) is checked against it.
// Errors: UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH (theirs is older),
// UNKNOWN_LEADER_EPOCH (theirs is newer).
#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "broker/errors.h"
#include "broker/handlers/handlers.h"
#include "broker/partitions.h"
#include "storage/checkpoint.h"

namespace strata::broker {

using protocol::OffsetForLeaderEpochRequest;
using protocol::OffsetForLeaderEpochResponse;

namespace {

constexpr int32_t kLeaderEpoch = 0;
constexpr int32_t kUndefinedEpoch = -1;
constexpr int64_t kUndefinedEpochOffset = -1;

using EpochEndOffset = OffsetForLeaderEpochResponse::EpochEndOffset;

int16_t check_current_epoch(int32_t current) {
  if (current == kUndefinedEpoch) return kafka_error::kNone;
  if (current < kLeaderEpoch) return kafka_error::kFencedLeaderEpoch;
  if (current > kLeaderEpoch) return kafka_error::kUnknownLeaderEpoch;
  return kafka_error::kNone;
}

// `epochs`: start offsets of the epochs, ascending. Returns (epoch, end offset).
std::pair<int32_t, int64_t> end_offset_for(std::vector<storage::EpochEntry> epochs,
                                           int32_t requested, int64_t log_end) {
  // A leader's cache always holds its own epoch (Kafka assigns it the log end when
  // leadership begins); here it appears with the first batch written in it.
  if (epochs.empty() || epochs.back().epoch.value() < kLeaderEpoch) {
    epochs.push_back({LeaderEpoch(kLeaderEpoch), Offset(log_end)});
  }
  if (requested == kUndefinedEpoch) return {kUndefinedEpoch, kUndefinedEpochOffset};
  if (epochs.back().epoch.value() == requested) return {requested, log_end};
  auto higher =
      std::upper_bound(epochs.begin(), epochs.end(), requested,
                       [](int32_t r, const storage::EpochEntry& e) { return r < e.epoch.value(); });
  if (higher == epochs.end()) return {kUndefinedEpoch, kUndefinedEpochOffset};
  if (higher == epochs.begin()) return {requested, higher->start_offset.value()};
  return {std::prev(higher)->epoch.value(), higher->start_offset.value()};
}

// Runs on the partition's owner shard.
EpochEndOffset end_of_epoch(const storage::Log& log, int32_t epoch) {
  EpochEndOffset out;
  std::tie(out.leader_epoch, out.end_offset) =
      end_offset_for(log.epochs(), epoch, log.log_end_offset().value());
  return out;
}

}  // namespace

asio::awaitable<OffsetForLeaderEpochResponse> handle_offset_for_leader_epoch(
    Broker& broker, RequestContext& ctx, OffsetForLeaderEpochRequest& request) {
  std::vector<PartitionRef> refs;
  std::vector<int32_t> epochs;
  for (const auto& topic : request.topics) {
    for (const auto& p : topic.partitions) {
      refs.push_back(resolve_partition(broker, *ctx.metadata, topic.topic, p.partition));
      if (refs.back().error == 0) {
        if (int16_t fenced = check_current_epoch(p.current_leader_epoch)) refs.back().error = fenced;
      }
      epochs.push_back(p.leader_epoch);
    }
  }
  std::vector<EpochEndOffset> answers(refs.size());
  co_await for_each_log(broker, refs, [&answers, &epochs](size_t i, storage::Log* log) {
    if (log != nullptr) {
      answers[i] = end_of_epoch(*log, epochs[i]);
    } else {
      answers[i].error_code = kafka_error::kUnknownTopicOrPartition;
    }
  });
  OffsetForLeaderEpochResponse response;
  size_t at = 0;
  for (const auto& topic : request.topics) {
    OffsetForLeaderEpochResponse::Topic tr;
    tr.topic = topic.topic;
    for (const auto& p : topic.partitions) {
      EpochEndOffset pr = answers[at];
      if (refs[at].error != 0) pr.error_code = refs[at].error;
      pr.partition = p.partition;
      tr.partitions.push_back(pr);
      ++at;
    }
    response.topics.push_back(std::move(tr));
  }
  co_return response;
}

}  // namespace strata::broker

// OffsetForLeaderEpoch: every batch here is written in leader epoch 0 and the epoch
// never changes, so the epoch cache Kafka would keep is the single entry (0, log start).
// As Kafka's LeaderEpochFileCache.endOffsetFor: epoch 0 ends at the log end offset; a
// later epoch or -1 is unknown (-1, -1); an epoch before 0 gets (it, the log start).
// A current_leader_epoch other than -1 (none) is checked against ours, 0.
// Errors: UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH (theirs is older),
// UNKNOWN_LEADER_EPOCH (theirs is newer).
#include "broker/errors.h"
#include "broker/handlers/handlers.h"
#include "broker/partitions.h"

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

// Runs on the partition's owner shard.
EpochEndOffset end_of_epoch(const storage::Log& log, int32_t epoch) {
  EpochEndOffset out;
  if (epoch == kLeaderEpoch) {
    out.leader_epoch = kLeaderEpoch;
    out.end_offset = log.log_end_offset().value();
  } else if (epoch < kUndefinedEpoch) {
    out.leader_epoch = epoch;
    out.end_offset = log.log_start_offset().value();
  } else {
    out.leader_epoch = kUndefinedEpoch;
    out.end_offset = kUndefinedEpochOffset;
  }
  return out;
}

}  // namespace

asio::awaitable<OffsetForLeaderEpochResponse> handle_offset_for_leader_epoch(
    Broker& broker, RequestContext&, OffsetForLeaderEpochRequest& request) {
  OffsetForLeaderEpochResponse response;
  for (const auto& topic : request.topics) {
    OffsetForLeaderEpochResponse::Topic tr;
    tr.topic = topic.topic;
    for (const auto& p : topic.partitions) {
      EpochEndOffset pr;
      Lookup found = find_partition(broker, topic.topic, p.partition, false);
      if (!found.ref) {
        pr.error_code = found.error;
      } else if (int16_t fenced = check_current_epoch(p.current_leader_epoch)) {
        pr.error_code = fenced;
      } else {
        // Looked up again on the owner shard: a concurrent DeleteTopics removes it there.
        // Captures references and pointers only, as Broker::on_shard requires.
        pr = co_await broker.on_shard(found.ref->shard,
                                      [&broker, tp = &found.ref->tp, epoch = p.leader_epoch] {
                                        const storage::Log* log = broker.logs().get(*tp);
                                        if (log != nullptr) return end_of_epoch(*log, epoch);
                                        EpochEndOffset gone;
                                        gone.error_code = kafka_error::kUnknownTopicOrPartition;
                                        return gone;
                                      });
      }
      pr.partition = p.partition;
      tr.partitions.push_back(pr);
    }
    response.topics.push_back(std::move(tr));
  }
  co_return response;
}

}  // namespace strata::broker

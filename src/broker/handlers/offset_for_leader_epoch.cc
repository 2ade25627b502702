// OffsetForLeaderEpoch: the end offset of a leader epoch, from the partition's leader
// epoch cache (storage::Log::epochs) as Kafka's LeaderEpochFileCache.endOffsetFor
// answers it: the leader's current epoch ends at the log end; an older one at the start
// of the next; -1 or an epoch past every known one is unknown (-1, -1); one before the
// first known gets (it, the first start) (broker/leader_epochs.h). A current_leader_epoch
// other than -1 (none) is checked against the partition's leader epoch (Metadata's).
// Errors: UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH (theirs is older),
// UNKNOWN_LEADER_EPOCH (theirs is newer).
#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "broker/errors.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/leader_epochs.h"
#include "broker/partitions.h"
#include "storage/checkpoint.h"

namespace strata::broker {

using protocol::OffsetForLeaderEpochRequest;
using protocol::OffsetForLeaderEpochResponse;

namespace {

using EpochEndOffset = OffsetForLeaderEpochResponse::EpochEndOffset;

// Runs on the partition's owner shard.
EpochEndOffset end_of_epoch(const storage::Log& log, int32_t epoch, int32_t current) {
  EpochEndOffset out;
  std::tie(out.leader_epoch, out.end_offset) =
      end_offset_for(log.epochs(), epoch, log.log_end_offset().value(), current);
  return out;
}

}  // namespace

asio::awaitable<OffsetForLeaderEpochResponse> handle_offset_for_leader_epoch(
    Broker& broker, RequestContext& ctx, OffsetForLeaderEpochRequest& request) {
  std::vector<PartitionRef> refs;
  std::vector<int32_t> epochs, currents;
  // Kafka's checks: a follower (replica_id >= 0) needs CLUSTER_ACTION on the cluster, a
  // consumer DESCRIBE on the topic; TOPIC_AUTHORIZATION_FAILED otherwise.
  const bool follower = request.replica_id >= 0;
  const bool cluster_ok = follower && cluster_authorized(broker, ctx, AclOperation::kClusterAction);
  for (const auto& topic : request.topics) {
    const bool ok = follower ? cluster_ok
                             : authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kTopic, topic.topic);
    for (const auto& p : topic.partitions) {
      refs.push_back(resolve_partition(broker, *ctx.metadata, topic.topic, p.partition));
      if (!ok) {
        refs.back().error = kafka_error::kTopicAuthorizationFailed;
        epochs.push_back(p.leader_epoch);
        currents.push_back(kUndefinedEpoch);
        continue;
      }
      int32_t ours = kUndefinedEpoch;
      if (refs.back().error == 0) {
        ours = refs.back().meta->partitions[size_t(p.partition)].leader_epoch;
        if (int16_t fenced = check_current_epoch(p.current_leader_epoch, ours)) refs.back().error = fenced;
      }
      epochs.push_back(p.leader_epoch);
      currents.push_back(ours);
    }
  }
  std::vector<EpochEndOffset> answers(refs.size());
  co_await for_each_log(broker, refs, [&answers, &epochs, &currents](size_t i, storage::Log* log) {
    if (log != nullptr) {
      answers[i] = end_of_epoch(*log, epochs[i], currents[i]);
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

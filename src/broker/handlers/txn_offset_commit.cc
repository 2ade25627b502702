// TxnOffsetCommit: a transactional producer's offsets for a consumer group, written to
// the group's __consumer_offsets partition in the producer's transaction and visible
// once it commits (group::GroupCoordinator::txn_commit).
// Errors: COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
// FENCED_INSTANCE_ID, OFFSET_METADATA_TOO_LARGE, UNKNOWN_TOPIC_OR_PARTITION; producer
// errors from the partition (INVALID_PRODUCER_EPOCH / PRODUCER_FENCED).
// v5 (KIP-890 transaction version 2) is served as v4: the client has added the group's
// partition with AddOffsetsToTxn, as transaction version 1 does.
#include "broker/handlers/authorize.h"
#include "broker/handlers/group_common.h"
#include "broker/handlers/txn_common.h"

namespace strata::broker {

using namespace protocol;

asio::awaitable<TxnOffsetCommitResponse> handle_txn_offset_commit(Broker& broker, RequestContext& ctx,
                                                                  TxnOffsetCommitRequest& request) {
  TxnOffsetCommitResponse r;
  const bool coordinator = (co_await broker.ensure_offsets_topic());
  const KafkaError here = coordinator ? coordinator_error(broker, ctx, request.group_id) : KafkaError::kNone;
  // Kafka's checks: WRITE on the transactional id, READ on the group, READ on each topic.
  const int16_t denied =
      !authorized(broker, ctx, AclOperation::kWrite, ResourceType::kTransactionalId, request.transactional_id)
          ? kafka_error::kTransactionalIdAuthorizationFailed
      : !authorized(broker, ctx, AclOperation::kRead, ResourceType::kGroup, request.group_id)
          ? kafka_error::kGroupAuthorizationFailed
          : int16_t(0);
  group::TxnCommitRequest commit;
  commit.group_id = request.group_id;
  commit.producer_id = request.producer_id;
  commit.producer_epoch = request.producer_epoch;
  commit.generation = request.generation_id;
  commit.member_id = request.member_id;
  commit.group_instance_id = request.group_instance_id;
  // Slots of the response, in request order; unknown partitions are answered here.
  std::vector<int16_t*> slots;
  for (const auto& t : request.topics) {
    TxnOffsetCommitResponse::Topic rt;
    rt.name = t.name;
    for (const auto& p : t.partitions) {
      int16_t e = 0;
      if (denied != 0) {
        e = denied;
      } else if (!authorized(broker, ctx, AclOperation::kRead, ResourceType::kTopic, t.name)) {
        e = kafka_error::kTopicAuthorizationFailed;
      } else if (!coordinator) {
        e = kafka_error::kCoordinatorNotAvailable;
      } else if (here != KafkaError::kNone) {
        e = code_of(here);  // in a cluster, another broker leads the group's partition, or it loads
      } else if (!partition_exists(broker, t.name, p.partition_index)) {
        e = kafka_error::kUnknownTopicOrPartition;
      }
      rt.partitions.push_back({p.partition_index, e});
      if (e != 0) continue;
      commit.partitions.push_back({t.name, p.partition_index, p.committed_offset,
                                   p.committed_leader_epoch, p.committed_metadata.value_or(""), -1});
    }
    r.topics.push_back(std::move(rt));
  }
  for (auto& t : r.topics) {
    for (auto& p : t.partitions) {
      if (p.error_code == 0) slots.push_back(&p.error_code);
    }
  }
  if (commit.partitions.empty()) co_return r;
  group::GroupCoordinator& c = broker.groups();
  std::vector<KafkaError> errors = co_await broker.on_shard_async<std::vector<KafkaError>>(
      broker.group_shard(request.group_id),
      [&c, &commit](std::function<void(std::vector<KafkaError>)> done) {
        c.txn_commit(std::move(commit), std::move(done));
      });
  for (size_t i = 0; i < slots.size() && i < errors.size(); ++i) {
    *slots[i] = fenced_for_version(errors[i], ctx.header.api_version, 3);
  }
  co_return r;
}

}  // namespace strata::broker

// InitProducerId (transactional), AddPartitionsToTxn, AddOffsetsToTxn and EndTxn: the
// transactional producer's requests to its coordinator, run by txn::TxnCoordinator on
// the shard owning the transactional id's __transaction_state partition.
// Errors (from the coordinator): INVALID_REQUEST, INVALID_TRANSACTION_TIMEOUT,
// CONCURRENT_TRANSACTIONS, INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED (or
// INVALID_PRODUCER_EPOCH for old versions), INVALID_TXN_STATE,
// COORDINATOR_NOT_AVAILABLE (no __transaction_state, or a failed write); here:
// NOT_COORDINATOR (in a cluster, another broker leads the id's partition),
// UNKNOWN_TOPIC_OR_PARTITION for partitions that do not exist, with
// OPERATION_NOT_ATTEMPTED for the rest of the request.
#include <algorithm>

#include "broker/handlers/authorize.h"
#include "broker/handlers/txn_common.h"
#include "group/records.h"

namespace strata::broker {

using namespace protocol;

namespace {

using TopicParts = std::vector<txn::TxnTopicPartitions>;

asio::awaitable<KafkaError> add_to_txn(Broker& broker, const std::string& id, int64_t pid,
                                       int16_t epoch, const TopicParts& parts) {
  txn::TxnCoordinator& c = broker.txns();
  co_return co_await broker.on_shard_async<KafkaError>(
      broker.txn_shard(id), [&c, &id, pid, epoch, &parts](std::function<void(KafkaError)> done) {
        c.add_partitions(id, pid, epoch, parts, std::move(done));
      });
}

// The topics of an AddPartitionsToTxn transaction, checked: nullopt if some partition
// does not exist (those get UNKNOWN_TOPIC_OR_PARTITION, the others
// OPERATION_NOT_ATTEMPTED, as Kafka answers).
std::optional<TopicParts> known_partitions(Broker& broker,
                                           const std::vector<AddPartitionsToTxnRequest::Topic>& topics) {
  TopicParts out;
  bool all = true;
  for (const auto& t : topics) {
    auto info = broker.topics().get(t.name);
    for (int32_t p : t.partitions) all &= info && p >= 0 && p < info->partitions;
    out.push_back({t.name, t.partitions});
  }
  if (!all) return std::nullopt;
  return out;
}

std::vector<AddPartitionsToTxnResponse::TopicResult> results(
    Broker& broker, const std::vector<AddPartitionsToTxnRequest::Topic>& topics,
    std::optional<int16_t> all) {
  std::vector<AddPartitionsToTxnResponse::TopicResult> out;
  for (const auto& t : topics) {
    AddPartitionsToTxnResponse::TopicResult tr;
    tr.name = t.name;
    auto info = broker.topics().get(t.name);
    for (int32_t p : t.partitions) {
      int16_t e = kafka_error::kOperationNotAttempted;
      if (all) {
        e = *all;
      } else if (!(info && p >= 0 && p < info->partitions)) {
        e = kafka_error::kUnknownTopicOrPartition;
      }
      tr.results_by_partition.push_back({p, e});
    }
    out.push_back(std::move(tr));
  }
  return out;
}

// The answer when some topic is not writable: nullopt when all are.
std::optional<std::vector<AddPartitionsToTxnResponse::TopicResult>> topics_denied(
    Broker& broker, const RequestContext& ctx, const std::vector<AddPartitionsToTxnRequest::Topic>& topics) {
  std::vector<bool> denied;
  for (const auto& t : topics) {
    denied.push_back(!authorized(broker, ctx, AclOperation::kWrite, ResourceType::kTopic, t.name));
  }
  if (std::find(denied.begin(), denied.end(), true) == denied.end()) return std::nullopt;
  auto out = results(broker, topics, kafka_error::kOperationNotAttempted);
  for (size_t i = 0; i < out.size(); ++i) {
    if (!denied[i]) continue;
    for (auto& p : out[i].results_by_partition) p.partition_error_code = kafka_error::kTopicAuthorizationFailed;
  }
  return out;
}

asio::awaitable<std::vector<AddPartitionsToTxnResponse::TopicResult>> add_one(
    Broker& broker, const RequestContext& ctx, const std::string& id, int64_t pid, int16_t epoch, bool verify_only,
    const std::vector<AddPartitionsToTxnRequest::Topic>& topics, int16_t version) {
  // Kafka's checks: WRITE on the transactional id, else every partition
  // TRANSACTIONAL_ID_AUTHORIZATION_FAILED; WRITE on each topic, else its partitions
  // TOPIC_AUTHORIZATION_FAILED and the others OPERATION_NOT_ATTEMPTED.
  if (!authorized(broker, ctx, AclOperation::kWrite, ResourceType::kTransactionalId, id)) {
    co_return results(broker, topics, kafka_error::kTransactionalIdAuthorizationFailed);
  }
  if (auto denied = topics_denied(broker, ctx, topics)) co_return *denied;
  if (!(co_await broker.ensure_txn_topic())) co_return results(broker, topics, kafka_error::kCoordinatorNotAvailable);
  if (const KafkaError here = txn_coordinator_error(broker, ctx, id); here != KafkaError::kNone) {
    co_return results(broker, topics, code_of(here));
  }
  if (verify_only) {
    txn::TxnCoordinator& c = broker.txns();
    std::vector<AddPartitionsToTxnResponse::TopicResult> out = results(broker, topics, 0);
    co_await broker.on_shard(broker.txn_shard(id), [&c, &id, pid, epoch, &out] {
      for (auto& t : out) {
        for (auto& p : t.results_by_partition) {
          p.partition_error_code = code_of(c.verify(id, pid, epoch, t.name, p.partition_index));
        }
      }
      return 0;
    });
    co_return out;
  }
  auto parts = known_partitions(broker, topics);
  if (!parts) co_return results(broker, topics, std::nullopt);
  const KafkaError e = co_await add_to_txn(broker, id, pid, epoch, *parts);
  co_return results(broker, topics, fenced_for_version(e, version, 2));
}

}  // namespace

asio::awaitable<InitProducerIdResponse> handle_transactional_init(Broker& broker, RequestContext& ctx,
                                                                  InitProducerIdRequest& request) {
  InitProducerIdResponse r;
  if (!(co_await broker.ensure_txn_topic())) {
    r.error_code = kafka_error::kCoordinatorNotAvailable;
    co_return r;
  }
  if (const KafkaError here = txn_coordinator_error(broker, ctx, *request.transactional_id); here != KafkaError::kNone) {
    r.error_code = code_of(here);
    co_return r;
  }
  txn::InitPidRequest init{*request.transactional_id, request.transaction_timeout_ms,
                           request.producer_id, request.producer_epoch};
  txn::TxnCoordinator& c = broker.txns();
  txn::PidAndEpoch got = co_await broker.on_shard_async<txn::PidAndEpoch>(
      broker.txn_shard(init.transactional_id), [&c, &init](std::function<void(txn::PidAndEpoch)> done) {
        c.init_producer_id(init, std::move(done));
      });
  r.error_code = fenced_for_version(got.error, ctx.header.api_version, 4);
  r.producer_id = got.producer_id;
  r.producer_epoch = got.producer_epoch;
  co_return r;
}

asio::awaitable<AddPartitionsToTxnResponse> handle_add_partitions_to_txn(
    Broker& broker, RequestContext& ctx, AddPartitionsToTxnRequest& request) {
  AddPartitionsToTxnResponse r;
  const int16_t version = ctx.header.api_version;
  if (version <= 3) {
    r.results_by_topic_v3_and_below =
        co_await add_one(broker, ctx, request.v3_and_below_transactional_id,
                         request.v3_and_below_producer_id, request.v3_and_below_producer_epoch,
                         false, request.v3_and_below_topics, version);
    co_return r;
  }
  for (const auto& t : request.transactions) {
    AddPartitionsToTxnResponse::TransactionResult tr;
    tr.transactional_id = t.transactional_id;
    tr.topic_results = co_await add_one(broker, ctx, t.transactional_id, t.producer_id,
                                        t.producer_epoch, t.verify_only, t.topics, version);
    r.results_by_transaction.push_back(std::move(tr));
  }
  co_return r;
}

// The group's __consumer_offsets partition joins the transaction, so that its marker
// commits or drops the offsets TxnOffsetCommit writes there.
asio::awaitable<AddOffsetsToTxnResponse> handle_add_offsets_to_txn(Broker& broker, RequestContext& ctx,
                                                                   AddOffsetsToTxnRequest& request) {
  AddOffsetsToTxnResponse r;
  // Kafka's checks: WRITE on the transactional id, READ on the group.
  if (!authorized(broker, ctx, AclOperation::kWrite, ResourceType::kTransactionalId, request.transactional_id)) {
    r.error_code = kafka_error::kTransactionalIdAuthorizationFailed;
    co_return r;
  }
  if (!authorized(broker, ctx, AclOperation::kRead, ResourceType::kGroup, request.group_id)) {
    r.error_code = kafka_error::kGroupAuthorizationFailed;
    co_return r;
  }
  if (!(co_await broker.ensure_txn_topic()) || !(co_await broker.ensure_offsets_topic())) {
    r.error_code = kafka_error::kCoordinatorNotAvailable;
    co_return r;
  }
  if (const KafkaError here = txn_coordinator_error(broker, ctx, request.transactional_id); here != KafkaError::kNone) {
    r.error_code = code_of(here);
    co_return r;
  }
  const TopicParts parts = {
      {group::kOffsetsTopic, {broker.groups().partition_for(request.group_id)}}};
  const KafkaError e = co_await add_to_txn(broker, request.transactional_id,
                                           request.producer_id, request.producer_epoch, parts);
  r.error_code = fenced_for_version(e, ctx.header.api_version, 2);
  co_return r;
}

// EndTxn v5+ is KIP-890's transaction version 2: the epoch is bumped and returned.
asio::awaitable<EndTxnResponse> handle_end_txn(Broker& broker, RequestContext& ctx,
                                               EndTxnRequest& request) {
  EndTxnResponse r;
  // Kafka's check: WRITE on the transactional id.
  if (!authorized(broker, ctx, AclOperation::kWrite, ResourceType::kTransactionalId, request.transactional_id)) {
    r.error_code = kafka_error::kTransactionalIdAuthorizationFailed;
    co_return r;
  }
  if (!(co_await broker.ensure_txn_topic())) {
    r.error_code = kafka_error::kCoordinatorNotAvailable;
    co_return r;
  }
  if (const KafkaError here = txn_coordinator_error(broker, ctx, request.transactional_id); here != KafkaError::kNone) {
    r.error_code = code_of(here);
    co_return r;
  }
  const bool bump = ctx.header.api_version >= 5;
  txn::TxnCoordinator& c = broker.txns();
  txn::PidAndEpoch got = co_await broker.on_shard_async<txn::PidAndEpoch>(
      broker.txn_shard(request.transactional_id),
      [&c, &request, bump](std::function<void(txn::PidAndEpoch)> done) {
        c.end_txn(request.transactional_id, request.producer_id, request.producer_epoch,
                  request.committed, bump, std::move(done));
      });
  r.error_code = fenced_for_version(got.error, ctx.header.api_version, 2);
  if (bump) {
    r.producer_id = got.producer_id;
    r.producer_epoch = got.producer_epoch;
  }
  co_return r;
}

}  // namespace strata::broker

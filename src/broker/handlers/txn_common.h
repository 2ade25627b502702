// What the transaction handlers share.
#pragma once

#include "broker/errors.h"
#include "broker/handlers/handlers.h"
#include "txn/errors.h"

namespace strata::broker {

// KIP-588: PRODUCER_FENCED is answered only from the versions that know it
// (InitProducerId v4, AddPartitionsToTxn v2, AddOffsetsToTxn v2, EndTxn v2,
// TxnOffsetCommit v3); older ones get INVALID_PRODUCER_EPOCH, as Kafka's responses map it.
// Returns the wire code.
inline int16_t fenced_for_version(KafkaError error, int16_t version, int16_t knows_fenced_from) {
  if (error == txn::errc::kProducerFenced && version < knows_fenced_from) {
    return code_of(txn::errc::kInvalidProducerEpoch);
  }
  return code_of(error);
}

}  // namespace strata::broker

namespace strata::broker {

// The leader of the transactional id's __transaction_state partition in `snapshot`: its
// coordinator (-1 if the topic or a leader is missing). On the single node, this node.
inline int32_t txn_coordinator(Broker& broker, const MetadataSnapshot& snapshot, const std::string& id) {
  if (!broker.in_cluster()) return broker.config().node_id;
  return snapshot.leader(txn::kTransactionTopic, broker.txns().partition_for(id));
}

// kNone if this broker serves the transactional id now: on the single node always; in a
// cluster only the leader of its __transaction_state partition once it has loaded it
// (COORDINATOR_LOAD_IN_PROGRESS until then); NOT_COORDINATOR elsewhere, and the producer
// asks FindCoordinator again.
inline KafkaError txn_coordinator_error(Broker& broker, const RequestContext& ctx, const std::string& id) {
  return broker.coordinator_status(CoordinatorKind::kTxns, broker.txns().partition_for(id), *ctx.metadata);
}

// InitProducerId with a transactional id (handlers/txn_coordinator.cc).
asio::awaitable<protocol::InitProducerIdResponse> handle_transactional_init(
    Broker& broker, RequestContext& ctx, protocol::InitProducerIdRequest& request);

}  // namespace strata::broker

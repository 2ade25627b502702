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

// InitProducerId with a transactional id (handlers/txn_coordinator.cc).
asio::awaitable<protocol::InitProducerIdResponse> handle_transactional_init(
    Broker& broker, RequestContext& ctx, protocol::InitProducerIdRequest& request);

}  // namespace strata::broker

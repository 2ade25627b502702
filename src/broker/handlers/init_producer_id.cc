// InitProducerId: a producer id for an idempotent producer (epoch 0, a fresh id on every
// call, as Kafka answers a request without a transactional id); with a transactional
// id, the transaction coordinator's answer (handlers/txn_coordinator.cc).
// Errors: COORDINATOR_LOAD_IN_PROGRESS (retriable) if no id block could be reserved.
#include <spdlog/spdlog.h>

#include "broker/errors.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/txn_common.h"
#include "common/log_limit.h"

namespace strata::broker {

using protocol::InitProducerIdRequest;
using protocol::InitProducerIdResponse;

asio::awaitable<InitProducerIdResponse> handle_init_producer_id(Broker& broker, RequestContext& ctx,
                                                                InitProducerIdRequest& request) {
  if (request.transactional_id && !request.transactional_id->empty()) {
    // Kafka's check: WRITE on the transactional id.
    if (!authorized(broker, ctx, AclOperation::kWrite, ResourceType::kTransactionalId,
                    *request.transactional_id)) {
      InitProducerIdResponse denied;
      denied.error_code = kafka_error::kTransactionalIdAuthorizationFailed;
      co_return denied;
    }
    co_return co_await handle_transactional_init(broker, ctx, request);
  }
  InitProducerIdResponse r;
  // Reserving a new block of ids fsyncs a file: on the blocking pool, not this event loop.
  auto id = co_await broker.blocking([&broker] { return broker.producer_ids().next(); });
  if (!id) {
    // No block could be reserved (the disk, or in a cluster etcd): Kafka's answer when
    // its producer-id manager has no block ready, which clients retry.
    static LogLimit limit("InitProducerId failed");
    limit.error("InitProducerId: {}", id.error());
    r.error_code = kafka_error::kCoordinatorLoadInProgress;
    co_return r;
  }
  r.producer_id = id->value();
  r.producer_epoch = 0;
  co_return r;
}

}  // namespace strata::broker

// InitProducerId: a producer id for an idempotent producer (epoch 0, a fresh id on every
// call, as Kafka answers a request without a transactional id).
// Errors: COORDINATOR_NOT_AVAILABLE for a transactional id (no transaction coordinator
// yet), UNKNOWN_SERVER_ERROR if no id could be reserved durably.
#include <spdlog/spdlog.h>

#include "broker/errors.h"
#include "broker/handlers/handlers.h"

namespace strata::broker {

using protocol::InitProducerIdRequest;
using protocol::InitProducerIdResponse;

asio::awaitable<InitProducerIdResponse> handle_init_producer_id(Broker& broker, RequestContext&,
                                                                InitProducerIdRequest& request) {
  InitProducerIdResponse r;
  if (request.transactional_id && !request.transactional_id->empty()) {
    r.error_code = 15;  // COORDINATOR_NOT_AVAILABLE
    co_return r;
  }
  auto id = broker.producer_ids().next();
  if (!id) {
    spdlog::error("InitProducerId: {}", id.error());
    r.error_code = kafka_error::kUnknownServerError;
    co_return r;
  }
  r.producer_id = id->value();
  r.producer_epoch = 0;
  co_return r;
}

}  // namespace strata::broker

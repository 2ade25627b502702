// One handler per API; each file declares its Kafka error mapping beside its code.
#pragma once

#include "broker/broker.h"
#include "protocol/apis/api_versions.h"

namespace strata::broker {

asio::awaitable<protocol::ApiVersionsResponse> handle_api_versions(
    Broker& broker, RequestContext& ctx, protocol::ApiVersionsRequest& request);

}  // namespace strata::broker

#include "broker/dispatch.h"
#include "broker/handlers/handlers.h"

namespace strata::broker {

asio::awaitable<protocol::ApiVersionsResponse> handle_api_versions(Broker&, RequestContext&,
                                                                   protocol::ApiVersionsRequest&) {
  protocol::ApiVersionsResponse r;
  for (const ApiEntry& e : api_table()) {
    r.api_keys.push_back({e.key, e.versions.min, e.versions.max});
  }
  co_return r;
}

}  // namespace strata::broker

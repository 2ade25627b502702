#include "broker/dispatch.h"

#include "broker/handlers/handlers.h"
#include "broker/serve.h"

namespace strata::broker {

namespace {

template <class Req, class Resp, Handler<Req, Resp> handler>
ApiEntry entry(const char* name) {
  return ApiEntry{Req::kApiKey, name, Req::kVersions, Req::kFlexibleFrom,
                  &serve<Req, Resp, handler>};
}

}  // namespace

const std::vector<ApiEntry>& api_table() {
  static const std::vector<ApiEntry> table = {
      entry<protocol::ApiVersionsRequest, protocol::ApiVersionsResponse, handle_api_versions>(
          "ApiVersions"),
  };
  return table;
}

const ApiEntry* find_api(int16_t key) {
  for (const ApiEntry& e : api_table()) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

}  // namespace strata::broker

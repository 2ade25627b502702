// The table of APIs this broker serves: key, versions and the handler. ApiVersions
// answers from this same table, so what is advertised is exactly what is served.
#pragma once

#include <asio.hpp>

#include <functional>
#include <optional>
#include <vector>

#include "protocol/message.h"
#include "protocol/output.h"

namespace strata::broker {

class Broker;
struct RequestContext;

using ServeFn = asio::awaitable<std::optional<protocol::Output>> (*)(Broker&, RequestContext&);

struct ApiEntry {
  int16_t key;
  const char* name;
  protocol::Versions versions;
  int16_t flexible_from;
  ServeFn serve;
};

const std::vector<ApiEntry>& api_table();
const ApiEntry* find_api(int16_t key);

// Decodes the request of `Api` at the header's version, runs `handler`, and encodes
// the response with the matching header. A request that does not parse closes the
// connection (Kafka's InvalidRequestException does the same).
template <class Req, class Resp>
using Handler = asio::awaitable<Resp> (*)(Broker&, RequestContext&, Req&);

}  // namespace strata::broker

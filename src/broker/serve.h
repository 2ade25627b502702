// serve<Req, Resp, handler>: the one decode -> handle -> encode path every API uses.
#pragma once

#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/dispatch.h"
#include "common/log_limit.h"
#include "protocol/headers.h"
#include "protocol/message.h"

namespace strata::broker {

template <class Req, class Resp, Handler<Req, Resp> handler>
asio::awaitable<std::optional<protocol::Output>> serve(Broker& broker, RequestContext& ctx) {
  const int16_t version = ctx.header.api_version;
  const bool flexible = version >= Req::kFlexibleFrom;
  // Kafka's per-connection order: nothing of this request takes effect before every
  // earlier request of its connection has posted its effects (net/request_order.h).
  co_await ctx.turn.acquire();
  Req request;
  auto& frame = const_cast<net::Frame&>(ctx.frame);  // writable: records are stamped in place
  protocol::Decoder decoder(frame.bytes, ctx.header.size, version, flexible);
  decoder.decode(request);
  if (!decoder.ok()) {
    static LogLimit limit("closing: malformed request");  // one per API
    limit.warn("closing {}: malformed {} v{} request (correlation id {})",
               ctx.frame.client_address, int(Req::kApiKey), version, ctx.header.correlation_id);
    co_return std::nullopt;
  }
  Resp response = co_await handler(broker, ctx, request);
  ctx.turn.release();
  protocol::Output out;
  if constexpr (requires { request.acks; }) {
    // acks=0: the producer expects no response. An error can only be signalled by
    // closing the connection, as Kafka does.
    if (request.acks == 0) {
      for (const auto& t : response.responses) {
        for (const auto& p : t.partition_responses) {
          if (p.error_code != 0) co_return std::nullopt;
        }
      }
      co_return out;
    }
  }
  // ApiVersions answers with header v0 always, so any client can read it.
  const bool header_v1 = flexible && Req::kApiKey != protocol::kApiVersionsKey;
  protocol::write_response_header(out, ctx.header.correlation_id, header_v1 ? 1 : 0);
  protocol::Encoder encoder(out, version, flexible);
  encoder.encode(response);
  out.close_after = ctx.close_after_response;
  co_return out;
}

}  // namespace strata::broker

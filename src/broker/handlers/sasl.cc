// SaslHandshake and SaslAuthenticate (KIP-152), and the raw tokens that follow a v0
// handshake. Kafka's rules: on a SASL listener nothing but ApiVersions, SaslHandshake and
// SaslAuthenticate is served before authentication (Broker::handle closes the
// connection otherwise); a mechanism the listener does not enable is answered with
// UNSUPPORTED_SASL_MECHANISM and the list, then the connection closes; a SaslAuthenticate
// without a handshake is ILLEGAL_SASL_STATE (closing); a failed exchange is
// SASL_AUTHENTICATION_FAILED with the mechanism's message, answered after
// connection.failed.authentication.delay.ms, then the connection closes. KIP-368: with
// connections.max.reauth.ms the session lasts that long (told in session_lifetime_ms);
// a client re-authenticates with a new handshake, as the same principal.
#include <spdlog/spdlog.h>

#include "broker/errors.h"
#include "broker/handlers/handlers.h"
#include "broker/sasl.h"
#include "common/log_limit.h"

namespace strata::broker {

using protocol::SaslAuthenticateRequest;
using protocol::SaslAuthenticateResponse;
using protocol::SaslHandshakeRequest;
using protocol::SaslHandshakeResponse;

namespace {

struct StepOutcome {
  bool ok = false;
  std::string answer;  // the server's token, or the failure message
  bool complete = false;
  std::string detail;  // a failure's detail, for the log
};

// One token through the exchange, on the blocking pool (a SCRAM lookup may ask etcd).
asio::awaitable<StepOutcome> run_step(Broker& broker, SaslStep& step, std::string_view token) {
  SaslStep* s = &step;
  const std::string_view* t = &token;
  co_return co_await broker.blocking([s, t] {
    auto r = s->step(*t);
    StepOutcome o;
    o.ok = r.ok();
    o.answer = r.ok() ? std::move(*r) : r.error();
    o.complete = r.ok() && s->complete();
    if (!r.ok()) o.detail = s->failure_detail();
    return o;
  });
}

asio::awaitable<void> failure_delay(const Broker& broker) {
  const int32_t ms = broker.config().security.failed_authentication_delay_ms;
  if (ms <= 0) co_return;
  asio::steady_timer t(co_await asio::this_coro::executor, std::chrono::milliseconds(ms));
  asio::error_code ec;
  co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

// The exchange completed: the session's principal and, with re-authentication on, its
// end. A re-authentication must keep the principal (Kafka's rule). Returns the session
// lifetime to announce, or an error message.
Result<int64_t, std::string> establish(const Broker& broker, net::Session& session, const SaslStep& step) {
  const std::string principal = "User:" + step.user();
  if (session.authenticated && uses_sasl(session.listener->protocol) && session.principal != principal &&
      session.principal != "User:ANONYMOUS") {
    return fail("Cannot change principals during re-authentication from " + session.principal + " to " +
                principal);
  }
  session.principal = principal;
  session.authenticated = true;
  session.raw_sasl_tokens = false;
  session.exchange.reset();
  const int64_t lifetime = broker.config().security.connections_max_reauth_ms;
  session.expires = lifetime > 0 ? std::chrono::steady_clock::now() + std::chrono::milliseconds(lifetime)
                                 : std::chrono::steady_clock::time_point::max();
  return lifetime;
}

void log_failure(const net::Session& session, const std::string& peer, const std::string& why) {
  static LogLimit limit("authentication failed");
  limit.warn("authentication of {} on listener {} ({}) failed: {}", peer, session.listener->name,
             session.mechanism, why);
}

}  // namespace

asio::awaitable<SaslHandshakeResponse> handle_sasl_handshake(Broker& broker, RequestContext& ctx,
                                                             SaslHandshakeRequest& request) {
  SaslHandshakeResponse r;
  net::Session& session = ctx.session();
  const std::string& listener = session.listener->name;
  if (!uses_sasl(session.listener->protocol)) {
    r.error_code = kafka_error::kIllegalSaslState;
    ctx.close_after_response = true;
    co_return r;
  }
  r.mechanisms = broker.sasl().enabled(listener);
  auto exchange = broker.sasl().start(listener, request.mechanism);
  if (!exchange) {
    r.error_code = kafka_error::kUnsupportedSaslMechanism;
    ctx.close_after_response = true;
    co_return r;
  }
  session.mechanism = request.mechanism;
  session.exchange = std::move(exchange);
  session.raw_sasl_tokens = ctx.header.api_version == 0;
  co_return r;
}

asio::awaitable<SaslAuthenticateResponse> handle_sasl_authenticate(Broker& broker, RequestContext& ctx,
                                                                   SaslAuthenticateRequest& request) {
  SaslAuthenticateResponse r;
  net::Session& session = ctx.session();
  auto* step = dynamic_cast<SaslStep*>(session.exchange.get());
  if (step == nullptr || session.raw_sasl_tokens) {
    r.error_code = kafka_error::kIllegalSaslState;
    r.error_message = "Unexpected SaslAuthenticate request without a SaslHandshake";
    ctx.close_after_response = true;
    co_return r;
  }
  const std::string_view token(reinterpret_cast<const char*>(request.auth_bytes.data()),
                               request.auth_bytes.size());
  StepOutcome o = co_await run_step(broker, *step, token);
  if (o.ok && o.complete) {
    auto lifetime = establish(broker, session, *step);
    if (!lifetime) {
      o.ok = false;
      o.answer = lifetime.error();
    } else {
      r.session_lifetime_ms = *lifetime;
    }
  }
  if (!o.ok) {
    log_failure(session, ctx.frame.client_address, o.detail.empty() ? o.answer : o.detail);
    session.exchange.reset();
    co_await failure_delay(broker);
    r.error_code = kafka_error::kSaslAuthenticationFailed;
    r.error_message = o.answer;
    ctx.close_after_response = true;
    co_return r;
  }
  r.auth_bytes.assign(o.answer.begin(), o.answer.end());
  co_return r;
}

asio::awaitable<std::optional<protocol::Output>> handle_raw_sasl_token(Broker& broker, net::Frame& frame) {
  // In the connection's order, like every request: a client pipelining raw tokens must
  // not run two steps of one exchange at once (the turn is released with the frame).
  co_await frame.turn.acquire();
  net::Session& session = *frame.session;
  auto* step = dynamic_cast<SaslStep*>(session.exchange.get());
  if (step == nullptr) co_return std::nullopt;
  const std::string_view token(reinterpret_cast<const char*>(frame.bytes.data()), frame.bytes.size());
  StepOutcome o = co_await run_step(broker, *step, token);
  if (o.ok && o.complete) {
    if (auto lifetime = establish(broker, session, *step); !lifetime) {
      o.ok = false;
      o.answer = lifetime.error();
    }
  }
  if (!o.ok) {
    // v0 has no error field: Kafka closes the connection, after the same delay.
    log_failure(session, frame.client_address, o.detail.empty() ? o.answer : o.detail);
    co_await failure_delay(broker);
    co_return std::nullopt;
  }
  protocol::Output out;
  out.bytes.assign(o.answer.begin(), o.answer.end());
  out.always_send = true;
  co_return out;
}

}  // namespace strata::broker

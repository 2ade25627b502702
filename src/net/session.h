// What a connection knows of its peer, shared by all its requests: the listener it came
// in on and, once established, who the peer is (its principal). The network layer fills
// in what TLS tells; the broker fills in what SASL tells. Touched only on the
// connection's shard (requests are handled there; a handler that hops to another shard
// reads what it needs first).
#pragma once

#include <asio/ssl.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace strata::net {

// Kafka's security protocols (listener.security.protocol.map).
enum class SecurityProtocol { kPlaintext, kSsl, kSaslPlaintext, kSaslSsl };

inline bool uses_tls(SecurityProtocol p) {
  return p == SecurityProtocol::kSsl || p == SecurityProtocol::kSaslSsl;
}
inline bool uses_sasl(SecurityProtocol p) {
  return p == SecurityProtocol::kSaslPlaintext || p == SecurityProtocol::kSaslSsl;
}

// One listener (listeners=NAME://host:port).
struct Listener {
  std::string name = "PLAINTEXT";
  SecurityProtocol protocol = SecurityProtocol::kPlaintext;
  std::string host = "127.0.0.1";
  uint16_t port = 9092;
  // TLS listeners: the server context new connections take (a reload swaps it; open
  // connections keep theirs). Null on the others.
  std::function<std::shared_ptr<asio::ssl::context>()> tls_context;
  // TLS listeners: the principal of a client certificate's subject (RFC 2253 text),
  // as ssl.principal.mapping.rules says; empty: the certificate is refused.
  std::function<std::string(const std::string& subject)> certificate_principal;
};

// The broker's state of a SASL exchange in progress (security/ mechanisms).
class SaslExchange {
 public:
  virtual ~SaslExchange() = default;
};

struct Session {
  explicit Session(std::shared_ptr<const Listener> l)
      : listener(std::move(l)), authenticated(!uses_sasl(listener->protocol)) {}

  std::shared_ptr<const Listener> listener;
  // Kafka's principal: "User:ANONYMOUS" until TLS or SASL says otherwise.
  std::string principal = "User:ANONYMOUS";
  // False on SASL listeners until SaslAuthenticate (or a raw token exchange) succeeds:
  // until then only ApiVersions, SaslHandshake and SaslAuthenticate are served, and
  // frames are bounded by sasl.server.max.receive.size.
  bool authenticated;
  // After a SaslHandshake v0, the SASL tokens arrive as bare size-prefixed frames (no
  // request header) and are answered the same way.
  bool raw_sasl_tokens = false;
  std::string mechanism;  // chosen by SaslHandshake
  std::unique_ptr<SaslExchange> exchange;
  // KIP-368: the authenticated session ends here (connections.max.reauth.ms); after it
  // only a re-authentication is served. max(): never.
  std::chrono::steady_clock::time_point expires = std::chrono::steady_clock::time_point::max();
};

}  // namespace strata::net

// SaslAuthenticate (key 36): one SASL token from the client and the server's answer
// (KIP-152). v1 adds the session lifetime (KIP-368: connections.max.reauth.ms; 0 when
// re-authentication is off).
//
// Follows Kafka's schema for versions 0-2 (Kafka 4.0-SNAPSHOT, Oct 2024), flexible from 2.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct SaslAuthenticateRequest {
  static constexpr int16_t kApiKey = 36;
  static constexpr Versions kVersions{0, 2};
  static constexpr int16_t kFlexibleFrom = 2;

  std::vector<uint8_t> auth_bytes;

  template <class V>
  void visit(V& v) {
    v(auth_bytes, F{{0}});
  }
};

struct SaslAuthenticateResponse {
  static constexpr int16_t kApiKey = SaslAuthenticateRequest::kApiKey;
  static constexpr Versions kVersions = SaslAuthenticateRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = SaslAuthenticateRequest::kFlexibleFrom;

  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<uint8_t> auth_bytes;
  int64_t session_lifetime_ms = 0;  // v1+

  template <class V>
  void visit(V& v) {
    v(error_code, F{{0}});
    v(error_message, F{.versions = {0}, .nullable = {0}});
    v(auth_bytes, F{{0}});
    v(session_lifetime_ms, F{{1}});
  }
};

}  // namespace strata::protocol

// SaslHandshake (key 17): a client on a SASL listener names the mechanism it will use;
// the answer lists the mechanisms the listener enables. After v0 the SASL tokens follow
// as raw size-prefixed frames (no request header, kafka-python still does this); after
// v1 they travel in SaslAuthenticate requests (KIP-152).
//
// Follows Kafka's schema for versions 0-1 (Kafka 4.0-SNAPSHOT, Oct 2024); never flexible.
#pragma once

#include <cstdint>

#include "protocol/message.h"

namespace strata::protocol {

struct SaslHandshakeRequest {
  static constexpr int16_t kApiKey = 17;
  static constexpr Versions kVersions{0, 1};
  static constexpr int16_t kFlexibleFrom = INT16_MAX;  // never

  std::string mechanism;

  template <class V>
  void visit(V& v) {
    v(mechanism, F{{0}});
  }
};

struct SaslHandshakeResponse {
  static constexpr int16_t kApiKey = SaslHandshakeRequest::kApiKey;
  static constexpr Versions kVersions = SaslHandshakeRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = SaslHandshakeRequest::kFlexibleFrom;

  int16_t error_code = 0;
  std::vector<std::string> mechanisms;  // the listener's sasl.enabled.mechanisms

  template <class V>
  void visit(V& v) {
    v(error_code, F{{0}});
    v(mechanisms, F{{0}});
  }
};

}  // namespace strata::protocol

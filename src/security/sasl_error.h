// What a SASL mechanism's server reports when an exchange fails. Two texts, because
// Kafka keeps them apart: `message` is what the client is told in the
// SaslAuthenticate response (Kafka's own wording, never saying whether a user
// exists), `detail` is for the broker's log only and must not reach the client.
#pragma once

#include <string>
#include <string_view>

namespace strata::security {

struct SaslError {
  std::string message;  // for the client
  std::string detail;   // for the log
};

// Kafka's answer to a failure the mechanism does not describe to the client
// (SaslServerAuthenticator turns every plain SaslException into this): it names only
// the phase and the mechanism.
inline std::string sasl_generic_failure(std::string_view mechanism, bool reauthentication = false) {
  std::string s = "Authentication failed during ";
  s += reauthentication ? "re-authentication" : "authentication";
  s += " due to invalid credentials with SASL mechanism ";
  s += mechanism;
  return s;
}

}  // namespace strata::security

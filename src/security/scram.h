// The server side of a SCRAM-SHA-256 / SCRAM-SHA-512 exchange (RFC 5802, RFC 7677),
// as Kafka's broker runs it: two client messages in, two server messages out, no I/O.
// One ScramServer per connection and exchange; not thread-safe.
//
//   client-first  n,,n=user,r=cnonce           -> server-first  r=cnonce+snonce,s=salt,i=n
//   client-final  c=biws,r=cnonce+snonce,p=... -> server-final  v=signature
//
// Rules (Kafka's unless noted):
// - An authzid, if given, must equal the user name.
// - Unknown users (and users whose stored credential this mechanism cannot use:
//   iterations outside [4096, 16384], keys of the wrong size, salt over
//   kScramSaltBytesMax) get a fake salt, stable per user for the process's life,
//   and 4096 iterations, so the first step looks the same as for a real user; they
//   fail at the final step with the same error as a wrong password. (Kafka fails
//   them at the first step, which tells a client which users exist.)
// - The final nonce must end with the server-first nonce (Kafka's check: librdkafka
//   repeats its own nonce in front).
// - The channel binding c= must decode to the gs2 header of the first message
//   (Kafka does not check it; RFC 5802 requires it).
// - The auth message is built from the messages as received (RFC 5802), which is what
//   Kafka's reconstruction yields for every real client.
// - `tokenauth=true` (Kafka's delegation-token login) is refused at the first step:
//   Strata has no delegation tokens, and treating the token id as a user name would be
//   wrong. Other extensions are ignored.
// - Errors: the client is told Kafka's generic "Authentication failed during
//   authentication due to invalid credentials with SASL mechanism <name>" for every
//   failure except the authzid mismatch, which gets Kafka's own text for it. The
//   detail (for the log) says what went wrong. After an error the server is failed and
//   every later step fails.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "security/sasl_error.h"
#include "security/scram_credential.h"
#include "security/scram_messages.h"

namespace strata::security {

using ScramError = SaslError;

// The user's stored credential for the server's mechanism, or nullopt if there is
// none. Called once, during the first step, on the caller's thread.
using ScramCredentialLookup =
    std::function<std::optional<ScramCredential>(const std::string& user)>;

class ScramServer {
 public:
  // `server_nonce` is for tests (RFC test vectors): printable ASCII without ','.
  // Empty: 18 random bytes, base64 (24 characters), drawn at the first step.
  ScramServer(ScramMechanism mechanism, ScramCredentialLookup lookup,
              std::string server_nonce = {});

  // First call: client-first-message -> server-first-message.
  // Second call: client-final-message -> server-final-message; complete() after it.
  // Any other call, or any failure, is an error.
  Result<std::string, ScramError> step(std::string_view client_message);

  bool complete() const { return state_ == State::kComplete; }
  // The authenticated user name. Requires complete().
  const std::string& user() const;
  ScramMechanism mechanism() const { return mechanism_; }

 private:
  enum class State : uint8_t { kFirst, kFinal, kComplete, kFailed };

  Result<std::string, ScramError> on_client_first(std::string_view message);
  Result<std::string, ScramError> on_client_final(std::string_view message);
  ScramError failure(std::string detail);
  // The lookup's credential if this mechanism can use it, else the user's fake one.
  ScramCredential credential_for(const std::string& user);

  ScramMechanism mechanism_;
  ScramCredentialLookup lookup_;
  std::string server_nonce_;
  State state_ = State::kFirst;
  // Between the steps:
  ScramClientFirst client_first_;
  std::string server_first_;
  ScramCredential credential_;
  bool known_user_ = false;
};

}  // namespace strata::security

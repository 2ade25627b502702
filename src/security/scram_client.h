// The client side of a SCRAM-SHA-256 / SCRAM-SHA-512 exchange (RFC 5802, RFC 7677), as
// Kafka's clients run it: what the `strata` tools and a broker's inter-broker connections
// send. No I/O: the caller carries the messages in SaslAuthenticate.
//
//   first()             -> client-first   n,,n=user,r=cnonce
//   final(server-first) -> client-final   c=biws,r=cnonce+snonce,p=proof
//   verify(server-final)   checks v= against the server signature (mutual authentication)
//
// Checks of the server's answers, as Kafka's ScramSaslClient makes them: the server nonce
// must extend ours, iterations must be at least 4096 (Kafka's minimum: a lower count from
// a hostile server would make a cheap dictionary target of the proof) and, stricter than
// Kafka, at most 16384 (the most a stored credential may have: more would only make the
// client spin), the salt must not be empty, and an "e=" answer is the server's error.
// One exchange per object.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "security/scram_credential.h"

namespace strata::security {

class ScramClient {
 public:
  // `client_nonce` is for tests (RFC test vectors); empty: 24 random bytes, base64.
  ScramClient(ScramMechanism mechanism, std::string username, std::string password,
              std::string client_nonce = {});

  Result<std::string, std::string> first();
  Result<std::string, std::string> final(std::string_view server_first);
  Result<void, std::string> verify(std::string_view server_final) const;

 private:
  ScramMechanism mechanism_;
  std::string username_;
  std::string password_;
  std::string nonce_;
  std::string client_first_bare_;
  std::string server_signature_;  // expected in server-final
};

}  // namespace strata::security

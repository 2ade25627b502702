// The server side of SASL PLAIN (RFC 4616), as Kafka's PlainSaslServer with its
// default callback handler (users from `user_<name>` JAAS options, see jaas.h):
//
//   message = [authzid] NUL authcid NUL passwd
//
// The authzid must be empty or equal to the user name. Passwords are compared in
// constant time (SHA-256 of both, then CRYPTO_memcmp, so neither the length nor the
// content of a stored password shows in the timing), and an unknown user costs the
// same comparison as a known one.
//
// Errors (SaslError: `message` for the client, `detail` for the log), as Kafka:
// - malformed message, empty user name, empty password: the generic "Authentication
//   failed during authentication due to invalid credentials with SASL mechanism PLAIN";
// - unknown user or wrong password: "Authentication failed: Invalid username or password";
// - authzid other than the user (checked after the password, as Kafka):
//   "Authentication failed: Client requested an authorization id that is different
//   from username".
// Stricter than Kafka: a message with more than two NULs is refused (Kafka ignores
// what follows the third token), and messages over kPlainMessageBytesMax.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "common/result.h"
#include "security/sasl_error.h"

namespace strata::security {

inline constexpr size_t kPlainMessageBytesMax = 8192;

struct PlainMessage {
  std::string authzid;  // empty when absent
  std::string username;
  std::string password;
};

// user name -> password (the `user_<name>` options of the PLAIN login module).
using PlainPasswords = std::map<std::string, std::string>;

// Splits the message; refuses a wrong number of NULs, an empty user name or password.
Result<PlainMessage, SaslError> parse_plain(std::string_view message);

// Parses and checks the message against `passwords`; returns the authenticated user.
// PLAIN is one step: the server's answer on success is empty.
Result<std::string, SaslError> plain_authenticate(std::string_view message,
                                                  const PlainPasswords& passwords);

}  // namespace strata::security

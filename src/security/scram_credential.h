// SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) credentials as Kafka keeps
// them: the mechanisms with Kafka's wire codes and iteration limits, the derivation of
// a credential from a password or a salted password, and Kafka's text form of a
// credential. The server exchange is in scram.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace strata::security {

// Values are Kafka's codes in DescribeUserScramCredentials / AlterUserScramCredentials
// (0 is UNKNOWN there and has no enumerator here).
enum class ScramMechanism : int8_t { kSha256 = 1, kSha512 = 2 };

// Kafka's limits (ScramMechanism.minIterations, ScramControlManager.MAX_ITERATIONS).
inline constexpr int32_t kScramMinIterations = 4096;
inline constexpr int32_t kScramMaxIterations = 16384;
// Size of the salts random_salt() makes; the fake salts of unknown users have it too.
inline constexpr size_t kScramSaltBytes = 32;
// Bound on a usable salt: keeps the server-first message, and the stored text, small.
inline constexpr size_t kScramSaltBytesMax = 1024;
// Bound on the stored text of one credential.
inline constexpr size_t kScramCredentialTextMax = 4096;

// "SCRAM-SHA-256" / "SCRAM-SHA-512".
std::string_view scram_mechanism_name(ScramMechanism m);
// Exact, case-sensitive names (Kafka's map lookup); nullopt for anything else.
std::optional<ScramMechanism> scram_mechanism_from_name(std::string_view name);
// Kafka's wire codes 1 and 2; nullopt for anything else (0 is UNKNOWN).
std::optional<ScramMechanism> scram_mechanism_from_code(int8_t code);
// Output size of the mechanism's hash and HMAC: 32 or 64 bytes.
size_t scram_digest_bytes(ScramMechanism m);

// Binary strings (salt and keys are raw bytes, not base64).
struct ScramCredential {
  std::string salt;
  std::string stored_key;  // H(HMAC(SaltedPassword, "Client Key"))
  std::string server_key;  // HMAC(SaltedPassword, "Server Key")
  int32_t iterations = 0;

  bool operator==(const ScramCredential&) const = default;
};

// Kafka's range check for a credential being created, with Kafka's messages
// ("Too few iterations", "Too many iterations"; error UNACCEPTABLE_CREDENTIAL).
Result<void, std::string> check_scram_iterations(int32_t iterations);

// The credential for a password: SaltedPassword = Hi(password, salt, iterations)
// (PBKDF2-HMAC, RFC 5802 §2.2). The password is used as given (UTF-8 bytes, no
// SASLprep, as Kafka). Fails on iterations outside Kafka's range or a salt longer
// than kScramSaltBytesMax.
Result<ScramCredential, std::string> credential_from_password(ScramMechanism m,
                                                              std::string_view password,
                                                              std::string_view salt,
                                                              int32_t iterations);
// The credential for a salted password, as an AlterUserScramCredentials upsertion
// carries it (the client ran Hi). Same checks as above; the salted password's length
// is not checked (Kafka does not).
Result<ScramCredential, std::string> credential_from_salted_password(
    ScramMechanism m, std::string_view salted_password, std::string_view salt, int32_t iterations);

// `bytes` random bytes from OpenSSL's RAND_bytes; fails only if the RNG does.
Result<std::string, std::string> random_salt(size_t bytes = kScramSaltBytes);

// The primitives, exposed for clients and tests. Hi requires 1 <= iterations.
std::string scram_hash(ScramMechanism m, std::string_view data);
std::string scram_hmac(ScramMechanism m, std::string_view key, std::string_view data);
std::string scram_salted_password(ScramMechanism m, std::string_view password,
                                  std::string_view salt, int32_t iterations);

// Kafka's text form (ScramCredentialUtils):
//   salt=<base64>,stored_key=<base64>,server_key=<base64>,iterations=<decimal>
// parse accepts the four keys in any order, each exactly once, strict base64, and a
// decimal iterations in [1, 2^31-1]; anything else (or text over
// kScramCredentialTextMax) is an error. Whether the values are usable by a mechanism
// is ScramServer's business.
std::string format_scram_credential(const ScramCredential& c);
Result<ScramCredential, std::string> parse_scram_credential(std::string_view text);

}  // namespace strata::security

#include "security/scram_credential.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cassert>
#include <climits>
#include <iterator>

#include "security/base64.h"

namespace strata::security {
namespace {

const EVP_MD* evp_md(ScramMechanism m) {
  return m == ScramMechanism::kSha256 ? EVP_sha256() : EVP_sha512();
}

const unsigned char* bytes_of(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

Result<void, std::string> check_salt(std::string_view salt) {
  if (salt.size() > kScramSaltBytesMax) return fail(std::string("Salt too long"));
  return {};
}

// Decimal int32 in [1, INT32_MAX]: digits only, no sign, no leading '+'.
std::optional<int32_t> parse_positive_int32(std::string_view s) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < 1 || v > INT32_MAX) return std::nullopt;
  return int32_t(v);
}

// The binary fields of the text form; `iterations` is the fourth.
struct BinaryField {
  std::string_view key;
  std::string ScramCredential::*slot;
};
constexpr BinaryField kBinaryFields[] = {
    {"salt", &ScramCredential::salt},
    {"stored_key", &ScramCredential::stored_key},
    {"server_key", &ScramCredential::server_key},
};
constexpr unsigned kIterationsBit = 1u << 3;
constexpr unsigned kAllFields = 0xF;

// One `key=value` token of the credential text into its slot (the key ends at the
// first '=': base64 values end in '='); fails on an unknown or repeated key or a bad
// value. `seen` collects one bit per field.
Result<void, std::string> put_field(std::string_view token, ScramCredential& c, unsigned& seen) {
  const size_t eq = token.find('=');
  if (eq == std::string_view::npos || eq == 0) return fail(std::string("field without a key"));
  const std::string_view key = token.substr(0, eq);
  const std::string_view value = token.substr(eq + 1);
  if (key == "iterations") {
    if (seen & kIterationsBit) return fail(std::string("repeated field iterations"));
    seen |= kIterationsBit;
    auto n = parse_positive_int32(value);
    if (!n) return fail(std::string("iterations is not a positive int32"));
    c.iterations = *n;
    return {};
  }
  for (unsigned i = 0; i < std::size(kBinaryFields); ++i) {
    if (key != kBinaryFields[i].key) continue;
    if (seen & (1u << i)) return fail("repeated field " + std::string(key));
    seen |= 1u << i;
    auto decoded = base64_decode(value);
    if (!decoded) return fail(std::string(key) + " is not base64");
    c.*kBinaryFields[i].slot = std::move(*decoded);
    return {};
  }
  return fail("unknown field " + std::string(key));
}

}  // namespace

std::string_view scram_mechanism_name(ScramMechanism m) {
  switch (m) {
    case ScramMechanism::kSha256:
      return "SCRAM-SHA-256";
    case ScramMechanism::kSha512:
      return "SCRAM-SHA-512";
  }
  assert(false && "not a ScramMechanism");
  return "";
}

std::optional<ScramMechanism> scram_mechanism_from_name(std::string_view name) {
  if (name == "SCRAM-SHA-256") return ScramMechanism::kSha256;
  if (name == "SCRAM-SHA-512") return ScramMechanism::kSha512;
  return std::nullopt;
}

std::optional<ScramMechanism> scram_mechanism_from_code(int8_t code) {
  if (code == int8_t(ScramMechanism::kSha256)) return ScramMechanism::kSha256;
  if (code == int8_t(ScramMechanism::kSha512)) return ScramMechanism::kSha512;
  return std::nullopt;
}

size_t scram_digest_bytes(ScramMechanism m) {
  return m == ScramMechanism::kSha256 ? 32 : 64;
}

Result<void, std::string> check_scram_iterations(int32_t iterations) {
  if (iterations < kScramMinIterations) return fail(std::string("Too few iterations"));
  if (iterations > kScramMaxIterations) return fail(std::string("Too many iterations"));
  return {};
}

std::string scram_hash(ScramMechanism m, std::string_view data) {
  std::string out(scram_digest_bytes(m), '\0');
  unsigned int n = 0;
  const int ok = EVP_Digest(data.data(), data.size(), reinterpret_cast<unsigned char*>(out.data()),
                            &n, evp_md(m), nullptr);
  assert(ok == 1 && n == out.size());
  (void)ok;
  return out;
}

std::string scram_hmac(ScramMechanism m, std::string_view key, std::string_view data) {
  assert(key.size() <= size_t(INT_MAX));
  std::string out(scram_digest_bytes(m), '\0');
  unsigned int n = 0;
  const unsigned char* r = HMAC(evp_md(m), key.data(), int(key.size()), bytes_of(data), data.size(),
                                reinterpret_cast<unsigned char*>(out.data()), &n);
  assert(r != nullptr && n == out.size());
  (void)r;
  return out;
}

std::string scram_salted_password(ScramMechanism m, std::string_view password,
                                  std::string_view salt, int32_t iterations) {
  assert(iterations >= 1);
  assert(password.size() <= size_t(INT_MAX) && salt.size() <= size_t(INT_MAX));
  std::string out(scram_digest_bytes(m), '\0');
  const int ok = PKCS5_PBKDF2_HMAC(password.data(), int(password.size()), bytes_of(salt),
                                   int(salt.size()), iterations, evp_md(m), int(out.size()),
                                   reinterpret_cast<unsigned char*>(out.data()));
  assert(ok == 1);
  (void)ok;
  return out;
}

Result<ScramCredential, std::string> credential_from_salted_password(
    ScramMechanism m, std::string_view salted_password, std::string_view salt, int32_t iterations) {
  if (auto r = check_scram_iterations(iterations); !r) return fail(r.error());
  if (auto r = check_salt(salt); !r) return fail(r.error());
  if (salted_password.size() > size_t(INT_MAX))
    return fail(std::string("Salted password too long"));
  ScramCredential c;
  c.salt = std::string(salt);
  c.stored_key = scram_hash(m, scram_hmac(m, salted_password, "Client Key"));
  c.server_key = scram_hmac(m, salted_password, "Server Key");
  c.iterations = iterations;
  return c;
}

Result<ScramCredential, std::string> credential_from_password(ScramMechanism m,
                                                              std::string_view password,
                                                              std::string_view salt,
                                                              int32_t iterations) {
  if (auto r = check_scram_iterations(iterations); !r) return fail(r.error());
  if (auto r = check_salt(salt); !r) return fail(r.error());
  if (password.size() > size_t(INT_MAX)) return fail(std::string("Password too long"));
  return credential_from_salted_password(m, scram_salted_password(m, password, salt, iterations),
                                         salt, iterations);
}

Result<std::string, std::string> random_salt(size_t bytes) {
  if (bytes > kScramSaltBytesMax) return fail(std::string("Salt too long"));
  std::string out(bytes, '\0');
  if (bytes > 0 && RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), int(bytes)) != 1) {
    return fail(std::string("RAND_bytes failed"));
  }
  return out;
}

std::string format_scram_credential(const ScramCredential& c) {
  return "salt=" + base64_encode(c.salt) + ",stored_key=" + base64_encode(c.stored_key) +
         ",server_key=" + base64_encode(c.server_key) +
         ",iterations=" + std::to_string(c.iterations);
}

Result<ScramCredential, std::string> parse_scram_credential(std::string_view text) {
  if (text.size() > kScramCredentialTextMax) return fail(std::string("Credentials too long"));
  ScramCredential c;
  unsigned seen = 0;
  size_t start = 0;
  while (true) {  // one pass per ','-separated token; at most text.size() + 1 passes
    const size_t comma = text.find(',', start);
    const std::string_view token =
        text.substr(start, comma == text.npos ? text.npos : comma - start);
    if (auto r = put_field(token, c, seen); !r) return fail("Credentials not valid: " + r.error());
    if (comma == text.npos) break;
    start = comma + 1;
  }
  if (seen != kAllFields) return fail(std::string("Credentials not valid: missing field"));
  return c;
}

}  // namespace strata::security

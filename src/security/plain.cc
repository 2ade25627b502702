#include "security/plain.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <cassert>

namespace strata::security {
namespace {

constexpr std::string_view kMechanism = "PLAIN";
constexpr std::string_view kInvalidCredentials =
    "Authentication failed: Invalid username or password";
constexpr std::string_view kAuthzidMismatch =
    "Authentication failed: Client requested an authorization id that is different from username";

SaslError generic(std::string detail) {
  return {sasl_generic_failure(kMechanism), std::move(detail)};
}

using Digest = std::array<unsigned char, 32>;

Digest sha256(std::string_view s) {
  Digest d{};
  unsigned int n = 0;
  const int ok = EVP_Digest(s.data(), s.size(), d.data(), &n, EVP_sha256(), nullptr);
  assert(ok == 1 && n == d.size());
  (void)ok;
  return d;
}

// Constant time in the contents and lengths of both (hashes first).
bool passwords_equal(std::string_view given, std::string_view stored) {
  const Digest a = sha256(given);
  const Digest b = sha256(stored);
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

Result<PlainMessage, SaslError> parse_plain(std::string_view message) {
  if (message.size() > kPlainMessageBytesMax) return fail(generic("PLAIN message too long"));
  const size_t first = message.find('\0');
  const size_t second = first == message.npos ? message.npos : message.find('\0', first + 1);
  if (second == message.npos || message.find('\0', second + 1) != message.npos) {
    size_t tokens = 1;
    for (char c : message) tokens += c == '\0';
    return fail(
        generic("Invalid SASL/PLAIN response: expected 3 tokens, got " + std::to_string(tokens)));
  }
  PlainMessage m;
  m.authzid = std::string(message.substr(0, first));
  m.username = std::string(message.substr(first + 1, second - first - 1));
  m.password = std::string(message.substr(second + 1));
  if (m.username.empty()) return fail(generic("Authentication failed: username not specified"));
  if (m.password.empty()) return fail(generic("Authentication failed: password not specified"));
  return m;
}

Result<std::string, SaslError> plain_authenticate(std::string_view message,
                                                  const PlainPasswords& passwords) {
  auto parsed = parse_plain(message);
  if (!parsed) return fail(parsed.error());
  const auto it = passwords.find(parsed->username);
  const bool known = it != passwords.end();
  // An unknown user is compared with the empty string, which never matches (the
  // given password is not empty), so both paths hash and compare once.
  const bool match = passwords_equal(parsed->password, known ? std::string_view(it->second) : "");
  if (!known || !match) {
    return fail(
        SaslError{std::string(kInvalidCredentials), known ? "wrong password" : "unknown user"});
  }
  if (!parsed->authzid.empty() && parsed->authzid != parsed->username) {
    return fail(SaslError{std::string(kAuthzidMismatch), "authzid differs from the user name"});
  }
  return std::move(parsed->username);
}

}  // namespace strata::security

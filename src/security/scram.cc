#include "security/scram.h"

#include <openssl/crypto.h>

#include <cassert>
#include <utility>

#include "security/base64.h"

namespace strata::security {
namespace {

// Kafka's text for the one failure it describes to the client.
constexpr std::string_view kAuthzidMismatch =
    "Authentication failed: Client requested an authorization id that is different from username";

constexpr size_t kServerNonceRandomBytes = 18;  // 24 base64 characters, no padding

// The fake salt is an HMAC-SHA-256 output, as long as a real random salt.
static_assert(kScramSaltBytes == 32);

// A per-process secret keying the fake credentials of unknown users: stable while the
// process runs (asking twice about one unknown user shows the same salt), and not
// guessable, so a fake salt cannot be told from a real one. nullopt if the RNG failed.
const std::optional<std::string>& fake_credential_secret() {
  static const std::optional<std::string> secret = []() -> std::optional<std::string> {
    auto s = random_salt(32);
    if (!s) return std::nullopt;
    return std::move(*s);
  }();
  return secret;
}

ScramCredential fake_credential(ScramMechanism m, std::string_view secret,
                                const std::string& user) {
  std::string label(scram_mechanism_name(m));
  label += '\0';
  label += user;
  ScramCredential c;
  c.salt = scram_hmac(ScramMechanism::kSha256, secret, "salt:" + label);
  c.stored_key = scram_hmac(m, secret, "stored_key:" + label);
  c.server_key = scram_hmac(m, secret, "server_key:" + label);
  c.iterations = kScramMinIterations;
  return c;
}

// Whether mechanism `m` can run an exchange with `c`.
bool usable(const ScramCredential& c, ScramMechanism m) {
  return c.iterations >= kScramMinIterations && c.iterations <= kScramMaxIterations &&
         c.stored_key.size() == scram_digest_bytes(m) &&
         c.server_key.size() == scram_digest_bytes(m) && c.salt.size() <= kScramSaltBytesMax;
}

bool is_nonce_text(std::string_view s) {
  for (char c : s) {
    if (c < 0x21 || c > 0x7E || c == ',') return false;
  }
  return !s.empty();
}

std::string xor_bytes(std::string_view a, std::string_view b) {
  assert(a.size() == b.size());
  std::string out(a.size(), '\0');
  for (size_t i = 0; i < a.size(); ++i) out[i] = char(a[i] ^ b[i]);
  return out;
}

bool equal_constant_time(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

ScramServer::ScramServer(ScramMechanism mechanism, ScramCredentialLookup lookup,
                         std::string server_nonce)
    : mechanism_(mechanism), lookup_(std::move(lookup)), server_nonce_(std::move(server_nonce)) {
  assert(lookup_);
  assert(server_nonce_.empty() || is_nonce_text(server_nonce_));
}

const std::string& ScramServer::user() const {
  assert(complete());
  return client_first_.username;
}

Result<std::string, ScramError> ScramServer::step(std::string_view client_message) {
  switch (state_) {
    case State::kFirst:
      return on_client_first(client_message);
    case State::kFinal:
      return on_client_final(client_message);
    case State::kComplete:
    case State::kFailed:
      break;
  }
  const char* name = state_ == State::kComplete ? "COMPLETE" : "FAILED";
  state_ = State::kFailed;
  const std::string text = std::string("Unexpected challenge in Sasl server state ") + name;
  return fail(ScramError{text, text});
}

ScramError ScramServer::failure(std::string detail) {
  state_ = State::kFailed;
  credential_ = {};
  server_first_.clear();
  return {sasl_generic_failure(scram_mechanism_name(mechanism_)), std::move(detail)};
}

ScramCredential ScramServer::credential_for(const std::string& user) {
  std::optional<ScramCredential> c = lookup_(user);
  known_user_ = c.has_value() && usable(*c, mechanism_);
  if (known_user_) return std::move(*c);
  return fake_credential(mechanism_, *fake_credential_secret(), user);
}

Result<std::string, ScramError> ScramServer::on_client_first(std::string_view message) {
  auto parsed = parse_scram_client_first(message);
  if (!parsed) return fail(failure("invalid client-first message: " + parsed.error()));
  if (parsed->token_auth) return fail(failure("delegation tokens (tokenauth) are not supported"));
  if (!parsed->authzid.empty() && parsed->authzid != parsed->username) {
    auto e = failure("authzid differs from the user name");
    e.message = std::string(kAuthzidMismatch);
    return fail(std::move(e));
  }
  if (server_nonce_.empty()) {
    auto random = random_salt(kServerNonceRandomBytes);
    if (!random) return fail(failure("server nonce: " + random.error()));
    server_nonce_ = base64_encode(*random);
  }
  if (!fake_credential_secret()) return fail(failure("RAND_bytes failed"));

  credential_ = credential_for(parsed->username);
  server_first_ = "r=" + parsed->nonce + server_nonce_ + ",s=" + base64_encode(credential_.salt) +
                  ",i=" + std::to_string(credential_.iterations);
  client_first_ = std::move(*parsed);
  state_ = State::kFinal;
  return server_first_;
}

Result<std::string, ScramError> ScramServer::on_client_final(std::string_view message) {
  auto parsed = parse_scram_client_final(message);
  if (!parsed) return fail(failure("invalid client-final message: " + parsed.error()));
  if (parsed->channel_binding != client_first_.gs2_header) {
    return fail(failure("channel binding does not match the gs2 header"));
  }
  // Kafka checks that the final nonce ends with the server-first nonce, not that it
  // equals it: librdkafka sends its own nonce again in front of the server's whole one
  // (cnonce + cnonce + snonce), and Kafka accepts that, so Strata must too.
  if (!std::string_view(parsed->nonce).ends_with(client_first_.nonce + server_nonce_)) {
    return fail(failure("invalid client nonce in the final client message"));
  }
  const size_t digest = scram_digest_bytes(mechanism_);
  if (parsed->proof.size() != digest) return fail(failure("client proof of the wrong size"));

  const std::string auth_message =
      client_first_.bare + "," + server_first_ + "," + parsed->without_proof;
  const std::string client_signature = scram_hmac(mechanism_, credential_.stored_key, auth_message);
  const std::string client_key = xor_bytes(parsed->proof, client_signature);
  const bool proof_ok =
      equal_constant_time(scram_hash(mechanism_, client_key), credential_.stored_key);
  if (!known_user_) return fail(failure("unknown user or no usable credential"));
  if (!proof_ok) return fail(failure("invalid client proof"));

  const std::string signature = scram_hmac(mechanism_, credential_.server_key, auth_message);
  credential_ = {};
  server_first_.clear();
  state_ = State::kComplete;
  return "v=" + base64_encode(signature);
}

}  // namespace strata::security

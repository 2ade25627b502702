#include "security/scram_client.h"

#include <charconv>
#include <map>

#include "security/base64.h"
#include "security/scram_messages.h"

namespace strata::security {
namespace {

constexpr int32_t kMinIterations = 4096;  // Kafka's ScramMechanism.minIterations
// Kafka's limit for stored credentials: no broker can hold more, and a hostile one asking
// for billions would make the client spin on PBKDF2 for hours.
constexpr int32_t kMaxIterations = 16384;

// "k=v,k=v" attributes of a server message; the first value of a repeated key wins.
std::map<char, std::string_view> attributes(std::string_view message) {
  std::map<char, std::string_view> out;
  size_t at = 0;
  while (at < message.size()) {
    const size_t end = std::min(message.find(',', at), message.size());
    const std::string_view part = message.substr(at, end - at);
    if (part.size() >= 2 && part[1] == '=') out.emplace(part[0], part.substr(2));
    at = end + 1;
  }
  return out;
}

std::string xor_bytes(std::string_view a, std::string_view b) {
  std::string out(a);
  for (size_t i = 0; i < out.size() && i < b.size(); ++i) out[i] = char(out[i] ^ b[i]);
  return out;
}

}  // namespace

ScramClient::ScramClient(ScramMechanism mechanism, std::string username, std::string password,
                         std::string client_nonce)
    : mechanism_(mechanism),
      username_(std::move(username)),
      password_(std::move(password)),
      nonce_(std::move(client_nonce)) {}

Result<std::string, std::string> ScramClient::first() {
  if (nonce_.empty()) {
    auto random = random_salt(24);
    if (!random) return fail(random.error());
    nonce_ = base64_encode(*random);
  }
  client_first_bare_ = "n=" + scram_escape_name(username_) + ",r=" + nonce_;
  return "n,," + client_first_bare_;
}

Result<std::string, std::string> ScramClient::final(std::string_view server_first) {
  if (client_first_bare_.empty()) return fail(std::string("SCRAM: final() before first()"));
  const auto a = attributes(server_first);
  if (auto e = a.find('e'); e != a.end()) return fail("SCRAM: the server refused: " + std::string(e->second));
  const auto r = a.find('r'), s = a.find('s'), i = a.find('i');
  if (r == a.end() || s == a.end() || i == a.end()) {
    return fail("SCRAM: a server-first message without r, s and i: " + std::string(server_first));
  }
  const std::string_view nonce = r->second;
  if (nonce.size() <= nonce_.size() || nonce.substr(0, nonce_.size()) != nonce_) {
    return fail(std::string("SCRAM: the server nonce does not extend the client nonce"));
  }
  const auto salt = base64_decode(s->second);
  if (!salt || salt->empty()) return fail(std::string("SCRAM: the server sent no usable salt"));
  int32_t iterations = 0;
  const auto [end, ec] = std::from_chars(i->second.data(), i->second.data() + i->second.size(), iterations);
  if (ec != std::errc{} || end != i->second.data() + i->second.size() || iterations < kMinIterations ||
      iterations > kMaxIterations) {
    return fail("SCRAM: the server asks for " + std::string(i->second) + " iterations (" +
                std::to_string(kMinIterations) + " to " + std::to_string(kMaxIterations) + " are accepted)");
  }
  const std::string without_proof = "c=biws,r=" + std::string(nonce);
  const std::string auth_message =
      client_first_bare_ + "," + std::string(server_first) + "," + without_proof;
  const std::string salted = scram_salted_password(mechanism_, password_, *salt, iterations);
  const std::string client_key = scram_hmac(mechanism_, salted, "Client Key");
  const std::string stored_key = scram_hash(mechanism_, client_key);
  const std::string signature = scram_hmac(mechanism_, stored_key, auth_message);
  const std::string server_key = scram_hmac(mechanism_, salted, "Server Key");
  server_signature_ = scram_hmac(mechanism_, server_key, auth_message);
  return without_proof + ",p=" + base64_encode(xor_bytes(client_key, signature));
}

Result<void, std::string> ScramClient::verify(std::string_view server_final) const {
  const auto a = attributes(server_final);
  if (auto e = a.find('e'); e != a.end()) return fail("SCRAM: the server refused: " + std::string(e->second));
  const auto v = a.find('v');
  if (server_signature_.empty() || v == a.end()) {
    return fail("SCRAM: a server-final message without v: " + std::string(server_final));
  }
  const auto got = base64_decode(v->second);
  if (!got || *got != server_signature_) {
    return fail(std::string("SCRAM: the server's signature is wrong (it does not know the password)"));
  }
  return {};
}

}  // namespace strata::security

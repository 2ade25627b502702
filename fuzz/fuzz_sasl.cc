// The security layer against any bytes (src/security): SCRAM's client-first message,
// its client-final message (after a well-formed first, so the server is in the state
// that reads it), Kafka's credential text, base64, PLAIN, sasl.jaas.config,
// ssl.principal.mapping.rules, and a DN through Kafka's documented rules. An error or
// a value, never a crash; a final step never succeeds (no proof can be guessed); a
// parsed credential formats and parses back to itself. Also the stored ACL texts
// (acls.json and one etcd resource's value) and an etcd ACL key: what decodes encodes
// and decodes back to itself. And the SCRAM client against any server-first and
// server-final message: an error or a next message, never a verified server.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "security/acl.h"
#include "security/base64.h"
#include "security/jaas.h"
#include "security/plain.h"
#include "security/principal_rules.h"
#include "security/scram.h"
#include "security/scram_client.h"

using namespace strata::security;

namespace {

const ScramCredential& alice_credential() {
  static const ScramCredential c =
      credential_from_password(ScramMechanism::kSha256, "alice-secret", "salt", 4096).value();
  return c;
}

std::optional<ScramCredential> lookup(const std::string& user) {
  if (user == "alice") return alice_credential();
  return std::nullopt;
}

void scram(std::string_view in) {
  ScramServer first(ScramMechanism::kSha256, lookup, "srv");
  if (auto r = first.step(in); r && r->rfind("r=", 0) != 0) __builtin_trap();
  for (const char* client_first : {"n,,n=alice,r=abc", "n,,n=nobody,r=abc"}) {
    ScramServer server(ScramMechanism::kSha256, lookup, "srv");
    if (!server.step(client_first)) __builtin_trap();
    if (server.step(in) || server.complete()) __builtin_trap();
  }
}

void scram_client(std::string_view in) {
  ScramClient c(ScramMechanism::kSha256, "alice", "alice-secret", "abc");
  if (!c.first()) __builtin_trap();
  (void)c.final(in);
  if (c.verify(in)) __builtin_trap();  // no input is the server's signature of this exchange
}

void credentials(std::string_view in) {
  if (auto c = parse_scram_credential(in)) {
    auto back = parse_scram_credential(format_scram_credential(*c));
    if (!back || !(*back == *c)) __builtin_trap();
  }
  if (auto b = base64_decode(in)) {
    if (base64_decode(base64_encode(*b)) != *b) __builtin_trap();
  }
}

void plain(std::string_view in) {
  static const PlainPasswords users = {{"admin", "admin-secret"}, {"alice", "alice-secret"}};
  (void)parse_plain(in);
  if (auto u = plain_authenticate(in, users); u && *u != "admin" && *u != "alice") __builtin_trap();
}

void configs(std::string_view in) {
  if (auto j = parse_jaas_config(in)) (void)plain_users(*j);
  // Counted repetitions ("a{1000}{1000}") make std::regex build huge automata, and the
  // rules are trusted configuration: texts with braces are not compiled here.
  if (in.find('{') == std::string_view::npos) (void)parse_principal_rules(in);
  // The untrusted side: a certificate's DN through Kafka's documented rules, short
  // enough that their lazy groups cannot backtrack for long.
  static const PrincipalMapper documented =
      parse_principal_rules(
          "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,"
          "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
          "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,DEFAULT")
          .value();
  if (in.size() <= 256 && !documented.name(in)) __builtin_trap();  // DEFAULT takes anything
}

void acls(std::string_view in) {
  if (auto a = decode_acls(in)) {
    auto back = decode_acls(encode_acls(*a));
    if (!back || *back != *a) __builtin_trap();
  }
  if (auto e = decode_zk_acls(in)) {
    auto back = decode_zk_acls(encode_zk_acls(*e));
    if (!back || *back != *e) __builtin_trap();
  }
  if (auto r = parse_zk_acl_path(in)) {
    if (r->pattern == PatternType::kLiteral || r->pattern == PatternType::kPrefixed) {
      auto again = parse_zk_acl_path(zk_acl_path(*r));
      if (!again || !(*again == *r)) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  scram(in);
  scram_client(in);
  credentials(in);
  acls(in);
  plain(in);
  configs(in);
  return 0;
}

#include "client/security.h"

#include <openssl/ssl.h>


#include "common/ascii.h"
#include "common/properties.h"
#include "security/jaas.h"
#include "security/tls_stores.h"

namespace strata::client {
namespace {

using Properties = std::map<std::string, std::string>;

Result<void, std::string> set_sasl(const Properties& p, ClientSecurity& out) {
  const std::string mechanism = property_or(p, "sasl.mechanism", "GSSAPI");
  if (mechanism == "PLAIN") out.mechanism = SaslMechanism::kPlain;
  else if (mechanism == "SCRAM-SHA-256") out.mechanism = SaslMechanism::kScramSha256;
  else if (mechanism == "SCRAM-SHA-512") out.mechanism = SaslMechanism::kScramSha512;
  else {
    return fail("sasl.mechanism=" + mechanism +
                " is not supported (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)");
  }
  out.username = property_or(p, "sasl.username");
  out.password = property_or(p, "sasl.password");
  if (auto jaas = p.find("sasl.jaas.config"); jaas != p.end()) {
    auto parsed = security::parse_jaas_config(jaas->second);
    if (!parsed) return fail("sasl.jaas.config: " + parsed.error());
    out.username = parsed->username().value_or("");
    out.password = parsed->password().value_or("");
  }
  if (out.username.empty()) {
    return fail(std::string("SASL needs a user: sasl.jaas.config with username and password "
                            "(or sasl.username and sasl.password)"));
  }
  return {};
}

// The key store (a client certificate) if one is configured; none is fine.
Result<void, std::string> use_key_store(const Properties& p, SSL_CTX* ctx) {
  std::string chain = property_or(p, "ssl.keystore.certificate.chain");
  std::string key = property_or(p, "ssl.keystore.key");
  for (const auto& [k, target] : {std::pair{"ssl.keystore.location", 0}, std::pair{"ssl.certificate.location", 1},
                                  std::pair{"ssl.key.location", 2}}) {
    auto it = p.find(k);
    if (it == p.end()) continue;
    auto text = security::read_text_file(it->second);
    if (!text) return fail(std::string(k) + ": " + text.error());
    if (target == 0 || target == 1) chain = *text;
    if (target == 0 || target == 2) key = *text;
  }
  if (chain.empty() && key.empty()) return {};
  if (chain.empty() || key.empty()) {
    return fail(std::string("a client certificate needs both a key and a certificate chain"));
  }
  const std::string password = property_or(p, "ssl.key.password", property_or(p, "ssl.keystore.password"));
  if (auto r = security::use_pem_key_store(ctx, chain, key, password); !r) return fail("key store: " + r.error());
  return {};
}

Result<void, std::string> use_trust_store(const Properties& p, SSL_CTX* ctx) {
  std::string trust = property_or(p, "ssl.truststore.certificates");
  for (const char* k : {"ssl.truststore.location", "ssl.ca.location"}) {
    auto it = p.find(k);
    if (it == p.end()) continue;
    auto text = security::read_text_file(it->second);
    if (!text) return fail(std::string(k) + ": " + text.error());
    trust = *text;
  }
  if (trust.empty()) {
    SSL_CTX_set_default_verify_paths(ctx);
    return {};
  }
  if (auto r = security::use_pem_trust_store(ctx, trust); !r) return fail("trust store: " + r.error());
  return {};
}

Result<void, std::string> set_tls(const Properties& p, ClientSecurity& out) {
  for (const char* key : {"ssl.keystore.type", "ssl.truststore.type"}) {
    const std::string type = property_or(p, key, "PEM");
    if (type != "PEM") return fail(std::string(key) + "=" + type + ": Strata reads PEM stores only");
  }
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  if (!ctx) return fail("TLS: " + security::openssl_error());
  auto range = security::tls_protocol_range(property_or(p, "ssl.enabled.protocols", "TLSv1.2,TLSv1.3"));
  if (!range) return fail(range.error());
  SSL_CTX_set_min_proto_version(ctx.get(), range->first);
  SSL_CTX_set_max_proto_version(ctx.get(), range->second);
  if (auto r = use_key_store(p, ctx.get()); !r) return r;
  if (auto r = use_trust_store(p, ctx.get()); !r) return r;
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  const std::string identification = property_or(p, "ssl.endpoint.identification.algorithm", "https");
  if (identification != "https" && !identification.empty() && identification != "none") {
    return fail("ssl.endpoint.identification.algorithm=" + identification + ": expected https or empty");
  }
  out.verify_hostname = identification == "https";
  out.tls_context = std::move(ctx);
  return {};
}

}  // namespace

std::string ClientSecurity::mechanism_name() const {
  switch (mechanism) {
    case SaslMechanism::kPlain: return "PLAIN";
    case SaslMechanism::kScramSha256: return "SCRAM-SHA-256";
    case SaslMechanism::kScramSha512: return "SCRAM-SHA-512";
  }
  return "PLAIN";
}

Result<std::shared_ptr<const ClientSecurity>, std::string> client_security_from(const Properties& properties) {
  auto out = std::make_shared<ClientSecurity>();
  const std::string protocol = ascii_upper(property_or(properties, "security.protocol", "PLAINTEXT"));
  if (protocol == "SSL") out->tls = true;
  else if (protocol == "SASL_PLAINTEXT") out->sasl = true;
  else if (protocol == "SASL_SSL") out->tls = out->sasl = true;
  else if (protocol != "PLAINTEXT") {
    return fail("security.protocol=" + protocol +
                ": expected PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL");
  }
  if (out->sasl) {
    if (auto r = set_sasl(properties, *out); !r) return fail(r.error());
  }
  if (out->tls) {
    if (auto r = set_tls(properties, *out); !r) return fail(r.error());
  }
  return std::shared_ptr<const ClientSecurity>(std::move(out));
}

Result<std::shared_ptr<const ClientSecurity>, std::string> load_client_security(const std::string& path) {
  auto properties = read_properties_file(path);
  if (!properties) return fail(properties.error());
  auto security = client_security_from(*properties);
  if (!security) return fail(path + ": " + security.error());
  return security;
}

}  // namespace strata::client

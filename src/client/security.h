// A Kafka client's security settings, read from the properties a Java client or
// librdkafka takes (what `--command-config FILE` holds for Kafka's tools), and what a
// broker uses on its inter-broker connections:
//
//   security.protocol      PLAINTEXT (default), SSL, SASL_PLAINTEXT, SASL_SSL
//   sasl.mechanism         PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (Kafka's default GSSAPI
//                          is refused with a clear message: Strata has no Kerberos)
//   sasl.jaas.config       the login module's username="..." password="..."
//   sasl.username, sasl.password                       (librdkafka's names)
//   ssl.truststore.location | ssl.truststore.certificates, ssl.truststore.type=PEM
//   ssl.ca.location                                    (librdkafka's name)
//   ssl.keystore.location | ssl.keystore.key + ssl.keystore.certificate.chain,
//   ssl.keystore.type=PEM, ssl.key.password            (a client certificate)
//   ssl.certificate.location + ssl.key.location        (librdkafka's names)
//   ssl.endpoint.identification.algorithm  https (default: the broker's certificate must
//                          name the host or address connected to) or empty/none
//   ssl.enabled.protocols  TLSv1.2,TLSv1.3 (default)
//
// Other keys are ignored, as Kafka's tools ignore a client config's unknown keys with a
// warning (client.id, acks and the like belong to other layers). Without a trust store
// the system's default CA paths are trusted, as both clients do.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "common/result.h"

struct ssl_ctx_st;

namespace strata::client {

enum class SaslMechanism : uint8_t { kPlain, kScramSha256, kScramSha512 };

struct ClientSecurity {
  bool tls = false;
  bool sasl = false;
  SaslMechanism mechanism = SaslMechanism::kPlain;
  std::string username;
  std::string password;
  bool verify_hostname = true;
  // The TLS context every connection of this configuration shares; null without TLS.
  std::shared_ptr<ssl_ctx_st> tls_context;

  // Kafka's name of the mechanism ("SCRAM-SHA-512").
  std::string mechanism_name() const;
};

// Builds the settings from properties; errors name the key at fault.
Result<std::shared_ptr<const ClientSecurity>, std::string> client_security_from(
    const std::map<std::string, std::string>& properties);

// Reads a properties file (`--command-config FILE`) and builds its settings.
Result<std::shared_ptr<const ClientSecurity>, std::string> load_client_security(const std::string& path);

}  // namespace strata::client

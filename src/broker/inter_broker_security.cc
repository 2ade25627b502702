#include "broker/inter_broker_security.h"

#include <map>

#include "common/ascii.h"

namespace strata::broker {
Result<std::shared_ptr<const client::ClientSecurity>, std::string> inter_broker_client_security(
    const SecurityConfig& config) {
  const ListenerSpec& inter = config.inter_broker();
  if (inter.protocol == net::SecurityProtocol::kPlaintext) {
    return std::shared_ptr<const client::ClientSecurity>();
  }
  // The listener's effective settings, under the names a client's properties use.
  std::map<std::string, std::string> p;
  p["security.protocol"] = protocol_name(inter.protocol);
  auto copy = [&](const std::string& key, const std::string& as) {
    if (auto v = config.value(inter.name, key)) p[as] = *v;
  };
  for (const char* key : {"ssl.truststore.location", "ssl.truststore.certificates", "ssl.truststore.type",
                          "ssl.keystore.location", "ssl.keystore.key", "ssl.keystore.certificate.chain",
                          "ssl.keystore.type", "ssl.key.password", "ssl.keystore.password",
                          "ssl.enabled.protocols", "ssl.endpoint.identification.algorithm"}) {
    copy(key, key);
  }
  const std::string mechanism = config.value_or(inter.name, "sasl.mechanism.inter.broker.protocol", "GSSAPI");
  p["sasl.mechanism"] = mechanism;
  copy("sasl.jaas.config", "sasl.jaas.config");
  copy(ascii_lower(mechanism) + ".sasl.jaas.config", "sasl.jaas.config");
  auto security = client::client_security_from(p);
  if (!security) {
    return fail("inter-broker listener " + inter.name + " (" + p["security.protocol"] + "): " + security.error());
  }
  return security;
}

}  // namespace strata::broker

#include "tools/rdkafka_settings.h"

#include <ostream>
#include <set>
#include <vector>

#include "client/security.h"
#include "common/properties.h"
#include "security/jaas.h"
#include "tools/console_format.h"

namespace strata::tools {
namespace {

// Java client keys with no librdkafka counterpart: dropped, with a note.
const std::set<std::string>& java_only() {
  static const std::set<std::string> keys{
      "key.serializer", "value.serializer", "key.deserializer", "value.deserializer",
      "ssl.truststore.password", "ssl.keystore.password",
      "ssl.enabled.protocols", "ssl.protocol", "sasl.login.callback.handler.class",
      "max.block.ms", "buffer.memory", "interceptor.classes"};
  return keys;
}

}  // namespace

Result<Settings, std::string> gather_properties(const std::string& file, const std::vector<std::string>& overrides) {
  Settings out;
  if (!file.empty()) {
    auto read = read_properties_file(file);
    if (!read) return fail(read.error());
    out = std::move(*read);
  }
  for (const std::string& o : overrides) {
    auto [k, v] = split_property(o);
    if (k.empty()) return fail("bad property '" + o + "': expected key=value");
    out[k] = v;
  }
  return out;
}

Result<Settings, std::string> librdkafka_settings(const Settings& java, std::ostream& err) {
  if (auto checked = client::client_security_from(java); !checked) return fail(checked.error());
  Settings out;
  for (const auto& [k, v] : java) {
    // PEM stores (all client/security.h accepts) are what librdkafka reads anyway.
    if (k == "ssl.truststore.type" || k == "ssl.keystore.type") continue;
    if (java_only().count(k) != 0) {
      err << "Note: " << k << " has no librdkafka counterpart; ignored\n";
      continue;
    }
    if (k == "sasl.mechanism") {
      out["sasl.mechanisms"] = v;
    } else if (k == "sasl.jaas.config") {
      auto jaas = security::parse_jaas_config(v);
      if (!jaas) return fail("sasl.jaas.config: " + jaas.error());
      out["sasl.username"] = jaas->username().value_or("");
      out["sasl.password"] = jaas->password().value_or("");
    } else if (k == "ssl.truststore.location") {
      out["ssl.ca.location"] = v;
    } else if (k == "ssl.truststore.certificates") {
      out["ssl.ca.pem"] = v;
    } else if (k == "ssl.keystore.location") {
      out["ssl.certificate.location"] = v;
      out["ssl.key.location"] = v;
    } else if (k == "ssl.keystore.key") {
      out["ssl.key.pem"] = v;
    } else if (k == "ssl.keystore.certificate.chain") {
      out["ssl.certificate.pem"] = v;
    } else if (k == "ssl.endpoint.identification.algorithm") {
      out[k] = v.empty() ? "none" : v;
    } else {
      out[k] = v;
    }
  }
  // Java's default is https (a name check); librdkafka 2.0's is none.
  if (out.count("ssl.endpoint.identification.algorithm") == 0) out["ssl.endpoint.identification.algorithm"] = "https";
  return out;
}

}  // namespace strata::tools

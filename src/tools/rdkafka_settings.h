// A Java client's properties (what Kafka's console tools read from --producer.config,
// --consumer.config or --command-config, and take as --producer-property k=v) as
// librdkafka's settings, for `strata produce`, `consume` and `perf`, which run on
// librdkafka (Debian's librdkafka-dev: batching, partitioning, idempotence, compression,
// consumer groups as the clients our users run).
//
// The security keys are checked first with client/security.h's rules (the same errors
// as every other `strata` command), then renamed: sasl.mechanism -> sasl.mechanisms,
// sasl.jaas.config -> sasl.username / sasl.password, ssl.truststore.location (PEM) ->
// ssl.ca.location, ssl.truststore.certificates -> ssl.ca.pem, ssl.keystore.location (PEM
// key and chain) -> ssl.certificate.location + ssl.key.location, ssl.keystore.key /
// .certificate.chain -> ssl.key.pem / ssl.certificate.pem, an empty
// ssl.endpoint.identification.algorithm -> none. Java-only keys librdkafka has no
// counterpart for (serializers, *.type, ssl.enabled.protocols, ...) are dropped with a
// note on stderr, as Kafka's tools warn about unknown configs; every other key is
// passed as it is, so librdkafka's own names work too.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "common/result.h"

namespace strata::tools {

using Settings = std::map<std::string, std::string>;

// `java` translated as above; notes about dropped keys go to `err`.
Result<Settings, std::string> librdkafka_settings(const Settings& java, std::ostream& err);

// The file (if any) then the k=v overrides, in order, as one map.
Result<Settings, std::string> gather_properties(const std::string& file, const std::vector<std::string>& overrides);

}  // namespace strata::tools

// What the librdkafka-based commands (`strata produce`, `consume`, `perf`) share: a
// client made from a Java client's properties (rdkafka_settings.h), owned.
#pragma once

#include <librdkafka/rdkafka.h>

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "tools/rdkafka_settings.h"

namespace strata::tools {

struct RdKafkaDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using RdKafka = std::unique_ptr<rd_kafka_t, RdKafkaDeleter>;

// A client of `type` with `java` properties (translated); `configure` may add callbacks
// and an opaque to the configuration first. Null after printing why on `err`.
RdKafka make_client(rd_kafka_type_t type, const Settings& java, std::ostream& err,
                    const std::function<void(rd_kafka_conf_t*)>& configure = {});

// --command-config's file, then the tool's own config file (--producer.config, ...), then
// its k=v overrides: one map, later ones winning.
Result<Settings, std::string> client_properties(const std::string& config, const std::string& command_config,
                                                const std::vector<std::string>& overrides);

}  // namespace strata::tools

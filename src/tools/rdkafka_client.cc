#include "tools/rdkafka_client.h"

#include <ostream>

namespace strata::tools {

RdKafka make_client(rd_kafka_type_t type, const Settings& java, std::ostream& err,
                    const std::function<void(rd_kafka_conf_t*)>& configure) {
  auto settings = librdkafka_settings(java, err);
  if (!settings) {
    err << "ERROR " << settings.error() << "\n";
    return nullptr;
  }
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char why[512];
  for (const auto& [k, v] : *settings) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), why, sizeof why) != RD_KAFKA_CONF_OK) {
      err << "ERROR " << k << ": " << why << "\n";
      rd_kafka_conf_destroy(conf);
      return nullptr;
    }
  }
  if (configure) configure(conf);
  rd_kafka_t* rk = rd_kafka_new(type, conf, why, sizeof why);
  if (rk == nullptr) {
    err << "ERROR " << why << "\n";
    rd_kafka_conf_destroy(conf);  // rd_kafka_new keeps it only on success
  }
  return RdKafka(rk);
}

Result<Settings, std::string> client_properties(const std::string& config, const std::string& command_config,
                                                const std::vector<std::string>& overrides) {
  auto base = gather_properties(command_config, {});
  if (!base) return base;
  auto more = gather_properties(config, overrides);
  if (!more) return more;
  for (auto& [k, v] : *more) (*base)[k] = v;
  return base;
}

}  // namespace strata::tools

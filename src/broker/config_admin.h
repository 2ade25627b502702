// What DescribeConfigs, AlterConfigs and IncrementalAlterConfigs share: the catalog of
// topic configs Strata knows (Kafka's names, types and broker synonyms), the checks
// Kafka makes of every alter request, and the one path by which a topic's overrides
// change (validate, persist in Topics, apply to the live partition logs). CreatePartitions
// shares its lock.
#pragma once

#include <asio.hpp>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "broker/broker.h"
#include "broker/errors.h"
#include "storage/log_config.h"

namespace strata::broker {

// Kafka's ConfigResource.Type ids.
namespace config_resource {
inline constexpr int8_t kTopic = 2;
inline constexpr int8_t kBroker = 4;
}  // namespace config_resource

// Kafka's DescribeConfigsResponse.ConfigSource ids.
namespace config_source {
inline constexpr int8_t kTopic = 1;         // DYNAMIC_TOPIC_CONFIG: a topic override
inline constexpr int8_t kDynamicBroker = 2;   // DYNAMIC_BROKER_CONFIG: /config/brokers/<id>
inline constexpr int8_t kDynamicDefault = 3;  // DYNAMIC_DEFAULT_BROKER_CONFIG: /config/brokers/<default>
inline constexpr int8_t kStaticBroker = 4;  // STATIC_BROKER_CONFIG: server.properties / --override
inline constexpr int8_t kDefault = 5;       // DEFAULT_CONFIG
}  // namespace config_source

// Kafka's DescribeConfigsResponse.ConfigType ids (the ConfigDef type of each config).
namespace config_type {
inline constexpr int8_t kBoolean = 1;
inline constexpr int8_t kString = 2;
inline constexpr int8_t kInt = 3;
inline constexpr int8_t kLong = 5;
inline constexpr int8_t kDouble = 6;
inline constexpr int8_t kList = 7;
}  // namespace config_type

// Kafka's AlterConfigOp.OpType ids (IncrementalAlterConfigs).
namespace config_op {
inline constexpr int8_t kSet = 0;
inline constexpr int8_t kDelete = 1;
inline constexpr int8_t kAppend = 2;
inline constexpr int8_t kSubtract = 3;
}  // namespace config_op

struct TopicConfigKey {
  const char* name;         // the topic config, e.g. "retention.ms"
  int8_t type;              // config_type
  const char* broker_name;  // its highest-priority broker synonym, e.g. "log.retention.ms"
  // Kafka lists the broker synonym's default among the synonyms only where that broker
  // config has a default of its own (log.roll.ms, log.retention.ms and
  // log.flush.interval.ms have none: their hours/scheduler forms carry it).
  bool broker_default_listed;
  std::string (*value)(const storage::LogConfig&);  // in Kafka's string form
  const char* doc;
};

// Every topic config of storage::LogConfig, in name order.
const std::vector<TopicConfigKey>& topic_config_keys();
const TopicConfigKey* find_topic_config_key(const std::string& name);

// "a,b" <-> {"a", "b"}; parts are trimmed and empty ones dropped, as Kafka's list
// parsing does (ConfigDef's LIST: "a, b" is {"a", "b"}).
std::vector<std::string> split_list(const std::string& s);
std::string join_list(const std::vector<std::string>& parts);

// The (type, name) pairs that appear more than once in `resources`: Kafka answers each
// of their entries INVALID_REQUEST "Each resource must appear at most once.".
template <class Resource>
std::set<std::pair<int8_t, std::string>> duplicate_resources(
    const std::vector<Resource>& resources) {
  std::set<std::pair<int8_t, std::string>> seen, dups;
  for (const Resource& r : resources) {
    if (!seen.emplace(r.resource_type, r.resource_name).second) {
      dups.emplace(r.resource_type, r.resource_name);
    }
  }
  return dups;
}

// The loop AlterConfigs and IncrementalAlterConfigs share: each resource answered with
// INVALID_REQUEST if it repeats, else with what `alter` (a coroutine function, passed
// as a plain pointer) returns for it.
template <class Response, class Request, class Resource>
asio::awaitable<Response> alter_each_resource(
    Broker& broker, Request& request,
    asio::awaitable<ApiError> (*alter)(Broker&, const Resource&, bool),
    const std::function<std::optional<ApiError>(int8_t type, const std::string& name)>& denied) {
  Response response;
  const auto dups = duplicate_resources(request.resources);
  for (const Resource& r : request.resources) {
    ApiError err;
    if (dups.count({r.resource_type, r.resource_name})) {
      err = {kafka_error::kInvalidRequest, "Each resource must appear at most once."};
    } else if (auto no = denied(r.resource_type, r.resource_name)) {
      err = *no;
    } else {
      err = co_await alter(broker, r, request.validate_only);
    }
    typename Response::Result out;
    out.error_code = err.code;
    out.error_message = err.message;
    out.resource_type = r.resource_type;
    out.resource_name = r.resource_name;
    response.responses.push_back(std::move(out));
  }
  co_return response;
}

// INVALID_REQUEST "Error due to duplicate config keys" if a name repeats.
template <class Config>
std::optional<ApiError> check_unique_keys(const std::vector<Config>& configs) {
  std::set<std::string> names;
  for (const Config& c : configs) {
    if (!names.insert(c.name).second) {
      return ApiError{kafka_error::kInvalidRequest, "Error due to duplicate config keys"};
    }
  }
  return std::nullopt;
}

// INVALID_REQUEST "Null value not supported for : a, b" when `names` is not empty.
std::optional<ApiError> null_values_error(const std::vector<std::string>& names);

// Turns a topic's (or broker's) current overrides into the new ones, or says why it cannot.
using OverridesEdit = std::function<std::optional<ApiError>(std::map<std::string, std::string>&)>;

// A BROKER resource in an alter request: "" (the cluster-wide default entity) or this
// node's id (INVALID_REQUEST otherwise, as Kafka's). `keys` (those the request names)
// must all be dynamic (dynamic_configs.h), else INVALID_REQUEST "Cannot update these
// configs dynamically: Set(...)", as Kafka refuses a read-only one. Then `edit` turns
// the entity's overrides into the new ones, each value is checked (INVALID_CONFIG) and,
// unless `validate_only` or nothing changed, they are written. A single node keeps no
// dynamic configs (they live in the cluster's etcd): a change there is refused with the
// same INVALID_REQUEST, a removal of none succeeds.
asio::awaitable<ApiError> alter_broker_configs(Broker& broker, const std::string& name,
                                               const std::vector<std::string>& keys, const OverridesEdit& edit,
                                               bool validate_only);

// The one way a topic's overrides change. Under Broker::admin_lock: applies `edit` to
// the current overrides, validates the result over the broker defaults (INVALID_CONFIG
// with LogConfig's message), checks the topic exists (UNKNOWN_TOPIC_OR_PARTITION) and,
// unless `validate_only`, persists it. Then each partition's log takes the new
// LogConfig on its owner shard. Returns NONE (message null) on success.
// The topic's logs on this broker take `config`, each on its owner shard.
asio::awaitable<void> apply_log_config(Broker& broker, const TopicInfo& info, const storage::LogConfig& config);

asio::awaitable<ApiError> alter_topic_configs(Broker& broker, const std::string& topic,
                                              const OverridesEdit& edit, bool validate_only);

}  // namespace strata::broker

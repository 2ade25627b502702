// IncrementalAlterConfigs: changes individual topic overrides by SET, DELETE, APPEND or
// SUBTRACT (the last two only for LIST configs, i.e. cleanup.policy, starting from the
// effective value when there is no override), then validates, persists and applies the
// result as AlterConfigs does. BROKER resources: SET and DELETE of the entity's dynamic
// configs (config_admin.h, alter_broker_configs).
// Errors: INVALID_REQUEST (repeated resource or key, null value for a non-DELETE,
// unknown operation, bad broker name, a broker config that is not dynamic, other
// resource types),
// INVALID_TOPIC_EXCEPTION, INVALID_CONFIG, UNKNOWN_TOPIC_OR_PARTITION, KAFKA_STORAGE_ERROR.
#include <algorithm>

#include "broker/handlers/authorize.h"
#include "broker/config_admin.h"
#include "broker/errors.h"
#include "broker/handlers/handlers.h"

namespace strata::broker {

using protocol::IncrementalAlterConfigsRequest;
using protocol::IncrementalAlterConfigsResponse;

namespace {

using Op = IncrementalAlterConfigsRequest::Config;

const char* op_name(int8_t op) {
  return op == config_op::kAppend ? "APPEND" : "SUBTRACT";
}

// One operation on the overrides; `defaults` supplies a LIST config's value when it has
// no override (Kafka's ConfigurationControlManager.incrementalAlterConfigResource).
std::optional<ApiError> apply_op(const Op& op, const storage::LogConfig& defaults,
                                 std::map<std::string, std::string>& overrides) {
  switch (op.config_operation) {
    case config_op::kSet:
      overrides[op.name] = *op.value;
      return std::nullopt;
    case config_op::kDelete:
      overrides.erase(op.name);
      return std::nullopt;
    case config_op::kAppend:
    case config_op::kSubtract: {
      const TopicConfigKey* key = find_topic_config_key(op.name);
      if (key == nullptr || key->type != config_type::kList) {
        return ApiError{kafka_error::kInvalidConfig,
                        std::string("Can't ") + op_name(op.config_operation) + " to key " +
                            op.name + " because its type is not LIST."};
      }
      auto it = overrides.find(op.name);
      std::vector<std::string> parts =
          split_list(it != overrides.end() ? it->second : key->value(defaults));
      for (const std::string& v : split_list(*op.value)) {
        auto found = std::find(parts.begin(), parts.end(), v);
        if (op.config_operation == config_op::kAppend && found == parts.end()) parts.push_back(v);
        if (op.config_operation == config_op::kSubtract && found != parts.end()) parts.erase(found);
      }
      overrides[op.name] = join_list(parts);
      return std::nullopt;
    }
    default:
      return ApiError{kafka_error::kInvalidRequest,
                      "Unknown operations type " + std::to_string(int(op.config_operation))};
  }
}

// Kafka's ConfigAdminManager.preprocess checks, then the change itself.
asio::awaitable<ApiError> alter(Broker& broker, const IncrementalAlterConfigsRequest::Resource& r,
                                bool validate_only) {
  if (auto bad = check_unique_keys(r.configs)) co_return *bad;
  std::vector<std::string> nulls, keys;
  for (const Op& c : r.configs) {
    keys.push_back(c.name);
    if (c.config_operation != config_op::kDelete && !c.value) nulls.push_back(c.name);
  }
  if (auto bad = null_values_error(nulls)) co_return *bad;
  if (r.resource_type == config_resource::kBroker) {
    // SET and DELETE; APPEND and SUBTRACT are refused (no broker config is a LIST).
    auto edit = [&r, &broker](std::map<std::string, std::string>& overrides) {
      for (const Op& op : r.configs) {
        if (auto bad = apply_op(op, broker.config().log_defaults, overrides)) return bad;
      }
      return std::optional<ApiError>();
    };
    co_return co_await alter_broker_configs(broker, r.resource_name, keys, edit, validate_only);
  }
  if (r.resource_type != config_resource::kTopic) {
    co_return ApiError{kafka_error::kInvalidRequest,
                       "Unknown resource type " + std::to_string(int(r.resource_type))};
  }
  const storage::LogConfig& defaults = broker.config().log_defaults;
  auto edit = [&r, &defaults](std::map<std::string, std::string>& overrides) {
    for (const Op& op : r.configs) {
      if (auto bad = apply_op(op, defaults, overrides)) return bad;
    }
    return std::optional<ApiError>();
  };
  co_return co_await alter_topic_configs(broker, r.resource_name, edit, validate_only);
}

}  // namespace

asio::awaitable<IncrementalAlterConfigsResponse> handle_incremental_alter_configs(
    Broker& broker, RequestContext& ctx, IncrementalAlterConfigsRequest& request) {
  // Kafka's check: ALTER_CONFIGS on the topic or the cluster.
  auto denied = [&broker, &ctx](int8_t type, const std::string& name) -> std::optional<ApiError> {
    if (auto code = config_denied(broker, ctx, AclOperation::kAlterConfigs, type, name)) return ApiError{*code, {}};
    return std::nullopt;
  };
  co_return co_await alter_each_resource<IncrementalAlterConfigsResponse>(broker, request, &alter, denied);
}

}  // namespace strata::broker

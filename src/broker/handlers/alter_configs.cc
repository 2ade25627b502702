// AlterConfigs (legacy): replaces the whole set of a topic's overrides with the given
// configs (those not named revert to the broker's defaults), validated, persisted and
// applied to the live partition logs. BROKER resources: the whole set of the entity's
// dynamic configs likewise (config_admin.h, alter_broker_configs). Errors:
// INVALID_REQUEST (repeated resource or key, null value, bad broker name, a broker config
// that is not dynamic, other resource types), INVALID_TOPIC_EXCEPTION,
// INVALID_CONFIG, UNKNOWN_TOPIC_OR_PARTITION, KAFKA_STORAGE_ERROR.
#include "broker/handlers/authorize.h"
#include "broker/config_admin.h"
#include "broker/errors.h"
#include "broker/handlers/handlers.h"

namespace strata::broker {

using protocol::AlterConfigsRequest;
using protocol::AlterConfigsResponse;

namespace {

// Kafka's ConfigAdminManager.preprocess checks, then the change itself.
asio::awaitable<ApiError> alter(Broker& broker, const AlterConfigsRequest::Resource& r,
                                bool validate_only) {
  if (auto bad = check_unique_keys(r.configs)) co_return *bad;
  std::vector<std::string> nulls, keys;
  std::map<std::string, std::string> overrides;
  for (const auto& c : r.configs) {
    keys.push_back(c.name);
    if (c.value) {
      overrides[c.name] = *c.value;
    } else {
      nulls.push_back(c.name);
    }
  }
  if (auto bad = null_values_error(nulls)) co_return *bad;
  auto replace = [&overrides](std::map<std::string, std::string>& current) {
    current = overrides;
    return std::optional<ApiError>();
  };
  if (r.resource_type == config_resource::kBroker) {
    co_return co_await alter_broker_configs(broker, r.resource_name, keys, replace, validate_only);
  }
  if (r.resource_type != config_resource::kTopic) {
    co_return ApiError{kafka_error::kInvalidRequest,
                       "Unknown resource type " + std::to_string(int(r.resource_type))};
  }
  co_return co_await alter_topic_configs(broker, r.resource_name, replace, validate_only);
}

}  // namespace

asio::awaitable<AlterConfigsResponse> handle_alter_configs(Broker& broker, RequestContext& ctx,
                                                           AlterConfigsRequest& request) {
  auto denied = [&broker, &ctx](int8_t type, const std::string& name) -> std::optional<ApiError> {
    if (auto code = config_denied(broker, ctx, AclOperation::kAlterConfigs, type, name)) return ApiError{*code, {}};
    return std::nullopt;
  };
  co_return co_await alter_each_resource<AlterConfigsResponse>(broker, request, &alter, denied);
}

}  // namespace strata::broker

// Authorization inside handlers: the request's principal and client address against the
// broker's Authorizer (always allowed when no authorizer is configured).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/kafka_errors.h"

#include "broker/authorizer.h"
#include "broker/broker.h"
#include "security/acl.h"

namespace strata::broker {

using security::AclOperation;
using security::ResourceType;

inline bool authorized(Broker& broker, const RequestContext& ctx, AclOperation op, ResourceType type,
                       std::string_view name) {
  return broker.authorizer().allowed(ctx.session().principal, client_host(ctx.frame.client_address), op,
                                     type, name);
}

// Kafka's authorized-operations bit field of a resource for the request's principal.
inline int32_t authorized_operations(Broker& broker, const RequestContext& ctx, ResourceType type,
                                     std::string_view name) {
  return broker.authorizer().authorized_operations(ctx.session().principal, client_host(ctx.frame.client_address),
                                                   type, name);
}

// The CLUSTER resource's only name.
inline constexpr std::string_view kClusterName = "kafka-cluster";

inline bool cluster_authorized(Broker& broker, const RequestContext& ctx, AclOperation op) {
  return authorized(broker, ctx, op, ResourceType::kCluster, kClusterName);
}

// Kafka's checks of a config resource (DescribeConfigs, AlterConfigs,
// IncrementalAlterConfigs): `op` on the topic (TOPIC_AUTHORIZATION_FAILED), or on the
// cluster for a broker or broker logger (CLUSTER_AUTHORIZATION_FAILED). Nullopt: allowed.
inline std::optional<int16_t> config_denied(Broker& broker, const RequestContext& ctx, AclOperation op,
                                            int8_t resource_type, const std::string& name) {
  constexpr int8_t kTopicResource = 2;
  if (resource_type == kTopicResource) {
    if (authorized(broker, ctx, op, ResourceType::kTopic, name)) return std::nullopt;
    return kafka_error::kTopicAuthorizationFailed;
  }
  if (cluster_authorized(broker, ctx, op)) return std::nullopt;
  return kafka_error::kClusterAuthorizationFailed;
}

}  // namespace strata::broker

// Authorization inside handlers: the request's principal and client address against the
// broker's Authorizer (always allowed when no authorizer is configured).
#pragma once

#include <string_view>

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

// The CLUSTER resource's only name.
inline constexpr std::string_view kClusterName = "kafka-cluster";

inline bool cluster_authorized(Broker& broker, const RequestContext& ctx, AclOperation op) {
  return authorized(broker, ctx, op, ResourceType::kCluster, kClusterName);
}

}  // namespace strata::broker

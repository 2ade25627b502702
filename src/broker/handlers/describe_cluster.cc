// DescribeCluster: the cluster id, the live brokers and the controller's id, from the
// snapshot's ClusterMeta (this node alone on the embedded single node). Only the brokers endpoint
// type is served. Errors: INVALID_REQUEST (v0) or MISMATCHED_ENDPOINT_TYPE for the
// controllers endpoint type, UNSUPPORTED_ENDPOINT_TYPE for an unknown one.
#include "broker/errors.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"

namespace strata::broker {

using protocol::DescribeClusterRequest;
using protocol::DescribeClusterResponse;

asio::awaitable<DescribeClusterResponse> handle_describe_cluster(Broker& broker,
                                                                 RequestContext& ctx,
                                                                 DescribeClusterRequest& request) {
  DescribeClusterResponse r;
  const bool v0 = ctx.header.api_version == 0;
  r.endpoint_type = request.endpoint_type;
  if (request.endpoint_type == DescribeClusterRequest::kControllers) {
    r.error_code = v0 ? kafka_error::kInvalidRequest : kafka_error::kMismatchedEndpointType;
    r.error_message =
        "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type "
        "CONTROLLER";
    co_return r;
  }
  if (request.endpoint_type != DescribeClusterRequest::kBrokers) {
    r.error_code = v0 ? kafka_error::kInvalidRequest : kafka_error::kUnsupportedEndpointType;
    r.error_message = "Unsupported endpoint type " + std::to_string(int(request.endpoint_type));
    co_return r;
  }
  const ClusterMeta& cluster = ctx.metadata->cluster();
  r.cluster_id = cluster.cluster_id;
  r.controller_id = cluster.controller_id;
  const std::string& listener = ctx.session().listener->name;
  for (const BrokerMeta& b : cluster.brokers) {
    if (auto e = b.address(listener)) r.brokers.push_back({b.node_id, e->host, e->port, b.rack});
  }
  if (request.include_cluster_authorized_operations) {
    r.cluster_authorized_operations = authorized_operations(broker, ctx, ResourceType::kCluster, kClusterName);
  }
  co_return r;
}

}  // namespace strata::broker

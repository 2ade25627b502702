// DescribeCluster (key 60): the cluster id, the controller and the brokers (or, from
// v1, the controllers), as the admin client asks for them.
// Follows Kafka's schema for versions 0-1 (Kafka 4.0-SNAPSHOT, Oct 2024); flexible
// in every version. v1 adds the endpoint type.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DescribeClusterRequest {
  static constexpr int16_t kApiKey = 60;
  static constexpr Versions kVersions{0, 1};
  static constexpr int16_t kFlexibleFrom = 0;

  static constexpr int8_t kBrokers = 1;
  static constexpr int8_t kControllers = 2;

  bool include_cluster_authorized_operations = false;
  int8_t endpoint_type = kBrokers;

  template <class V>
  void visit(V& v) {
    v(include_cluster_authorized_operations, F{{0}});
    v(endpoint_type, F{{1}});
  }
};

struct DescribeClusterResponse {
  static constexpr int16_t kApiKey = DescribeClusterRequest::kApiKey;
  static constexpr Versions kVersions = DescribeClusterRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DescribeClusterRequest::kFlexibleFrom;

  struct Broker {
    int32_t broker_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    template <class V>
    void visit(V& v) {
      v(broker_id, F{{0}});
      v(host, F{{0}});
      v(port, F{{0}});
      v(rack, F{.versions = {0}, .nullable = {0}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  int8_t endpoint_type = DescribeClusterRequest::kBrokers;
  std::string cluster_id;
  int32_t controller_id = -1;
  std::vector<Broker> brokers;
  int32_t cluster_authorized_operations = INT32_MIN;  // INT32_MIN: not asked for

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{0}});
    v(error_message, F{.versions = {0}, .nullable = {0}});
    v(endpoint_type, F{{1}});
    v(cluster_id, F{{0}});
    v(controller_id, F{{0}});
    v(brokers, F{{0}});
    v(cluster_authorized_operations, F{{0}});
  }
};

}  // namespace strata::protocol

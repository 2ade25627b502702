// Metadata (key 3): the brokers, and the partitions and leaders of some or all topics.
// Follows Kafka's schema for versions 0-12 (Kafka 4.0-SNAPSHOT, Oct 2024); flexible
// from 9. v1 adds racks, the controller and internal topics; v2 the cluster id; v3
// throttling; v4 auto-creation control; v5 offline replicas; v7 leader epochs; v8
// authorized operations; v10 topic ids; v11 drops the cluster's authorized operations
// (DescribeCluster has them); v12 allows lookups by topic id (null names).
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct MetadataRequest {
  static constexpr int16_t kApiKey = 3;
  static constexpr Versions kVersions{0, 12};
  static constexpr int16_t kFlexibleFrom = 9;

  struct Topic {
    Uuid topic_id;
    std::optional<std::string> name = "";  // null from v10 when asking by id
    template <class V>
    void visit(V& v) {
      v(topic_id, F{{10}});
      v(name, F{.versions = {0}, .nullable = {10}});
    }
  };

  // v0: empty means all topics. v1+: null means all topics, empty means none.
  std::optional<std::vector<Topic>> topics = std::vector<Topic>{};
  bool allow_auto_topic_creation = true;
  bool include_cluster_authorized_operations = false;
  bool include_topic_authorized_operations = false;

  template <class V>
  void visit(V& v) {
    v(topics, F{.versions = {0}, .nullable = {1}});
    v(allow_auto_topic_creation, F{{4}});
    v(include_cluster_authorized_operations, F{{8, 10}});
    v(include_topic_authorized_operations, F{{8}});
  }
};

struct MetadataResponse {
  static constexpr int16_t kApiKey = MetadataRequest::kApiKey;
  static constexpr Versions kVersions = MetadataRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = MetadataRequest::kFlexibleFrom;

  // Authorized operations were not asked for.
  static constexpr int32_t kOperationsUnknown = INT32_MIN;

  struct Broker {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    template <class V>
    void visit(V& v) {
      v(node_id, F{{0}});
      v(host, F{{0}});
      v(port, F{{0}});
      v(rack, F{.versions = {1}, .nullable = {1}});
    }
  };
  struct Partition {
    int16_t error_code = 0;
    int32_t partition_index = 0;
    int32_t leader_id = 0;
    int32_t leader_epoch = -1;
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::vector<int32_t> offline_replicas;
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(partition_index, F{{0}});
      v(leader_id, F{{0}});
      v(leader_epoch, F{{7}});
      v(replica_nodes, F{{0}});
      v(isr_nodes, F{{0}});
      v(offline_replicas, F{{5}});
    }
  };
  struct Topic {
    int16_t error_code = 0;
    std::optional<std::string> name = "";  // null from v12 for an unknown id
    Uuid topic_id;                         // zero for an unknown name
    bool is_internal = false;
    std::vector<Partition> partitions;
    int32_t topic_authorized_operations = kOperationsUnknown;
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(name, F{.versions = {0}, .nullable = {12}});
      v(topic_id, F{{10}});
      v(is_internal, F{{1}});
      v(partitions, F{{0}});
      v(topic_authorized_operations, F{{8}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<Broker> brokers;
  std::optional<std::string> cluster_id;
  int32_t controller_id = -1;
  std::vector<Topic> topics;
  int32_t cluster_authorized_operations = kOperationsUnknown;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{3}});
    v(brokers, F{{0}});
    v(cluster_id, F{.versions = {2}, .nullable = {2}});
    v(controller_id, F{{1}});
    v(topics, F{{0}});
    v(cluster_authorized_operations, F{{8, 10}});
  }
};

}  // namespace strata::protocol

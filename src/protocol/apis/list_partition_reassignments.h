// ListPartitionReassignments (key 46, KIP-455): the partitions being moved, with their
// full replica sets and the replicas being added and removed. Version 0, flexible.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct ListPartitionReassignmentsRequest {
  static constexpr int16_t kApiKey = 46;
  static constexpr Versions kVersions{0, 0};
  static constexpr int16_t kFlexibleFrom = 0;

  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partition_indexes, F{{0}});
    }
  };

  int32_t timeout_ms = 60000;
  std::optional<std::vector<Topic>> topics;  // null: every partition being moved

  template <class V>
  void visit(V& v) {
    v(timeout_ms, F{{0}});
    v(topics, F{.versions = {0}, .nullable = {0}});
  }
};

struct ListPartitionReassignmentsResponse {
  static constexpr int16_t kApiKey = ListPartitionReassignmentsRequest::kApiKey;
  static constexpr Versions kVersions = ListPartitionReassignmentsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = ListPartitionReassignmentsRequest::kFlexibleFrom;

  struct Partition {
    int32_t partition_index = 0;
    std::vector<int32_t> replicas;
    std::vector<int32_t> adding_replicas;
    std::vector<int32_t> removing_replicas;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(replicas, F{{0}});
      v(adding_replicas, F{{0}});
      v(removing_replicas, F{{0}});
    }
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partitions, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{0}});
    v(error_message, F{.versions = {0}, .nullable = {0}});
    v(topics, F{{0}});
  }
};

}  // namespace strata::protocol

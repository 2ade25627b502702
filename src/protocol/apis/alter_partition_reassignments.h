// AlterPartitionReassignments (key 45, KIP-455): move partitions to new replica sets, or
// cancel a move (null replicas). Version 0, flexible (Kafka 4.0's v1 adds
// AllowReplicationFactorChange; Strata offers v0, where a change is allowed).
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct AlterPartitionReassignmentsRequest {
  static constexpr int16_t kApiKey = 45;
  static constexpr Versions kVersions{0, 0};
  static constexpr int16_t kFlexibleFrom = 0;

  struct Partition {
    int32_t partition_index = 0;
    std::optional<std::vector<int32_t>> replicas;  // null: cancel the partition's move
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(replicas, F{.versions = {0}, .nullable = {0}});
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

  int32_t timeout_ms = 60000;
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(timeout_ms, F{{0}});
    v(topics, F{{0}});
  }
};

struct AlterPartitionReassignmentsResponse {
  static constexpr int16_t kApiKey = AlterPartitionReassignmentsRequest::kApiKey;
  static constexpr Versions kVersions = AlterPartitionReassignmentsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = AlterPartitionReassignmentsRequest::kFlexibleFrom;

  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(error_code, F{{0}});
      v(error_message, F{.versions = {0}, .nullable = {0}});
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
  std::vector<Topic> responses;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{0}});
    v(error_message, F{.versions = {0}, .nullable = {0}});
    v(responses, F{{0}});
  }
};

}  // namespace strata::protocol

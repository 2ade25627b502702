// ElectLeaders (key 43): elect the preferred replica (or, with election type 1, any live
// replica where no in-sync one is alive) as leader of the named partitions, or of every
// partition when the list is null (KIP-183, KIP-460).
//
// Follows Kafka 4.0's schema: versions 0-2, flexible from 2; v1 adds ElectionType and the
// response's top-level ErrorCode.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct ElectLeadersRequest {
  static constexpr int16_t kApiKey = 43;
  static constexpr Versions kVersions{0, 2};
  static constexpr int16_t kFlexibleFrom = 2;

  struct TopicPartitions {
    std::string topic;
    std::vector<int32_t> partitions;
    template <class V>
    void visit(V& v) {
      v(topic, F{{0}});
      v(partitions, F{{0}});
    }
  };

  int8_t election_type = 0;  // v1+: 0 preferred, 1 unclean; v0 is preferred
  std::optional<std::vector<TopicPartitions>> topic_partitions{std::in_place};  // null: every partition
  int32_t timeout_ms = 60000;

  template <class V>
  void visit(V& v) {
    v(election_type, F{{1}});
    v(topic_partitions, F{.versions = {0}, .nullable = {0}});
    v(timeout_ms, F{{0}});
  }
};

struct ElectLeadersResponse {
  static constexpr int16_t kApiKey = ElectLeadersRequest::kApiKey;
  static constexpr Versions kVersions = ElectLeadersRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = ElectLeadersRequest::kFlexibleFrom;

  struct PartitionResult {
    int32_t partition_id = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    template <class V>
    void visit(V& v) {
      v(partition_id, F{{0}});
      v(error_code, F{{0}});
      v(error_message, F{.versions = {0}, .nullable = {0}});
    }
  };
  struct ReplicaElectionResult {
    std::string topic;
    std::vector<PartitionResult> partition_result;
    template <class V>
    void visit(V& v) {
      v(topic, F{{0}});
      v(partition_result, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;  // v1+
  std::vector<ReplicaElectionResult> replica_election_results;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{1}});
    v(replica_election_results, F{{0}});
  }
};

}  // namespace strata::protocol

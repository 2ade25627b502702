// Produce (key 0): a producer appends record batches to partition leaders.
// Follows Kafka's schema for versions 0-11 (Kafka 4.0-SNAPSHOT, Oct 2024); flexible
// from 9. v3 adds the transactional id; v8 adds per-batch errors to the response;
// v10 adds the tagged leader hints (KIP-951). Versions 1-2 and 4-7, and 11, change
// only semantics (message format, compression codecs, error codes), not the layout.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct ProduceRequest {
  static constexpr int16_t kApiKey = 0;
  static constexpr Versions kVersions{0, 11};
  static constexpr int16_t kFlexibleFrom = 9;

  struct PartitionData {
    int32_t index = 0;
    Records records;  // decoded: a writable view of the request frame
    template <class V>
    void visit(V& v) {
      v(index, F{{0}});
      v(records, F{.versions = {0}, .nullable = {0}});
    }
  };
  struct TopicData {
    std::string name;
    std::vector<PartitionData> partition_data;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partition_data, F{{0}});
    }
  };

  std::optional<std::string> transactional_id;  // null: not a transactional producer
  int16_t acks = 0;                              // 0 none, 1 leader, -1 all in-sync replicas
  int32_t timeout_ms = 0;
  std::vector<TopicData> topic_data;

  template <class V>
  void visit(V& v) {
    v(transactional_id, F{.versions = {3}, .nullable = {3}});
    v(acks, F{{0}});
    v(timeout_ms, F{{0}});
    v(topic_data, F{{0}});
  }
};

struct ProduceResponse {
  static constexpr int16_t kApiKey = ProduceRequest::kApiKey;
  static constexpr Versions kVersions = ProduceRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = ProduceRequest::kFlexibleFrom;

  struct RecordError {
    int32_t batch_index = 0;  // which record in the batch caused it to be dropped
    std::optional<std::string> batch_index_error_message;
    template <class V>
    void visit(V& v) {
      v(batch_index, F{{8}});
      v(batch_index_error_message, F{.versions = {8}, .nullable = {8}});
    }
  };
  struct LeaderIdAndEpoch {
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    template <class V>
    void visit(V& v) {
      v(leader_id, F{{10}});
      v(leader_epoch, F{{10}});
    }
  };
  struct PartitionResponse {
    int32_t index = 0;
    int16_t error_code = 0;
    int64_t base_offset = 0;
    int64_t log_append_time_ms = -1;  // -1 unless the topic uses LogAppendTime
    int64_t log_start_offset = -1;
    std::vector<RecordError> record_errors;
    std::optional<std::string> error_message;
    std::optional<LeaderIdAndEpoch> current_leader;  // set with NOT_LEADER_OR_FOLLOWER
    template <class V>
    void visit(V& v) {
      v(index, F{{0}});
      v(error_code, F{{0}});
      v(base_offset, F{{0}});
      v(log_append_time_ms, F{{2}});
      v(log_start_offset, F{{5}});
      v(record_errors, F{{8}});
      v(error_message, F{.versions = {8}, .nullable = {8}});
      v(current_leader, F{.versions = {10}, .tag = 0, .tagged = {10}});
    }
  };
  struct TopicResponse {
    std::string name;
    std::vector<PartitionResponse> partition_responses;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partition_responses, F{{0}});
    }
  };
  struct NodeEndpoint {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    template <class V>
    void visit(V& v) {
      v(node_id, F{{10}});
      v(host, F{{10}});
      v(port, F{{10}});
      v(rack, F{.versions = {10}, .nullable = {10}});
    }
  };

  std::vector<TopicResponse> responses;
  int32_t throttle_time_ms = 0;
  std::vector<NodeEndpoint> node_endpoints;  // the leaders named in current_leader

  template <class V>
  void visit(V& v) {
    v(responses, F{{0}});
    v(throttle_time_ms, F{{1}});
    v(node_endpoints, F{.versions = {10}, .tag = 0, .tagged = {10}});
  }
};

}  // namespace strata::protocol

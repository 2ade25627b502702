// Fetch (key 1): consumers and follower replicas read record batches from leaders.
// Follows Kafka's schema for versions 0-17 (Kafka 4.0-SNAPSHOT, Oct 2024); flexible
// from 12. v3 adds a response size limit, v4 isolation levels and aborted
// transactions, v5 log start offsets, v7 incremental fetch sessions, v9 leader-epoch
// fencing, v11 rack-aware reads, v12 divergence detection, v13 topic ids in place of
// names, v15 the replica state in place of the replica id, v16 leader endpoints,
// v17 the follower's directory id.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct FetchRequest {
  static constexpr int16_t kApiKey = 1;
  static constexpr Versions kVersions{0, 17};
  static constexpr int16_t kFlexibleFrom = 12;

  struct ReplicaState {
    int32_t replica_id = -1;     // -1: a consumer
    int64_t replica_epoch = -1;  // the follower's broker epoch, -1 if unknown
    template <class V>
    void visit(V& v) {
      v(replica_id, F{{15}});
      v(replica_epoch, F{{15}});
    }
  };
  struct FetchPartition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;
    int64_t fetch_offset = 0;
    int32_t last_fetched_epoch = -1;  // -1: nothing fetched yet
    int64_t log_start_offset = -1;    // sent by followers only
    int32_t partition_max_bytes = 0;
    Uuid replica_directory_id;
    template <class V>
    void visit(V& v) {
      v(partition, F{{0}});
      v(current_leader_epoch, F{{9}});
      v(fetch_offset, F{{0}});
      v(last_fetched_epoch, F{{12}});
      v(log_start_offset, F{{5}});
      v(partition_max_bytes, F{{0}});
      v(replica_directory_id, F{.versions = {17}, .tag = 0, .tagged = {17}});
    }
  };
  struct FetchTopic {
    std::string topic;  // up to v12
    Uuid topic_id;      // from v13
    std::vector<FetchPartition> partitions;
    template <class V>
    void visit(V& v) {
      v(topic, F{{0, 12}});
      v(topic_id, F{{13}});
      v(partitions, F{{0}});
    }
  };
  struct ForgottenTopic {
    std::string topic;  // up to v12
    Uuid topic_id;      // from v13
    std::vector<int32_t> partitions;
    template <class V>
    void visit(V& v) {
      v(topic, F{{7, 12}});
      v(topic_id, F{{13}});
      v(partitions, F{{7}});
    }
  };

  std::optional<std::string> cluster_id;  // checked by controllers when known
  int32_t replica_id = -1;                // up to v14; replica_state from v15
  std::optional<ReplicaState> replica_state;
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0x7fffffff;
  int8_t isolation_level = 0;  // 0 read uncommitted, 1 read committed
  int32_t session_id = 0;
  int32_t session_epoch = -1;
  std::vector<FetchTopic> topics;
  std::vector<ForgottenTopic> forgotten_topics_data;  // removed from the session
  std::string rack_id;

  template <class V>
  void visit(V& v) {
    v(cluster_id, F{.versions = {12}, .nullable = {12}, .tag = 0, .tagged = {12}});
    v(replica_id, F{{0, 14}});
    v(replica_state, F{.versions = {15}, .tag = 1, .tagged = {15}});
    v(max_wait_ms, F{{0}});
    v(min_bytes, F{{0}});
    v(max_bytes, F{{3}});
    v(isolation_level, F{{4}});
    v(session_id, F{{7}});
    v(session_epoch, F{{7}});
    v(topics, F{{0}});
    v(forgotten_topics_data, F{{7}});
    v(rack_id, F{{11}});
  }
};

struct FetchResponse {
  static constexpr int16_t kApiKey = FetchRequest::kApiKey;
  static constexpr Versions kVersions = FetchRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = FetchRequest::kFlexibleFrom;

  struct EpochEndOffset {
    int32_t epoch = -1;
    int64_t end_offset = -1;
    template <class V>
    void visit(V& v) {
      v(epoch, F{{12}});
      v(end_offset, F{{12}});
    }
  };
  struct LeaderIdAndEpoch {
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    template <class V>
    void visit(V& v) {
      v(leader_id, F{{12}});
      v(leader_epoch, F{{12}});
    }
  };
  struct SnapshotId {
    int64_t end_offset = -1;
    int32_t epoch = -1;
    template <class V>
    void visit(V& v) {
      v(end_offset, F{{0}});
      v(epoch, F{{0}});
    }
  };
  struct AbortedTransaction {
    int64_t producer_id = 0;
    int64_t first_offset = 0;
    template <class V>
    void visit(V& v) {
      v(producer_id, F{{4}});
      v(first_offset, F{{4}});
    }
  };
  struct PartitionData {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    int64_t high_watermark = 0;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;
    std::optional<EpochEndOffset> diverging_epoch;  // the follower's log diverged here
    std::optional<LeaderIdAndEpoch> current_leader;
    std::optional<SnapshotId> snapshot_id;  // fetch below the log start: use this snapshot
    std::optional<std::vector<AbortedTransaction>> aborted_transactions =
        std::vector<AbortedTransaction>{};
    int32_t preferred_read_replica = -1;
    // Encoded: memory or a segment file slice. Empty, never null, by default: Kafka sends
    // MemoryRecords.EMPTY with a partition error, and librdkafka 2.0 rejects a null one
    // ("invalid MessageSetSize -1") and with it the whole response.
    Records records{.data = MutableBytes()};
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(error_code, F{{0}});
      v(high_watermark, F{{0}});
      v(last_stable_offset, F{{4}});
      v(log_start_offset, F{{5}});
      v(diverging_epoch, F{.versions = {12}, .tag = 0, .tagged = {12}});
      v(current_leader, F{.versions = {12}, .tag = 1, .tagged = {12}});
      v(snapshot_id, F{.versions = {12}, .tag = 2, .tagged = {12}});
      v(aborted_transactions, F{.versions = {4}, .nullable = {4}});
      v(preferred_read_replica, F{{11}});
      v(records, F{.versions = {0}, .nullable = {0}});
    }
  };
  struct FetchableTopicResponse {
    std::string topic;  // up to v12
    Uuid topic_id;      // from v13
    std::vector<PartitionData> partitions;
    template <class V>
    void visit(V& v) {
      v(topic, F{{0, 12}});
      v(topic_id, F{{13}});
      v(partitions, F{{0}});
    }
  };
  struct NodeEndpoint {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    template <class V>
    void visit(V& v) {
      v(node_id, F{{16}});
      v(host, F{{16}});
      v(port, F{{16}});
      v(rack, F{.versions = {16}, .nullable = {16}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;  // top level: the fetch session
  int32_t session_id = 0;  // 0: not part of a session
  std::vector<FetchableTopicResponse> responses;
  std::vector<NodeEndpoint> node_endpoints;  // the leaders named in current_leader

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{1}});
    v(error_code, F{{7}});
    v(session_id, F{{7}});
    v(responses, F{{0}});
    v(node_endpoints, F{.versions = {16}, .tag = 0, .tagged = {16}});
  }
};

}  // namespace strata::protocol

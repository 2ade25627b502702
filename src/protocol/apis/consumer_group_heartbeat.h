// ConsumerGroupHeartbeat (key 68): a member of a consumer-protocol group (KIP-848) joins,
// heartbeats, acknowledges its assignment and leaves with one request; the coordinator
// answers with the member's epoch and, when it changed, its assignment.
//
// Follows Kafka 4.x's schema for versions 0-1, flexible in both. v1 adds
// SubscribedTopicRegex and requires the member to choose its own member id (KIP-1082).
// A null field means "unchanged since the last heartbeat" (RebalanceTimeoutMs: -1).
// MemberEpoch: 0 joins, -1 leaves, -2 leaves for now (a static member).
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct ConsumerGroupHeartbeatRequest {
  static constexpr int16_t kApiKey = 68;
  static constexpr Versions kVersions{0, 1};
  static constexpr int16_t kFlexibleFrom = 0;

  struct TopicPartitions {
    Uuid topic_id;
    std::vector<int32_t> partitions;
    template <class V>
    void visit(V& v) {
      v(topic_id, F{{0}});
      v(partitions, F{{0}});
    }
  };

  std::string group_id;
  std::string member_id;
  int32_t member_epoch = 0;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::vector<std::string>> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;  // v1+
  std::optional<std::string> server_assignor;
  std::optional<std::vector<TopicPartitions>> topic_partitions;  // what the member owns

  template <class V>
  void visit(V& v) {
    v(group_id, F{{0}});
    v(member_id, F{{0}});
    v(member_epoch, F{{0}});
    v(instance_id, F{{0}, {0}});
    v(rack_id, F{{0}, {0}});
    v(rebalance_timeout_ms, F{{0}});
    v(subscribed_topic_names, F{{0}, {0}});
    v(subscribed_topic_regex, F{{1}, {1}});
    v(server_assignor, F{{0}, {0}});
    v(topic_partitions, F{{0}, {0}});
  }
};

struct ConsumerGroupHeartbeatResponse {
  static constexpr int16_t kApiKey = ConsumerGroupHeartbeatRequest::kApiKey;
  static constexpr Versions kVersions = ConsumerGroupHeartbeatRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = ConsumerGroupHeartbeatRequest::kFlexibleFrom;

  using TopicPartitions = ConsumerGroupHeartbeatRequest::TopicPartitions;
  struct Assignment {
    std::vector<TopicPartitions> topic_partitions;
    template <class V>
    void visit(V& v) {
      v(topic_partitions, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::optional<std::string> member_id;
  int32_t member_epoch = 0;
  int32_t heartbeat_interval_ms = 0;
  std::optional<Assignment> assignment;  // null: unchanged

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{0}});
    v(error_message, F{{0}, {0}});
    v(member_id, F{{0}, {0}});
    v(member_epoch, F{{0}});
    v(heartbeat_interval_ms, F{{0}});
    v(assignment, F{{0}, {0}});
  }
};

}  // namespace strata::protocol

// Group coordinator settings, under Kafka's broker config names with Kafka's defaults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::group {

struct GroupConfig {
  int32_t offsets_topic_num_partitions = 50;            // offsets.topic.num.partitions
  int32_t offsets_topic_segment_bytes = 104857600;      // offsets.topic.segment.bytes
  // offsets.topic.replication.factor; in a cluster, at most the live brokers when the
  // topic is created (with a warning), as a dev cluster needs.
  int32_t offsets_topic_replication_factor = 3;
  int64_t offsets_retention_minutes = 10080;            // offsets.retention.minutes (7 days)
  int64_t offsets_retention_check_interval_ms = 600000; // offsets.retention.check.interval.ms
  int32_t offset_metadata_max_bytes = 4096;             // offset.metadata.max.bytes
  int32_t group_initial_rebalance_delay_ms = 3000;      // group.initial.rebalance.delay.ms
  int32_t group_min_session_timeout_ms = 6000;          // group.min.session.timeout.ms
  int32_t group_max_session_timeout_ms = 1800000;       // group.max.session.timeout.ms
  int32_t group_max_size = 2147483647;                  // group.max.size
  // Kafka's fixed time a new member's JoinGroup may wait before it is dropped
  // (GroupCoordinator.NewMemberJoinTimeoutMs); not a broker config.
  int32_t new_member_join_timeout_ms = 5 * 60 * 1000;
  // Largest group-metadata or offset-commit batch written (the offsets topic's
  // max.message.bytes, Kafka's broker default message.max.bytes).
  int32_t max_record_batch_bytes = 1048588;

  // The consumer protocol (KIP-848), under Kafka 4.x's names and defaults. The session
  // and heartbeat settings must lie within their min/max and the interval below the
  // session timeout (checked when the broker config is read).
  std::vector<std::string> rebalance_protocols{"classic", "consumer"};  // group.coordinator.rebalance.protocols
  int32_t consumer_session_timeout_ms = 45000;        // group.consumer.session.timeout.ms
  int32_t consumer_min_session_timeout_ms = 45000;    // group.consumer.min.session.timeout.ms
  int32_t consumer_max_session_timeout_ms = 60000;    // group.consumer.max.session.timeout.ms
  int32_t consumer_heartbeat_interval_ms = 5000;      // group.consumer.heartbeat.interval.ms
  int32_t consumer_min_heartbeat_interval_ms = 5000;  // group.consumer.min.heartbeat.interval.ms
  int32_t consumer_max_heartbeat_interval_ms = 15000; // group.consumer.max.heartbeat.interval.ms
  int32_t consumer_max_size = 2147483647;             // group.consumer.max.size
  // group.consumer.assignors: server-side assignors by name; the first is the default.
  std::vector<std::string> consumer_assignors{"uniform", "range"};
  // group.consumer.migration.policy: bidirectional, upgrade, downgrade or disabled.
  // Strata converts only empty groups between the protocols so far (see src/group/README.md).
  std::string consumer_migration_policy = "bidirectional";

  bool consumer_protocol_enabled() const {
    for (const auto& p : rebalance_protocols) {
      if (p == "consumer") return true;
    }
    return false;
  }
};

}  // namespace strata::group

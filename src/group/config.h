// Group coordinator settings, under Kafka's broker config names with Kafka's defaults.
#pragma once

#include <cstdint>

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
};

}  // namespace strata::group

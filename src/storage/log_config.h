// Per-partition log settings, with Kafka's topic-config names and defaults.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "common/result.h"

namespace strata::storage {

struct LogConfig {
  int64_t segment_bytes = 1073741824;       // segment.bytes (1 GiB)
  int64_t segment_ms = 604800000;           // segment.ms (7 days)
  int32_t segment_index_bytes = 10485760;   // segment.index.bytes (10 MiB)
  int32_t index_interval_bytes = 4096;      // index.interval.bytes
  int64_t retention_ms = 604800000;         // retention.ms (7 days; -1 = forever)
  int64_t retention_bytes = -1;             // retention.bytes (-1 = unlimited)
  int64_t flush_messages = INT64_MAX;       // flush.messages
  int64_t flush_ms = INT64_MAX;             // flush.ms
  int32_t max_message_bytes = 1048588;      // max.message.bytes
  int64_t file_delete_delay_ms = 60000;     // file.delete.delay.ms
  // min.insync.replicas: acks=all needs this many in-sync replicas (replication).
  int32_t min_insync_replicas = 1;
  // unclean.leader.election.enable: with no in-sync replica alive, the controller may
  // elect an out-of-sync one (losing what only the ISR had) rather than leave the
  // partition offline. Kafka's default, false, keeps every acknowledged record.
  bool unclean_leader_election_enable = false;
  std::string cleanup_policy = "delete";    // cleanup.policy
  std::string message_timestamp_type = "CreateTime";  // message.timestamp.type
  std::string compression_type = "producer";          // compression.type
  // Compaction (cleanup.policy containing "compact"; docs/formats/segments.md).
  double min_cleanable_dirty_ratio = 0.5;     // min.cleanable.dirty.ratio, in [0, 1]
  int64_t min_compaction_lag_ms = 0;          // min.compaction.lag.ms
  int64_t max_compaction_lag_ms = INT64_MAX;  // max.compaction.lag.ms
  int64_t delete_retention_ms = 86400000;     // delete.retention.ms (1 day): tombstones, markers
  // producer.id.expiration.ms (1 day): a broker config, not a topic one, so apply()
  // does not take it; the broker copies its value here.
  int64_t producer_id_expiration_ms = 86400000;

  // Applies Kafka-named settings over these values. Unknown names and bad values are
  // errors ("segment.bytes: not a number: x"), checked against Kafka's minimums.
  Result<void, std::string> apply(const std::map<std::string, std::string>& props);

  bool compact() const { return cleanup_policy.find("compact") != std::string::npos; }
  bool deletes() const { return cleanup_policy.find("delete") != std::string::npos; }
};

// The broker's log cleaner settings (Kafka's CleanerConfig, log.cleaner.*). The broker-wide
// defaults of the topic settings above (log.cleaner.min.cleanable.ratio,
// log.cleaner.delete.retention.ms, log.cleaner.min.compaction.lag.ms,
// log.cleaner.max.compaction.lag.ms) are LogConfig defaults, set by the broker.
struct CleanerConfig {
  bool enable = true;                        // log.cleaner.enable
  int32_t threads = 1;                       // log.cleaner.threads
  int64_t dedupe_buffer_size = 134217728;    // log.cleaner.dedupe.buffer.size (all threads)
  double dedupe_buffer_load_factor = 0.9;    // log.cleaner.io.buffer.load.factor
  int32_t io_buffer_size = 524288;           // log.cleaner.io.buffer.size
  int64_t backoff_ms = 15000;                // log.cleaner.backoff.ms (idle wait)

  // Kafka's per-thread offset map memory: the dedupe buffer split between the threads,
  // at most 2 GiB - 1 each.
  size_t map_bytes_per_thread() const;
};

}  // namespace strata::storage

// Transaction coordinator settings, under Kafka's broker config names with Kafka's
// defaults.
#pragma once

#include <cstdint>

namespace strata::txn {

struct TxnConfig {
  int32_t state_log_num_partitions = 50;          // transaction.state.log.num.partitions
  int32_t state_log_segment_bytes = 104857600;    // transaction.state.log.segment.bytes
  // transaction.state.log.replication.factor (clamped as offsets.topic.replication.factor)
  // and transaction.state.log.min.isr, the topic's min.insync.replicas (at most its
  // replication factor).
  int32_t state_log_replication_factor = 3;
  int32_t state_log_min_isr = 2;
  int32_t max_timeout_ms = 900000;                // transaction.max.timeout.ms
  int64_t id_expiration_ms = 604800000;           // transactional.id.expiration.ms (7 days)
  // transaction.abort.timed.out.transaction.cleanup.interval.ms
  int64_t abort_timed_out_interval_ms = 10000;
  // transaction.remove.expired.transaction.cleanup.interval.ms
  int64_t remove_expired_interval_ms = 3600000;
  // Wait before a marker write that failed (storage error) is tried again. Kafka's
  // marker channel retries until the partition answers; so do we.
  int64_t marker_retry_backoff_ms = 100;
};

}  // namespace strata::txn

// Per-partition log settings, with Kafka's topic-config names and defaults.
#pragma once

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
  std::string cleanup_policy = "delete";    // cleanup.policy
  std::string message_timestamp_type = "CreateTime";  // message.timestamp.type
  std::string compression_type = "producer";          // compression.type
  // producer.id.expiration.ms (1 day): a broker config, not a topic one, so apply()
  // does not take it; the broker copies its value here.
  int64_t producer_id_expiration_ms = 86400000;

  // Applies Kafka-named settings over these values. Unknown names and bad values are
  // errors ("segment.bytes: not a number: x"), checked against Kafka's minimums.
  Result<void, std::string> apply(const std::map<std::string, std::string>& props);
};

}  // namespace strata::storage

// Builds one v2 batch: append records, then finish() compresses the records,
// writes the header and computes the CRC32C over attributes..end.
//
// Output matches what Kafka's clients write for the same inputs: baseTimestamp is
// the first record's timestamp (or the delete horizon, when one is set), offset
// deltas count from 0 unless given, record attributes are 0.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "common/types.h"
#include "record/batch_format.h"
#include "record/errors.h"
#include "record/record_codec.h"

namespace strata::record {

struct BatchOptions {
  Codec codec = Codec::kNone;
  int compression_level = -1;  // < 0: the codec's default
  TimestampType timestamp_type = TimestampType::kCreateTime;
  bool transactional = false;
  bool control = false;
  Offset base_offset{0};
  LeaderEpoch partition_leader_epoch = kNoLeaderEpoch;
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch producer_epoch = kNoProducerEpoch;
  Sequence base_sequence = kNoSequence;
  // Set by compaction: attributes bit 6, and baseTimestamp holds the horizon.
  std::optional<int64_t> delete_horizon_ms;
};

class BatchBuilder {
 public:
  explicit BatchBuilder(const BatchOptions& options);

  // Appends a record at the next offset delta (0, 1, 2, ...).
  void append(int64_t timestamp_ms, std::optional<Bytes> key, std::optional<Bytes> value,
              std::span<const Header> headers = {});
  // Appends at an explicit delta, greater than the last one (compaction leaves gaps).
  void append_at(int32_t offset_delta, int64_t timestamp_ms, std::optional<Bytes> key,
                 std::optional<Bytes> value, std::span<const Header> headers = {});
  // Compaction keeps a batch's original range even if its last record is gone.
  void set_last_offset_delta(int32_t delta) { last_offset_delta_ = delta; }

  int32_t record_count() const { return count_; }
  // Bytes of the batch so far if it were finished uncompressed.
  size_t uncompressed_size() const { return kHeaderSize + records_.size(); }

  // The finished batch. The builder is spent afterwards.
  Result<std::vector<uint8_t>, RecordErrc> finish();

 private:
  BatchOptions options_;
  std::vector<uint8_t> records_;  // uncompressed record bytes
  int32_t count_ = 0;
  int32_t last_offset_delta_ = -1;
  std::optional<int64_t> base_timestamp_;
  int64_t max_timestamp_ = -1;
};

}  // namespace strata::record

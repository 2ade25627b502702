// A read-only view of one v2 batch's bytes, and lazy iteration of its records.
//
// A BatchView is made by frame_batch() (validate.h), which guarantees the header
// is present, magic is 2 and the view spans exactly batchLength + 12 bytes; the
// accessors then read fields straight from the bytes. The view does not own the
// bytes; they must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "common/types.h"
#include "record/batch_format.h"
#include "record/compression.h"
#include "record/errors.h"
#include "record/record_codec.h"

namespace strata::record {

class BatchView {
 public:
  BatchView() = default;
  // Requires: `bytes` framed by frame_batch (size >= kHeaderSize, magic 2).
  explicit BatchView(Bytes bytes) : b_(bytes) {}

  Bytes bytes() const { return b_; }
  size_t size() const { return b_.size(); }

  Offset base_offset() const { return Offset(i64(kBaseOffsetPos)); }
  int32_t batch_length() const { return i32(kBatchLengthPos); }
  LeaderEpoch partition_leader_epoch() const { return LeaderEpoch(i32(kPartitionLeaderEpochPos)); }
  int8_t magic() const { return int8_t(b_[kMagicPos]); }
  uint32_t crc() const { return load_be32(&b_[kCrcPos]); }
  int16_t attributes() const { return int16_t(load_be16(&b_[kAttributesPos])); }
  int32_t last_offset_delta() const { return i32(kLastOffsetDeltaPos); }
  int64_t base_timestamp() const { return i64(kBaseTimestampPos); }
  int64_t max_timestamp() const { return i64(kMaxTimestampPos); }
  ProducerId producer_id() const { return ProducerId(i64(kProducerIdPos)); }
  ProducerEpoch producer_epoch() const {
    return ProducerEpoch(int16_t(load_be16(&b_[kProducerEpochPos])));
  }
  Sequence base_sequence() const { return Sequence(i32(kBaseSequencePos)); }
  int32_t record_count() const { return i32(kRecordCountPos); }

  uint8_t codec_bits() const { return uint8_t(attributes() & kCodecMask); }
  Codec codec() const { return Codec(codec_bits()); }  // valid only if codec_bits() <= kCodecMax
  TimestampType timestamp_type() const {
    return (attributes() & kTimestampTypeBit) ? TimestampType::kLogAppendTime
                                              : TimestampType::kCreateTime;
  }
  bool is_transactional() const { return attributes() & kTransactionalBit; }
  bool is_control() const { return attributes() & kControlBit; }
  std::optional<int64_t> delete_horizon_ms() const {
    if (attributes() & kDeleteHorizonBit) return base_timestamp();
    return std::nullopt;
  }
  Offset last_offset() const { return Offset(base_offset().value() + last_offset_delta()); }
  // Kafka's lastSequence: baseSequence + lastOffsetDelta, wrapping past INT32_MAX; -1 if none.
  Sequence last_sequence() const;
  // The CRC32C of [attributes, end), to compare with crc().
  uint32_t computed_crc() const;
  // The bytes after the 61-byte header (compressed if codec() != kNone).
  Bytes records_bytes() const { return b_.subspan(kHeaderSize); }

  // A record's absolute offset and timestamp, as Kafka reports them: LogAppendTime
  // batches report maxTimestamp for every record.
  Offset offset_of(const RecordView& r) const {
    return Offset(base_offset().value() + r.offset_delta);
  }
  int64_t timestamp_of(const RecordView& r) const;

 private:
  int32_t i32(size_t pos) const { return int32_t(load_be32(&b_[pos])); }
  int64_t i64(size_t pos) const { return int64_t(load_be64(&b_[pos])); }
  Bytes b_;
};

// The uncompressed record bytes of `batch`: a view of the batch itself when it is
// uncompressed, otherwise decompressed into `scratch` (cleared first) within `limits`.
Result<Bytes, RecordErrc> uncompressed_records(const BatchView& batch,
                                               std::vector<uint8_t>& scratch,
                                               const DecompressLimits& limits = {});

// Lazily decodes `count` records from uncompressed record bytes, one per next().
// Views it returns point into `records`.
class RecordCursor {
 public:
  RecordCursor(Bytes records, int32_t count) : in_(records), left_(count) {}
  // true with `out` filled; false after the last record (kTrailingBytes if bytes
  // remain); an error for malformed bytes, after which the cursor stays failed.
  Result<bool, RecordErrc> next(RecordView& out);

 private:
  ByteReader in_;
  int32_t left_;
};

}  // namespace strata::record

#include "record/batch_builder.h"

#include <algorithm>
#include <cassert>

#include "record/compression.h"
#include "record/crc32c.h"

namespace strata::record {

BatchBuilder::BatchBuilder(const BatchOptions& options) : options_(options) {
  if (options_.delete_horizon_ms) base_timestamp_ = *options_.delete_horizon_ms;
}

void BatchBuilder::append(int64_t timestamp_ms, std::optional<Bytes> key,
                          std::optional<Bytes> value, std::span<const Header> headers) {
  append_at(last_offset_delta_ + 1, timestamp_ms, key, value, headers);
}

void BatchBuilder::append_at(int32_t offset_delta, int64_t timestamp_ms, std::optional<Bytes> key,
                             std::optional<Bytes> value, std::span<const Header> headers) {
  assert(offset_delta > last_offset_delta_);
  if (!base_timestamp_) base_timestamp_ = timestamp_ms;
  ByteWriter out(records_);
  encode_record(out, timestamp_ms - *base_timestamp_, offset_delta, key, value, headers);
  max_timestamp_ = count_ == 0 ? timestamp_ms : std::max(max_timestamp_, timestamp_ms);
  last_offset_delta_ = offset_delta;
  ++count_;
}

namespace {

int16_t attributes_of(const BatchOptions& o) {
  int16_t a = int16_t(uint8_t(o.codec));
  if (o.timestamp_type == TimestampType::kLogAppendTime) a |= kTimestampTypeBit;
  if (o.transactional) a |= kTransactionalBit;
  if (o.control) a |= kControlBit;
  if (o.delete_horizon_ms) a |= kDeleteHorizonBit;
  return a;
}

}  // namespace

Result<std::vector<uint8_t>, RecordErrc> BatchBuilder::finish() {
  std::vector<uint8_t> batch;
  batch.reserve(kHeaderSize + records_.size());
  ByteWriter out(batch);
  out.reserve(kHeaderSize);
  if (options_.codec == Codec::kNone) {
    out.bytes(records_);
  } else if (auto r = compress(options_.codec, records_, batch, options_.compression_level); !r) {
    return fail(r.error());
  }
  uint8_t* h = batch.data();
  store_be64(h + kBaseOffsetPos, uint64_t(options_.base_offset.value()));
  store_be32(h + kBatchLengthPos, uint32_t(batch.size() - kLogOverhead));
  store_be32(h + kPartitionLeaderEpochPos, uint32_t(options_.partition_leader_epoch.value()));
  h[kMagicPos] = uint8_t(kMagicV2);
  store_be16(h + kAttributesPos, uint16_t(attributes_of(options_)));
  store_be32(h + kLastOffsetDeltaPos, uint32_t(std::max(last_offset_delta_, 0)));
  store_be64(h + kBaseTimestampPos, uint64_t(base_timestamp_.value_or(-1)));
  store_be64(h + kMaxTimestampPos, uint64_t(max_timestamp_));
  store_be64(h + kProducerIdPos, uint64_t(options_.producer_id.value()));
  store_be16(h + kProducerEpochPos, uint16_t(options_.producer_epoch.value()));
  store_be32(h + kBaseSequencePos, uint32_t(options_.base_sequence.value()));
  store_be32(h + kRecordCountPos, uint32_t(count_));
  store_be32(h + kCrcPos, crc32c(Bytes(batch).subspan(kCrcStart)));
  records_.clear();
  return batch;
}

}  // namespace strata::record

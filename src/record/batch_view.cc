#include "record/batch_view.h"

#include <climits>

#include "record/crc32c.h"

namespace strata::record {

Sequence BatchView::last_sequence() const {
  const int32_t base = base_sequence().value();
  if (base < 0) return kNoSequence;
  const int64_t last = int64_t(base) + last_offset_delta();
  return Sequence(int32_t(last > INT32_MAX ? last - INT32_MAX - 1 : last));
}

uint32_t BatchView::computed_crc() const { return crc32c(b_.subspan(kCrcStart)); }

int64_t BatchView::timestamp_of(const RecordView& r) const {
  if (timestamp_type() == TimestampType::kLogAppendTime) return max_timestamp();
  return base_timestamp() + r.timestamp_delta;
}

Result<Bytes, RecordErrc> uncompressed_records(const BatchView& batch,
                                               std::vector<uint8_t>& scratch,
                                               const DecompressLimits& limits) {
  if (batch.codec_bits() > kCodecMax) return fail(RecordErrc::kUnknownCodec);
  if (batch.codec() == Codec::kNone) return batch.records_bytes();
  scratch.clear();
  if (auto r = decompress(batch.codec(), batch.records_bytes(), scratch, limits); !r) {
    return fail(r.error());
  }
  return Bytes(scratch);
}

Result<bool, RecordErrc> RecordCursor::next(RecordView& out) {
  if (!in_.ok()) return fail(RecordErrc::kRecordLengthPastEnd);
  if (left_ <= 0) {
    if (in_.remaining() != 0) return fail(RecordErrc::kTrailingBytes);
    return false;
  }
  if (in_.remaining() == 0) {
    in_.set_fault(ReadFault::kPastEnd);
    return fail(RecordErrc::kRecordCountMismatch);
  }
  --left_;
  if (auto r = decode_record(in_, out); !r) {
    in_.set_fault(ReadFault::kPastEnd);
    return fail(r.error());
  }
  return true;
}

}  // namespace strata::record

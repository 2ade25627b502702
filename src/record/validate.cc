#include "record/validate.h"

namespace strata::record {

Result<BatchView, RecordErrc> frame_batch(Bytes in) {
  if (in.size() < kHeaderSize) return fail(RecordErrc::kTruncatedHeader);
  if (int8_t(in[kMagicPos]) != kMagicV2) return fail(RecordErrc::kBadMagic);
  const int32_t batch_length = int32_t(load_be32(&in[kBatchLengthPos]));
  if (batch_length < int32_t(kHeaderSize - kLogOverhead)) {
    return fail(RecordErrc::kBatchLengthTooSmall);
  }
  const size_t total = size_t(batch_length) + kLogOverhead;
  if (total > in.size()) return fail(RecordErrc::kBatchLengthPastEnd);
  return BatchView(in.first(total));
}

namespace {

// Offset deltas as the mode requires; `previous` is the last delta seen (-1 first).
Result<void, RecordErrc> check_delta(const BatchView& batch, RecordCheck mode, int32_t previous,
                                     int32_t delta) {
  if (mode == RecordCheck::kProducer) {
    if (delta != previous + 1) return fail(RecordErrc::kOffsetDeltaNotSequential);
  } else if (delta <= previous) {
    return fail(RecordErrc::kOffsetDeltaNotSequential);
  }
  if (delta > batch.last_offset_delta()) return fail(RecordErrc::kLastOffsetDeltaMismatch);
  return {};
}

}  // namespace

Result<void, RecordErrc> validate_records(const BatchView& batch, const ValidateOptions& options,
                                          std::vector<uint8_t>& scratch) {
  if (options.records == RecordCheck::kNone) return {};
  const int32_t count = batch.record_count();
  if (count < 0) return fail(RecordErrc::kRecordCountNegative);
  if (options.records == RecordCheck::kProducer) {
    if (count == 0) return fail(RecordErrc::kEmptyBatch);
    if (batch.last_offset_delta() != count - 1) return fail(RecordErrc::kLastOffsetDeltaMismatch);
  }
  if (batch.codec_bits() > kCodecMax) return fail(RecordErrc::kUnknownCodec);
  // Every record takes at least kMinRecordSize bytes uncompressed; an uncompressed
  // batch cannot hold more records than that allows.
  if (batch.codec() == Codec::kNone &&
      uint64_t(count) * kMinRecordSize > batch.records_bytes().size()) {
    return fail(RecordErrc::kRecordCountMismatch);
  }
  auto records = uncompressed_records(batch, scratch, options.limits);
  if (!records) return fail(records.error());
  RecordCursor cursor(*records, count);
  RecordView r;
  int32_t previous = -1;
  for (;;) {
    auto more = cursor.next(r);
    if (!more) return fail(more.error());
    if (!*more) break;
    if (auto d = check_delta(batch, options.records, previous, r.offset_delta); !d) return d;
    if (options.require_keys && !r.key && !batch.is_control()) return fail(RecordErrc::kMissingKey);
    previous = r.offset_delta;
  }
  return {};
}

Result<BatchView, RecordErrc> validate_batch(Bytes in, const ValidateOptions& options,
                                             std::vector<uint8_t>& scratch) {
  auto framed = frame_batch(in);
  if (!framed) return framed;
  if (framed->crc() != framed->computed_crc()) return fail(RecordErrc::kBadCrc);
  if (auto r = validate_records(*framed, options, scratch); !r) return fail(r.error());
  return framed;
}

}  // namespace strata::record

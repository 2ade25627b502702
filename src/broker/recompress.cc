#include "broker/recompress.h"

#include "record/batch_builder.h"

namespace strata::broker {

using namespace strata::record;

std::optional<Codec> target_codec(const std::string& t) {
  if (t == "uncompressed") return Codec::kNone;
  if (t == "gzip") return Codec::kGzip;
  if (t == "snappy") return Codec::kSnappy;
  if (t == "lz4") return Codec::kLz4;
  if (t == "zstd") return Codec::kZstd;
  return std::nullopt;
}

Result<std::optional<std::vector<uint8_t>>, RecordErrc> recompress(const BatchView& batch,
                                                                   Codec codec) {
  if (batch.codec() == codec) return std::optional<std::vector<uint8_t>>{};
  BatchOptions o;
  o.codec = codec;
  o.timestamp_type = batch.timestamp_type();
  o.transactional = batch.is_transactional();
  o.producer_id = batch.producer_id();
  o.producer_epoch = batch.producer_epoch();
  o.base_sequence = batch.base_sequence();
  BatchBuilder builder(o);
  std::vector<uint8_t> scratch;
  auto records = uncompressed_records(batch, scratch);
  if (!records) return fail(records.error());
  RecordCursor cursor(*records, batch.record_count());
  RecordView r;
  std::vector<Header> headers;
  for (;;) {
    auto more = cursor.next(r);
    if (!more) return fail(more.error());
    if (!*more) break;
    headers.clear();
    HeaderCursor hc(r);
    Header h;
    while (hc.next(h)) headers.push_back(h);
    builder.append_at(r.offset_delta, batch.base_timestamp() + r.timestamp_delta, r.key, r.value,
                      headers);
  }
  builder.set_last_offset_delta(batch.last_offset_delta());
  auto out = builder.finish();
  if (!out) return fail(out.error());
  return std::optional<std::vector<uint8_t>>{std::move(*out)};
}

}  // namespace strata::broker

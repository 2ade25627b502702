#include "record/control.h"

#include "record/batch_builder.h"

namespace strata::record {

const char* control_type_name(int16_t type) {
  switch (type) {
    case 0: return "ABORT";
    case 1: return "COMMIT";
    default: return "UNKNOWN";
  }
}

Result<ControlKey, RecordErrc> parse_control_key(std::optional<Bytes> key) {
  // Kafka reads version and type and ignores any bytes a later version appends.
  if (!key || key->size() < kControlKeySize) return fail(RecordErrc::kBadControlRecord);
  ByteReader in(*key);
  ControlKey k;
  k.version = in.i16();
  k.type = in.i16();
  if (k.version < 0) return fail(RecordErrc::kBadControlRecord);
  return k;
}

Result<EndTxnMarker, RecordErrc> parse_end_txn_marker(const ControlKey& key,
                                                      std::optional<Bytes> value) {
  if (!key.is_end_txn()) return fail(RecordErrc::kBadControlRecord);
  if (!value || value->size() < kEndTxnMarkerValueSize) return fail(RecordErrc::kBadControlRecord);
  ByteReader in(*value);
  const int16_t version = in.i16();
  if (version < 0) return fail(RecordErrc::kBadControlRecord);
  EndTxnMarker m;
  m.type = ControlType(key.type);
  m.coordinator_epoch = in.i32();
  return m;
}

std::vector<uint8_t> build_end_txn_batch(const EndTxnMarker& marker,
                                         const ControlBatchOptions& o) {
  uint8_t key[kControlKeySize];
  store_be16(key, 0);
  store_be16(key + 2, uint16_t(marker.type));
  uint8_t value[kEndTxnMarkerValueSize];
  store_be16(value, 0);
  store_be32(value + 2, uint32_t(marker.coordinator_epoch));

  BatchOptions b;
  b.transactional = true;
  b.control = true;
  b.base_offset = o.base_offset;
  b.partition_leader_epoch = o.partition_leader_epoch;
  b.producer_id = o.producer_id;
  b.producer_epoch = o.producer_epoch;
  BatchBuilder builder(b);
  builder.append(o.timestamp_ms, Bytes(key), Bytes(value));
  auto batch = builder.finish();  // uncompressed: cannot fail
  return std::move(batch).value();
}

}  // namespace strata::record

#include "tools/dump_log_print.h"

#include <fmt/format.h>

#include "record/control.h"
#include "tools/offsets_decoder.h"
#include "tools/txn_log_decoder.h"

namespace strata::tools {

using namespace strata::record;

namespace {

const char* timestamp_type_name(TimestampType t) {
  return t == TimestampType::kLogAppendTime ? "LogAppendTime" : "CreateTime";
}

std::string codec_label(uint8_t bits) {
  return bits <= kCodecMax ? codec_name(Codec(bits)) : fmt::format("unknown({})", bits);
}

std::string optional_long(std::optional<int64_t> v) {
  return v ? fmt::format("OptionalLong[{}]", *v) : "OptionalLong.empty";
}

// Kafka's record-level sequence: baseSequence + offsetDelta, wrapping past INT32_MAX.
int32_t record_sequence(const BatchView& b, int32_t offset_delta) {
  const int32_t base = b.base_sequence().value();
  if (base < 0) return -1;
  const int64_t s = int64_t(base) + offset_delta;
  return int32_t(s > INT32_MAX ? s - INT32_MAX - 1 : s);
}

int utf8_sequence_length(const uint8_t* p, size_t left) {
  const uint8_t c = p[0];
  int n;
  uint32_t min;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { n = 2; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { n = 3; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { n = 4; min = 0x10000; }
  else return 0;
  if (size_t(n) > left) return 0;
  uint32_t cp = c & (0x7F >> n);
  for (int i = 1; i < n; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

std::string control_part(const RecordView& r) {
  auto key = parse_control_key(r.key);
  if (!key) return " controlType: INVALID";
  if (key->is_end_txn()) {
    auto marker = parse_end_txn_marker(*key, r.value);
    if (!marker) return fmt::format(" endTxnMarker: {} coordinatorEpoch: INVALID",
                                    control_type_name(key->type));
    return fmt::format(" endTxnMarker: {} coordinatorEpoch: {}", control_type_name(key->type),
                       marker->coordinator_epoch);
  }
  static const char* const kOtherTypes[] = {"LEADER_CHANGE", "SNAPSHOT_HEADER", "SNAPSHOT_FOOTER",
                                            "KRAFT_VERSION", "KRAFT_VOTERS"};
  if (key->type >= 2 && key->type <= 6) {
    return fmt::format(" controlType: {}({})", kOtherTypes[key->type - 2], key->type);
  }
  return fmt::format(" controlType: UNKNOWN({})", key->type);
}

// A record without a key shows nothing with kOffsets or kTxnLog (the caller reports it).
void append_data(std::string& line, DataFormat data, int64_t offset,
                 const std::optional<Bytes>& key, const std::optional<Bytes>& value) {
  if (data == DataFormat::kText) {
    if (key) line += " key: " + decode_utf8_lossy(*key);
    if (value) line += " payload: " + decode_utf8_lossy(*value);
  } else if (data == DataFormat::kOffsets && key) {
    const DecodedOffsetsRecord d = decode_offsets_record(*key, value, offset);
    if (d.key) line += " key: " + *d.key;
    if (d.payload) line += " payload: " + *d.payload;
  } else if (data == DataFormat::kTxnLog && key) {
    const DecodedTxnLogRecord d = decode_txn_log_record(*key, value, offset);
    if (d.key) line += " key: " + *d.key;
    if (d.payload) line += " payload: " + *d.payload;
  }
}

}  // namespace

std::string decode_utf8_lossy(Bytes b) {
  std::string out;
  out.reserve(b.size());
  size_t i = 0;
  while (i < b.size()) {
    const int n = utf8_sequence_length(b.data() + i, b.size() - i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(reinterpret_cast<const char*>(b.data() + i), size_t(n));
      i += size_t(n);
    }
  }
  return out;
}

std::string v2_batch_line(const BatchView& b, size_t position) {
  const bool valid = b.crc() == b.computed_crc();
  return fmt::format(
      "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} "
      "producerEpoch: {} partitionLeaderEpoch: {} isTransactional: {} isControl: {} "
      "deleteHorizonMs: {} position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} "
      "isvalid: {}",
      b.base_offset().value(), b.last_offset().value(), b.record_count(),
      b.base_sequence().value(), b.last_sequence().value(), b.producer_id().value(),
      b.producer_epoch().value(), b.partition_leader_epoch().value(), b.is_transactional(),
      b.is_control(), optional_long(b.delete_horizon_ms()), position,
      timestamp_type_name(b.timestamp_type()), b.max_timestamp(), b.size(), b.magic(),
      codec_label(b.codec_bits()), b.crc(), valid);
}

std::string v2_record_line(const BatchView& b, const RecordView& r, DataFormat data) {
  std::string keys;
  HeaderCursor hc(r);
  Header h;
  for (bool first = true; hc.next(h); first = false) {
    if (!first) keys += ',';
    keys += decode_utf8_lossy(as_bytes(h.key));
  }
  std::string line = fmt::format(
      "| offset: {} {}: {} keySize: {} valueSize: {} sequence: {} headerKeys: [{}]",
      b.offset_of(r).value(), timestamp_type_name(b.timestamp_type()), b.timestamp_of(r),
      r.key ? int64_t(r.key->size()) : -1, r.value ? int64_t(r.value->size()) : -1,
      record_sequence(b, r.offset_delta), keys);
  if (b.is_control()) {
    line += control_part(r);
  } else {
    append_data(line, data, b.offset_of(r).value(), r.key, r.value);
  }
  return line;
}

namespace {
// v0 messages have no timestamp: Kafka labels them NoTimestampType and prints -1.
std::string legacy_timestamp(const LegacyMessage& m) {
  if (m.magic == kMagicV0) return "NoTimestampType: -1";
  return fmt::format("{}: {}", timestamp_type_name(m.timestamp_type), m.timestamp.value());
}
}  // namespace

std::string legacy_batch_line(const LegacyMessage& m, size_t position) {
  return fmt::format("offset: {} position: {} {} size: {} magic: {} compresscodec: {} crc: {} "
                     "isvalid: {}",
                     m.offset.value(), position, legacy_timestamp(m), m.entry.size(), m.magic,
                     codec_name(m.codec), m.crc, m.crc_valid);
}

std::string legacy_record_line(const LegacyMessage& m, DataFormat data) {
  std::string line = fmt::format("| offset: {} {} keySize: {} valueSize: {} isValid: {} crc: {}",
                                 m.offset.value(), legacy_timestamp(m),
                                 m.key ? int64_t(m.key->size()) : -1,
                                 m.value ? int64_t(m.value->size()) : -1, m.crc_valid, m.crc);
  append_data(line, data, m.offset.value(), m.key, m.value);
  return line;
}

}  // namespace strata::tools

#include "tools/explain.h"

#include <fmt/format.h>

#include "tools/dump_log_print.h"

namespace strata::tools {

using namespace strata::record;

namespace {

constexpr size_t kHexBytesShown = 12;

// Writes "  <where>  <hex>  <name>: <value>" lines for fields of one byte region.
class ByteMap {
 public:
  // `base` is the region's position in the file; `prefix` marks positions that are not
  // file positions ("+" inside decompressed records).
  ByteMap(std::string& out, Bytes region, size_t base, std::string prefix, int indent)
      : out_(out), region_(region), base_(base), prefix_(std::move(prefix)), indent_(indent) {}

  void field(size_t at, size_t len, std::string_view name, std::string_view value) {
    std::string hex;
    for (size_t i = 0; i < len && i < kHexBytesShown; ++i) {
      fmt::format_to(std::back_inserter(hex), "{:02x} ", region_[at + i]);
    }
    if (len > kHexBytesShown) hex += fmt::format("... ({} bytes)", len);
    out_ += fmt::format("{:{}}{}{:<9} {:<40} {}: {}\n", "", indent_, prefix_, base_ + at, hex,
                        name, value);
  }
  void note(std::string_view text) { out_ += fmt::format("{:{}}{}\n", "", indent_, text); }
  Bytes region() const { return region_; }

 private:
  std::string& out_;
  Bytes region_;
  size_t base_;
  std::string prefix_;
  int indent_;
};

std::string quoted(const std::optional<Bytes>& b) {
  if (!b) return "null";
  std::string s = decode_utf8_lossy(b->first(std::min<size_t>(b->size(), 64)));
  for (char& c : s) if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return fmt::format("\"{}\"{}", s, b->size() > 64 ? "..." : "");
}

std::string attributes_text(int16_t a) {
  const uint8_t codec = a & kCodecMask;
  return fmt::format("0x{:04x} (codec {}, {}{}{}{})", uint16_t(a),
                     codec <= kCodecMax ? codec_name(Codec(codec)) : "unknown",
                     (a & kTimestampTypeBit) ? "LogAppendTime" : "CreateTime",
                     (a & kTransactionalBit) ? ", transactional" : "",
                     (a & kControlBit) ? ", control" : "",
                     (a & kDeleteHorizonBit) ? ", delete horizon set" : "");
}

// Reads one varint-prefixed field and maps it; false (with a note) when malformed.
struct RecordWalker {
  ByteMap& map;
  ByteReader in;

  bool varint(std::string_view name, int64_t& v, bool is_long = false) {
    const size_t at = in.position();
    v = is_long ? in.varlong() : in.varint();
    if (!in.ok()) return bad(name);
    map.field(at, in.position() - at, name, std::to_string(v));
    return true;
  }
  bool nullable(std::string_view len_name, std::string_view name) {
    int64_t len = 0;
    if (!varint(len_name, len)) return false;
    if (len == -1) return true;
    if (len < -1 || !in.fits(len)) return bad(name);
    const size_t at = in.position();
    const Bytes b = in.take(size_t(len));
    if (len > 0) map.field(at, size_t(len), name, quoted(b));
    return true;
  }
  bool bad(std::string_view name) {
    map.note(fmt::format("!! {} is malformed at +{}: the map stops here", name, in.position()));
    return false;
  }

  bool record(int index) {
    const size_t start = in.position();
    map.note(fmt::format("record {}:", index));
    int64_t length = 0, v = 0;
    if (!varint("length", length)) return false;
    if (length < 0 || !in.fits(length)) return bad("record body");
    const size_t end = in.position() + size_t(length);
    const size_t at = in.position();
    map.field(at, 1, "attributes", std::to_string(int8_t(in.u8())));
    if (!varint("timestampDelta", v, true) || !varint("offsetDelta", v) ||
        !nullable("keyLength", "key") || !nullable("valueLength", "value")) {
      return false;
    }
    int64_t headers = 0;
    if (!varint("headerCount", headers)) return false;
    for (int64_t h = 0; h < headers && in.position() < end; ++h) {
      if (!nullable("headerKeyLength", "headerKey") ||
          !nullable("headerValueLength", "headerValue")) {
        return false;
      }
    }
    if (in.position() != end) return bad(fmt::format("record at +{}", start));
    return true;
  }
};

void map_records(std::string& out, const BatchView& b, size_t position) {
  std::vector<uint8_t> scratch;
  auto records = uncompressed_records(b, scratch);
  if (!records) {
    out += fmt::format("    !! records cannot be read: {}\n", to_string(records.error()));
    return;
  }
  const bool compressed = b.codec() != Codec::kNone;
  if (compressed) {
    out += fmt::format("    records: {} compressed bytes at {} decompress to {} bytes; positions "
                       "below are offsets in the decompressed bytes\n",
                       b.records_bytes().size(), position + kHeaderSize, records->size());
  }
  ByteMap map(out, *records, compressed ? 0 : position + kHeaderSize, compressed ? "+" : "@", 6);
  RecordWalker walker{map, ByteReader(*records)};
  for (int i = 0; i < b.record_count() && walker.in.remaining() > 0; ++i) {
    if (!walker.record(i)) return;
  }
  if (walker.in.remaining() > 0) map.note(fmt::format("!! {} bytes after the last record",
                                                      walker.in.remaining()));
}

}  // namespace

std::string explain_v2_batch(const BatchView& b, size_t position) {
  std::string out;
  ByteMap m(out, b.bytes(), position, "@", 4);
  m.field(kBaseOffsetPos, 8, "baseOffset", std::to_string(b.base_offset().value()));
  m.field(kBatchLengthPos, 4, "batchLength",
          fmt::format("{} (batch size {})", b.batch_length(), b.size()));
  m.field(kPartitionLeaderEpochPos, 4, "partitionLeaderEpoch",
          std::to_string(b.partition_leader_epoch().value()));
  m.field(kMagicPos, 1, "magic", std::to_string(b.magic()));
  m.field(kCrcPos, 4, "crc",
          fmt::format("{} (computed over [{}, {}): {}{})", b.crc(), position + kCrcStart,
                      position + b.size(), b.computed_crc(),
                      b.crc() == b.computed_crc() ? ", valid" : ", MISMATCH"));
  m.field(kAttributesPos, 2, "attributes", attributes_text(b.attributes()));
  m.field(kLastOffsetDeltaPos, 4, "lastOffsetDelta",
          fmt::format("{} (lastOffset {})", b.last_offset_delta(), b.last_offset().value()));
  m.field(kBaseTimestampPos, 8, "baseTimestamp",
          fmt::format("{}{}", b.base_timestamp(), b.delete_horizon_ms() ? " (delete horizon)" : ""));
  m.field(kMaxTimestampPos, 8, "maxTimestamp", std::to_string(b.max_timestamp()));
  m.field(kProducerIdPos, 8, "producerId", std::to_string(b.producer_id().value()));
  m.field(kProducerEpochPos, 2, "producerEpoch", std::to_string(b.producer_epoch().value()));
  m.field(kBaseSequencePos, 4, "baseSequence", std::to_string(b.base_sequence().value()));
  m.field(kRecordCountPos, 4, "recordCount", std::to_string(b.record_count()));
  map_records(out, b, position);
  return out;
}

std::string explain_legacy_entry(const LegacyMessage& msg, size_t position) {
  std::string out;
  ByteMap m(out, msg.entry, position, "@", 4);
  const size_t p = kLogOverhead;  // message fields start after offset and size
  m.field(0, 8, "offset", std::to_string(msg.offset.value()));
  m.field(8, 4, "messageSize", std::to_string(msg.entry.size() - kLogOverhead));
  m.field(p + kLegacyCrcPos, 4, "crc",
          fmt::format("{} ({})", msg.crc, msg.crc_valid ? "valid" : "MISMATCH"));
  m.field(p + kLegacyMagicPos, 1, "magic", std::to_string(msg.magic));
  m.field(p + kLegacyAttributesPos, 1, "attributes",
          fmt::format("0x{:02x} (codec {})", uint8_t(msg.attributes), codec_name(msg.codec)));
  size_t at = p + kLegacyKeyLengthPosV0;
  if (msg.magic == kMagicV1) {
    m.field(p + kLegacyTimestampPos, 8, "timestamp", std::to_string(msg.timestamp.value()));
    at = p + kLegacyKeyLengthPosV1;
  }
  m.field(at, 4, "keyLength", std::to_string(msg.key ? int64_t(msg.key->size()) : -1));
  at += 4;
  if (msg.key && !msg.key->empty()) m.field(at, msg.key->size(), "key", quoted(msg.key));
  at += msg.key ? msg.key->size() : 0;
  m.field(at, 4, "valueLength", std::to_string(msg.value ? int64_t(msg.value->size()) : -1));
  at += 4;
  if (msg.value && !msg.value->empty()) {
    m.field(at, msg.value->size(), msg.compressed() ? "value (compressed inner messages)" : "value",
            msg.compressed() ? fmt::format("{} bytes", msg.value->size()) : quoted(msg.value));
  }
  return out;
}

}  // namespace strata::tools

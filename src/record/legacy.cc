// Reading (and, for tests, writing) Kafka's v0/v1 message sets. legacy.h has the grammar.
#include "record/legacy.h"

#include <zlib.h>

#include <cassert>
#include <limits>
#include <utility>

namespace strata::record {
namespace {

// Reads an int32 length and that many bytes; -1 is null. False if the length is below -1
// or past the end.
bool read_nullable_bytes(ByteReader& r, std::optional<Bytes>& out) {
  const int32_t length = r.i32();
  if (!r.ok()) return false;
  if (length == -1) {
    out.reset();
    return true;
  }
  if (!r.fits(length)) return false;
  out = r.take(size_t(length));
  return true;
}

// Gzip, snappy and lz4 only: zstd came with magic 2, and 5-7 name nothing.
Result<Codec, RecordErrc> legacy_codec(int8_t attributes) {
  const uint8_t id = uint8_t(attributes & kLegacyCodecMask);
  if (id > uint8_t(Codec::kLz4)) return fail(RecordErrc::kUnknownCodec);
  return Codec(id);
}

// Fills `m` from the message bytes after crc and magic: attributes to the value's end.
// Requires a magic of 0 or 1 and at least kLegacyRecordOverheadV0 bytes.
Result<void, RecordErrc> parse_message_fields(Bytes message, LegacyMessage& m) {
  const size_t overhead = m.magic == kMagicV0 ? kLegacyRecordOverheadV0 : kLegacyRecordOverheadV1;
  if (message.size() < overhead) return fail(RecordErrc::kBatchLengthTooSmall);
  ByteReader r(message.subspan(kLegacyAttributesPos));
  m.attributes = r.i8();
  auto codec = legacy_codec(m.attributes);
  if (!codec) return fail(codec.error());
  m.codec = *codec;
  if (m.magic == kMagicV1) {
    m.timestamp = TimestampMs(r.i64());
    const bool log_append = (m.attributes & kLegacyTimestampTypeBit) != 0;
    m.timestamp_type = log_append ? TimestampType::kLogAppendTime : TimestampType::kCreateTime;
  }
  assert(r.ok());  // the overhead check covered the fixed fields
  if (!read_nullable_bytes(r, m.key)) return fail(RecordErrc::kBadFieldLength);
  if (!read_nullable_bytes(r, m.value)) return fail(RecordErrc::kBadFieldLength);
  if (r.remaining() != 0) return fail(RecordErrc::kRecordLengthMismatch);
  return {};
}

// Appends a wrapper's decompressed value to `out`. Magic-0 lz4 may carry the header
// checksum that Kafka before 0.10 computed wrongly (KAFKA-3160).
Result<void, RecordErrc> decompress_wrapper_value(const LegacyMessage& wrapper,
                                                  std::vector<uint8_t>& out,
                                                  const DecompressLimits& limits) {
  assert(wrapper.value.has_value());
  if (wrapper.codec == Codec::kLz4 && wrapper.magic == kMagicV0) {
    return decompress_lz4_legacy_v0(*wrapper.value, out, limits);
  }
  return decompress(wrapper.codec, *wrapper.value, out, limits);
}

// Parses the entries that fill `bytes` exactly: uncompressed, with the wrapper's magic.
Result<std::vector<LegacyMessage>, RecordErrc> parse_inner_entries(Bytes bytes, int8_t magic) {
  // Every entry takes at least kLegacyMinEntrySize bytes, so the count is bounded by the
  // (already limited) decompressed size, never by a number read from the input.
  [[maybe_unused]] const size_t inner_max = bytes.size() / kLegacyMinEntrySize;
  std::vector<LegacyMessage> inner;
  while (!bytes.empty()) {
    auto m = parse_legacy_entry(bytes);
    if (!m) return fail(m.error());
    if (m->magic != magic) return fail(RecordErrc::kBadMagic);
    if (m->compressed()) return fail(RecordErrc::kBadWrapper);
    bytes = bytes.subspan(m->entry.size());
    inner.push_back(std::move(*m));
    assert(inner.size() <= inner_max);
  }
  if (inner.empty()) return fail(RecordErrc::kBadWrapper);
  return inner;
}

// v1 inner offsets are relative: the wrapper's offset is that of the last inner message,
// except that 0 (from some librdkafka versions) means they start at 0 (as Kafka reads it).
Result<void, RecordErrc> resolve_v1_inner(const LegacyMessage& wrapper,
                                          std::vector<LegacyMessage>& inner) {
  int64_t base = 0;
  const int64_t wrapper_offset = wrapper.offset.value();
  if (wrapper_offset != 0) {
    const int64_t last_relative = inner.back().offset.value();
    if (wrapper_offset < last_relative) return fail(RecordErrc::kBadWrapper);
    if (__builtin_sub_overflow(wrapper_offset, last_relative, &base)) {
      return fail(RecordErrc::kBadWrapper);
    }
  }
  for (LegacyMessage& m : inner) {
    int64_t absolute = 0;
    if (__builtin_add_overflow(base, m.offset.value(), &absolute)) {
      return fail(RecordErrc::kBadWrapper);
    }
    m.offset = Offset(absolute);
    m.timestamp_type = wrapper.timestamp_type;
    if (wrapper.timestamp_type == TimestampType::kLogAppendTime) m.timestamp = wrapper.timestamp;
  }
  return {};
}

int32_t length_or_null(const std::optional<Bytes>& b) {
  if (!b) return -1;
  assert(b->size() <= size_t(std::numeric_limits<int32_t>::max()));
  return int32_t(b->size());
}

}  // namespace

Result<LegacyMessage, RecordErrc> parse_legacy_entry(Bytes in) {
  ByteReader r(in);
  LegacyMessage m;
  m.offset = Offset(r.i64());
  const int32_t message_size = r.i32();
  if (!r.ok()) return fail(RecordErrc::kTruncatedHeader);
  if (message_size < int32_t(kLegacyRecordOverheadV0)) {
    return fail(RecordErrc::kBatchLengthTooSmall);
  }
  if (!r.fits(message_size)) return fail(RecordErrc::kBatchLengthPastEnd);
  const Bytes message = r.take(size_t(message_size));
  m.entry = in.first(kLogOverhead + message.size());
  m.crc = load_be32(message.data() + kLegacyCrcPos);
  m.magic = int8_t(message[kLegacyMagicPos]);
  if (m.magic != kMagicV0 && m.magic != kMagicV1) return fail(RecordErrc::kBadMagic);
  m.crc_valid = m.crc == compute_legacy_crc(message);
  auto fields = parse_message_fields(message, m);
  if (!fields) return fail(m.crc_valid ? fields.error() : RecordErrc::kBadCrc);
  return m;
}

// CRC-32 (IEEE 802.3, as java.util.zip.CRC32), from zlib.
uint32_t compute_legacy_crc(Bytes message) {
  assert(message.size() >= kLegacyRecordOverheadV0);
  const Bytes covered = message.subspan(kLegacyMagicPos);
  return uint32_t(crc32_z(crc32_z(0, nullptr, 0), covered.data(), covered.size()));
}

Result<void, RecordErrc> validate_legacy_crc(const LegacyMessage& message) {
  if (!message.crc_valid) return fail(RecordErrc::kBadCrc);
  return {};
}

Result<std::vector<LegacyMessage>, RecordErrc> read_wrapper_inner(const LegacyMessage& wrapper,
                                                                  std::vector<uint8_t>& scratch,
                                                                  const DecompressLimits& limits) {
  assert(wrapper.compressed());
  if (!wrapper.value) return fail(RecordErrc::kBadWrapper);
  scratch.clear();
  auto decompressed = decompress_wrapper_value(wrapper, scratch, limits);
  if (!decompressed) return fail(decompressed.error());
  auto inner = parse_inner_entries(scratch, wrapper.magic);
  if (!inner) return inner;
  if (wrapper.magic == kMagicV1) {
    auto resolved = resolve_v1_inner(wrapper, *inner);
    if (!resolved) return fail(resolved.error());
  }
  return inner;
}

void encode_legacy_entry(const LegacyEntrySpec& spec, std::vector<uint8_t>& out) {
  assert(spec.magic == kMagicV0 || spec.magic == kMagicV1);
  [[maybe_unused]] const size_t start = out.size();
  ByteWriter w(out);
  w.i64(spec.offset.value());
  const size_t size_at = w.reserve(4);
  const size_t crc_at = w.reserve(4);
  w.i8(spec.magic);
  w.i8(spec.attributes);
  if (spec.magic == kMagicV1) w.i64(spec.timestamp.value());
  w.i32(length_or_null(spec.key));
  if (spec.key) w.bytes(*spec.key);
  w.i32(length_or_null(spec.value));
  if (spec.value) w.bytes(*spec.value);
  const size_t message_size = out.size() - crc_at;
  assert(message_size <= size_t(std::numeric_limits<int32_t>::max()));
  w.patch_i32(size_at, int32_t(message_size));
  const Bytes message(out.data() + crc_at, message_size);
  w.patch_i32(crc_at, int32_t(compute_legacy_crc(message)));
  assert(out.size() - start == kLogOverhead + message_size);
}

Result<void, RecordErrc> encode_legacy_wrapper(const LegacyWrapperSpec& spec, Bytes inner_entries,
                                               std::vector<uint8_t>& out) {
  assert(spec.codec == Codec::kGzip || spec.codec == Codec::kSnappy || spec.codec == Codec::kLz4);
  std::vector<uint8_t> compressed;
  auto ok = compress(spec.codec, inner_entries, compressed);
  if (!ok) return ok;
  int8_t attributes = int8_t(spec.codec);
  if (spec.magic == kMagicV1 && spec.timestamp_type == TimestampType::kLogAppendTime) {
    attributes = int8_t(attributes | kLegacyTimestampTypeBit);
  }
  encode_legacy_entry({.offset = spec.offset,
                       .magic = spec.magic,
                       .attributes = attributes,
                       .timestamp = spec.timestamp,
                       .key = std::nullopt,
                       .value = Bytes(compressed)},
                      out);
  return {};
}

}  // namespace strata::record

// Kafka's legacy message sets, magic v0 and v1 (the format before 0.11), read so
// old segments can be dumped and up-converted to v2. Grammar (all big-endian):
//
//   entry    := offset:int64 message_size:int32 message        (message_size bytes)
//   message  := crc:uint32 magic:int8 attributes:int8
//               [timestamp:int64]                               (v1 only)
//               key_length:int32 key  value_length:int32 value  (length -1 = null)
//
// crc is CRC-32 (IEEE, zlib's crc32) of [magic, end of message); the offset and
// size fields are outside it. attributes bits 0-2 name the codec (0 none, 1 gzip,
// 2 snappy, 3 lz4; zstd and 5-7 are invalid here), bit 3 the v1 timestamp type.
//
// A compressed message (a "wrapper") has codec != none; its value is the compressed
// concatenation of inner entries with the grammar above. Inner messages are never
// compressed and carry the wrapper's magic. v0 inner offsets are absolute. v1 inner
// offsets are relative (0..n-1) and the wrapper's offset is the absolute offset of the
// last inner message; a wrapper offset of 0 (some librdkafka versions) means base 0.
// v1 inner messages take the wrapper's timestamp type, and with LogAppendTime the
// wrapper's timestamp too. Facts checked against Kafka's LegacyRecord.java and
// AbstractLegacyRecordBatch.java.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "common/types.h"
#include "record/batch_format.h"
#include "record/compression.h"
#include "record/errors.h"

namespace strata::record {

// Byte positions inside a message (after the 12-byte offset and size fields).
inline constexpr size_t kLegacyCrcPos = 0;           // uint32: CRC-32 of [kLegacyMagicPos, end)
inline constexpr size_t kLegacyMagicPos = 4;         // int8  <- CRC coverage starts here
inline constexpr size_t kLegacyAttributesPos = 5;    // int8
inline constexpr size_t kLegacyTimestampPos = 6;     // int64, v1 only
inline constexpr size_t kLegacyKeyLengthPosV0 = 6;   // int32
inline constexpr size_t kLegacyKeyLengthPosV1 = 14;  // int32

// Smallest messages: header, key length and value length (Kafka's RECORD_OVERHEAD_V0/V1).
inline constexpr size_t kLegacyRecordOverheadV0 = 14;
inline constexpr size_t kLegacyRecordOverheadV1 = 22;
// Smallest entry, the bound on how many inner messages a decompressed value can hold.
inline constexpr size_t kLegacyMinEntrySize = kLogOverhead + kLegacyRecordOverheadV0;

inline constexpr int8_t kLegacyCodecMask = 0x07;
inline constexpr int8_t kLegacyTimestampTypeBit = 0x08;  // v1 only

static_assert(kLogOverhead + kLegacyMagicPos == kMagicPos, "magic sits at byte 16 in every format");
static_assert(kLegacyKeyLengthPosV0 + 8 == kLegacyRecordOverheadV0);
static_assert(kLegacyKeyLengthPosV1 + 8 == kLegacyRecordOverheadV1);
static_assert(kLegacyTimestampPos + 8 == kLegacyKeyLengthPosV1);
static_assert(kLegacyMinEntrySize == 26);

// One v0/v1 message with its entry header, as views into the bytes it was parsed from
// (the caller's buffer, or the scratch buffer of read_wrapper_inner): nothing is copied,
// and the views live as long as those bytes.
struct LegacyMessage {
  Offset offset{0};  // absolute (inner v1 offsets already converted)
  int8_t magic = kMagicV0;
  int8_t attributes = 0;       // as stored
  Codec codec = Codec::kNone;  // never kZstd
  // v0 has no timestamp: kCreateTime and kNoTimestamp. Inner v1 messages report the
  // wrapper's type, and its timestamp under LogAppendTime (as Kafka does).
  TimestampType timestamp_type = TimestampType::kCreateTime;
  TimestampMs timestamp = kNoTimestamp;
  uint32_t crc = 0;            // as stored
  bool crc_valid = false;      // stored crc == CRC-32 of the message bytes
  std::optional<Bytes> key;    // nullopt: null key
  std::optional<Bytes> value;  // nullopt: null value; a wrapper's compressed inner entries
  Bytes entry;                 // the whole entry, offset field first (size() = entry bytes)

  bool compressed() const { return codec != Codec::kNone; }
};

// Parses the entry at the front of `in`; bytes after it (further entries) are ignored,
// so a segment is read by advancing `entry.size()` bytes at a time. Checks the framing
// (kTruncatedHeader, kBatchLengthTooSmall, kBatchLengthPastEnd), the magic (kBadMagic,
// first: it names the format), the codec (kUnknownCodec) and the key and value lengths
// (kBadFieldLength, kRecordLengthMismatch). A stored CRC that differs from the computed
// one is reported in `crc_valid`, not as an error, so a dump can still show the message;
// but when the covered bytes also break the format, the error is kBadCrc: they are damaged.
Result<LegacyMessage, RecordErrc> parse_legacy_entry(Bytes in);

// CRC-32 of a message (bytes from its crc field to its end) over what the crc covers.
// Requires at least kLegacyRecordOverheadV0 bytes.
uint32_t compute_legacy_crc(Bytes message);

// kBadCrc unless the stored CRC matched.
Result<void, RecordErrc> validate_legacy_crc(const LegacyMessage& message);

// Decompresses a wrapper's value into `scratch` (cleared first) and parses the inner
// entries, with absolute offsets and v1 timestamps resolved. The returned messages view
// `scratch`: it must outlive them and not change meanwhile. Requires wrapper.compressed().
// Errors: kBadWrapper (null value, no inner entries, a compressed inner message, a v1
// wrapper offset below the last inner offset, offsets overflowing), kBadMagic (inner
// magic differs from the wrapper's), the codec's errors (kDecompressTooLarge past
// `limits`), and parse_legacy_entry's for each inner entry. Unlike Kafka, bytes after the
// last whole inner entry are an error, not ignored. Inner CRCs are reported per message
// in `crc_valid`; callers that need them valid check each with validate_legacy_crc.
// Memory: scratch <= limits.max_output_bytes, and one LegacyMessage per >= 26 bytes of it.
Result<std::vector<LegacyMessage>, RecordErrc> read_wrapper_inner(
    const LegacyMessage& wrapper, std::vector<uint8_t>& scratch,
    const DecompressLimits& limits = {});

// Builders, for tests and tools that need legacy bytes (Strata never writes v0/v1 logs).

// One uncompressed (or already compressed: see attributes) message to encode.
struct LegacyEntrySpec {
  Offset offset{0};
  int8_t magic = kMagicV1;
  int8_t attributes = 0;                 // codec and timestamp-type bits, written as given
  TimestampMs timestamp = kNoTimestamp;  // written for v1 only
  std::optional<Bytes> key = std::nullopt;
  std::optional<Bytes> value = std::nullopt;
};

// Appends one entry with a correct CRC. Requires magic 0 or 1 and key/value shorter
// than 2 GiB.
void encode_legacy_entry(const LegacyEntrySpec& spec, std::vector<uint8_t>& out);

// A wrapper around already encoded inner entries.
struct LegacyWrapperSpec {
  Offset offset{0};  // v0 and v1: the absolute offset of the last inner message
  int8_t magic = kMagicV1;
  Codec codec = Codec::kGzip;  // gzip, snappy or lz4
  TimestampType timestamp_type = TimestampType::kCreateTime;
  TimestampMs timestamp = kNoTimestamp;  // v1: the max inner timestamp, or the append time
};

// Compresses `inner_entries` and appends a wrapper entry holding them (null key).
// Magic-0 lz4 gets the correct frame header checksum (KAFKA-3160): Kafka since 0.10
// ignores that byte for magic 0, but a 0.8/0.9 reader would reject it.
Result<void, RecordErrc> encode_legacy_wrapper(const LegacyWrapperSpec& spec, Bytes inner_entries,
                                               std::vector<uint8_t>& out);

}  // namespace strata::record

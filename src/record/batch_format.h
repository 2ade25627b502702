// Constants of Kafka's v2 record batch ("magic 2"), shared by the reader, the
// writer, the validator and dump-log. docs/formats/record-batch.md has the grammar.
#pragma once

#include <cstddef>
#include <cstdint>

namespace strata::record {

// Byte offsets of the header fields, in wire order (all big-endian).
inline constexpr size_t kBaseOffsetPos = 0;            // int64
inline constexpr size_t kBatchLengthPos = 8;           // int32: bytes after this field
inline constexpr size_t kPartitionLeaderEpochPos = 12; // int32
inline constexpr size_t kMagicPos = 16;                // int8
inline constexpr size_t kCrcPos = 17;                  // uint32: CRC32C of [kAttributesPos, end)
inline constexpr size_t kAttributesPos = 21;           // int16  <- CRC coverage starts here
inline constexpr size_t kLastOffsetDeltaPos = 23;      // int32
inline constexpr size_t kBaseTimestampPos = 27;        // int64
inline constexpr size_t kMaxTimestampPos = 35;         // int64
inline constexpr size_t kProducerIdPos = 43;           // int64
inline constexpr size_t kProducerEpochPos = 51;        // int16
inline constexpr size_t kBaseSequencePos = 53;         // int32
inline constexpr size_t kRecordCountPos = 57;          // int32
inline constexpr size_t kRecordsPos = 61;              // records (maybe compressed)
inline constexpr size_t kHeaderSize = 61;

// Every entry of a log (v0, v1 or v2) starts with offset int64 and size int32;
// the magic byte sits at the same position in all three formats.
inline constexpr size_t kLogOverhead = 12;             // offset + size fields
inline constexpr size_t kCrcStart = kAttributesPos;

static_assert(kHeaderSize == 61, "the v2 batch header is 61 bytes");
static_assert(kBatchLengthPos + 4 == kPartitionLeaderEpochPos);
static_assert(kCrcPos + 4 == kAttributesPos, "the CRC covers attributes to the end");
static_assert(kRecordCountPos + 4 == kRecordsPos);
static_assert(kLogOverhead == kPartitionLeaderEpochPos);

inline constexpr int8_t kMagicV0 = 0;
inline constexpr int8_t kMagicV1 = 1;
inline constexpr int8_t kMagicV2 = 2;

// Attributes (int16) bits.
inline constexpr int16_t kCodecMask = 0x07;              // bits 0-2
inline constexpr int16_t kTimestampTypeBit = 1 << 3;     // 0 CreateTime, 1 LogAppendTime
inline constexpr int16_t kTransactionalBit = 1 << 4;
inline constexpr int16_t kControlBit = 1 << 5;
inline constexpr int16_t kDeleteHorizonBit = 1 << 6;     // baseTimestamp is the delete horizon

enum class Codec : uint8_t { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };
inline constexpr uint8_t kCodecMax = 4;

enum class TimestampType : uint8_t { kCreateTime = 0, kLogAppendTime = 1 };

// Kafka's names, as dump-log prints them ("none", "gzip", ...).
const char* codec_name(Codec c);

// Smallest possible record: length(1) attributes(1) tsDelta(1) offsetDelta(1)
// keyLen(1) valueLen(1) headerCount(1).
inline constexpr size_t kMinRecordSize = 7;

}  // namespace strata::record

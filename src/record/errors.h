// Everything that can be wrong with a batch's bytes, as values. Each reason is
// distinct so tests and dump-log can name it; `kafka_error_code` keeps Kafka's
// split between CORRUPT_MESSAGE (the bytes are damaged: framing, CRC) and
// INVALID_RECORD (the bytes are intact but break the format's rules).
#pragma once

#include <cstdint>

#include "common/kafka_errors.h"

namespace strata::record {

enum class RecordErrc : uint8_t {
  kTruncatedHeader = 1,     // fewer bytes than a header needs
  kBatchLengthTooSmall,     // batchLength below the minimum header size
  kBatchLengthPastEnd,      // batchLength claims more bytes than are present
  kBadMagic,                // magic byte not 0, 1 or 2 (or not the one expected)
  kBadCrc,                  // stored CRC differs from the computed one
  kUnknownCodec,            // codec bits name no codec (5-7), or zstd in v0/v1
  kRecordCountNegative,
  kRecordCountMismatch,     // recordCount differs from the records found
  kLastOffsetDeltaMismatch, // lastOffsetDelta differs from the last record's offsetDelta
  kOffsetDeltaNotSequential,// record offsetDelta not 0,1,2,... (uncompacted input)
  kRecordLengthPastEnd,     // a record's length runs past its batch
  kRecordLengthMismatch,    // a record's fields do not fill exactly its length
  kVarintOverflow,          // a varint longer than 5 bytes (varlong: 10)
  kBadFieldLength,          // key/value/header length < -1 or past the record end
  kTrailingBytes,           // bytes left after the last record
  kDecompressFailed,        // the codec rejected the compressed bytes
  kDecompressTooLarge,      // decompression would pass the configured limit
  kCompressFailed,          // the codec failed to compress (builder side)
  kEmptyBatch,              // a batch from a producer with no records
  kBadControlRecord,        // control record key/value malformed
  kBadWrapper,              // legacy compressed wrapper malformed (inner offsets, nesting)
  kMissingKey,              // a record without a key for a compacted topic
};

// The Kafka error codes a batch's errors map to (numbers in common/kafka_errors.h).
inline constexpr int16_t kKafkaCorruptMessage = kafka_error::kCorruptMessage;
inline constexpr int16_t kKafkaInvalidRecord = kafka_error::kInvalidRecord;
inline constexpr int16_t kKafkaUnsupportedCompressionType =
    kafka_error::kUnsupportedCompressionType;

// Exhaustive over RecordErrc (no default): a new reason does not compile until it is
// given its Kafka code.
int16_t kafka_error_code(RecordErrc e);
const char* to_string(RecordErrc e);

}  // namespace strata::record

#include "record/errors.h"

namespace strata::record {

int16_t kafka_error_code(RecordErrc e) {
  switch (e) {
    // The bytes are damaged: Kafka's CorruptRecordException.
    case RecordErrc::kTruncatedHeader:
    case RecordErrc::kBatchLengthTooSmall:
    case RecordErrc::kBatchLengthPastEnd:
    case RecordErrc::kBadMagic:
    case RecordErrc::kBadCrc:
      return kKafkaCorruptMessage;
    case RecordErrc::kUnknownCodec:
      return kKafkaUnsupportedCompressionType;
    // Intact bytes that break the format's rules: Kafka's InvalidRecordException.
    case RecordErrc::kRecordCountNegative:
    case RecordErrc::kRecordCountMismatch:
    case RecordErrc::kLastOffsetDeltaMismatch:
    case RecordErrc::kOffsetDeltaNotSequential:
    case RecordErrc::kRecordLengthPastEnd:
    case RecordErrc::kRecordLengthMismatch:
    case RecordErrc::kVarintOverflow:
    case RecordErrc::kBadFieldLength:
    case RecordErrc::kTrailingBytes:
    case RecordErrc::kDecompressFailed:
    case RecordErrc::kDecompressTooLarge:
    case RecordErrc::kCompressFailed:
    case RecordErrc::kEmptyBatch:
    case RecordErrc::kBadControlRecord:
    case RecordErrc::kBadWrapper:
    case RecordErrc::kMissingKey:
      return kKafkaInvalidRecord;
  }
  return kKafkaInvalidRecord;  // not a RecordErrc value
}

const char* to_string(RecordErrc e) {
  switch (e) {
    case RecordErrc::kTruncatedHeader: return "truncated header";
    case RecordErrc::kBatchLengthTooSmall: return "batch length below the header size";
    case RecordErrc::kBatchLengthPastEnd: return "batch length past the end of the input";
    case RecordErrc::kBadMagic: return "unsupported magic byte";
    case RecordErrc::kBadCrc: return "CRC mismatch";
    case RecordErrc::kUnknownCodec: return "unknown compression codec";
    case RecordErrc::kRecordCountNegative: return "negative record count";
    case RecordErrc::kRecordCountMismatch: return "record count differs from the records present";
    case RecordErrc::kLastOffsetDeltaMismatch: return "lastOffsetDelta differs from the records";
    case RecordErrc::kOffsetDeltaNotSequential: return "record offset deltas are not sequential";
    case RecordErrc::kRecordLengthPastEnd: return "record length past the end of the batch";
    case RecordErrc::kRecordLengthMismatch: return "record fields do not fill the record length";
    case RecordErrc::kVarintOverflow: return "varint too long";
    case RecordErrc::kBadFieldLength: return "invalid key, value or header length";
    case RecordErrc::kTrailingBytes: return "bytes after the last record";
    case RecordErrc::kDecompressFailed: return "decompression failed";
    case RecordErrc::kDecompressTooLarge: return "decompressed size over the limit";
    case RecordErrc::kCompressFailed: return "compression failed";
    case RecordErrc::kEmptyBatch: return "batch has no records";
    case RecordErrc::kBadControlRecord: return "malformed control record";
    case RecordErrc::kBadWrapper: return "malformed compressed wrapper message";
    case RecordErrc::kMissingKey: return "compacted topic cannot accept a record without a key";
  }
  return "unknown record error";
}

}  // namespace strata::record

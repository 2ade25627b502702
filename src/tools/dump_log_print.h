// The line formats of kafka-dump-log.sh, one function per kind of line, each
// returning the line without its newline. Internal to the dump-log tool.
#pragma once

#include <optional>
#include <string>

#include "record/batch_view.h"
#include "record/legacy.h"
#include "record/record_codec.h"

namespace strata::tools {

// What a record line shows of its key and value: nothing, the bytes as text (Kafka's
// default StringDecoder, --print-data-log), __consumer_offsets records decoded
// (--offsets-decoder, offsets_decoder.h) or __transaction_state records decoded
// (--transaction-log-decoder, txn_log_decoder.h).
enum class DataFormat : uint8_t { kNone, kText, kOffsets, kTxnLog };

// "baseOffset: 0 lastOffset: 1 count: 2 ... isvalid: true"
std::string v2_batch_line(const record::BatchView& batch, size_t position);
// "| offset: 0 CreateTime: 1 keySize: 2 valueSize: 2 sequence: -1 headerKeys: [h1]"
// plus the control part or, unless `data` is kNone, " key: ..." / " payload: ...".
std::string v2_record_line(const record::BatchView& batch, const record::RecordView& r,
                           DataFormat data);

// "offset: 0 position: 0 CreateTime: 1 size: 39 magic: 1 compresscodec: none crc: 3 isvalid: true"
std::string legacy_batch_line(const record::LegacyMessage& m, size_t position);
// "| offset: 0 CreateTime: 1 keySize: -1 valueSize: 5 isValid: true crc: 3 payload: hello"
// (the current tool's form: Kafka's older Scala tool printed a stray '}' after the crc).
std::string legacy_record_line(const record::LegacyMessage& m, DataFormat data);

// Bytes as Java's new String(bytes, UTF_8) renders them: invalid UTF-8 becomes U+FFFD.
std::string decode_utf8_lossy(Bytes b);

}  // namespace strata::tools

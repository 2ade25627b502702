// One record inside a v2 batch:
//   length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
//   keyLength varint | key | valueLength varint | value |
//   headerCount varint | (headerKeyLength varint, headerKey, headerValueLength varint, value)*
// Lengths of -1 mean null (key, value, header value). Views point into the buffer
// the record was decoded from and live as long as that buffer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "common/bytes.h"
#include "common/result.h"
#include "record/errors.h"

namespace strata::record {

struct Header {
  std::string_view key;
  std::optional<Bytes> value;  // nullopt = null
};

struct RecordView {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  std::optional<Bytes> key;    // nullopt = null key
  std::optional<Bytes> value;  // nullopt = null value (a tombstone)
  int32_t header_count = 0;
  Bytes headers;               // the validated header bytes, read with HeaderCursor
  size_t position = 0;         // offset of the record's length varint in its record bytes
  size_t size = 0;             // bytes including the length varint
};

// Decodes the record at the reader's position and advances past it. Every length
// is checked against the bytes of the record; on error the reader is left faulted.
Result<void, RecordErrc> decode_record(ByteReader& in, RecordView& out);

// Iterates the headers of a RecordView that decode_record accepted.
class HeaderCursor {
 public:
  explicit HeaderCursor(const RecordView& r) : in_(r.headers), left_(r.header_count) {}
  bool next(Header& out);

 private:
  ByteReader in_;
  int32_t left_;
};

// Appends one record; returns the bytes written.
size_t encode_record(ByteWriter& out, int64_t timestamp_delta, int32_t offset_delta,
                     std::optional<Bytes> key, std::optional<Bytes> value,
                     std::span<const Header> headers);

}  // namespace strata::record

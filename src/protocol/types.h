// The value types of Kafka protocol fields that are not plain integers or strings.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "protocol/output.h"

namespace strata::protocol {

// A Kafka Uuid (topic ids): 16 bytes; all zero is "no id".
struct Uuid {
  std::array<uint8_t, 16> bytes{};
  bool operator==(const Uuid&) const = default;
  bool is_zero() const { return *this == Uuid{}; }
};

// A RECORDS field. Decoded from a request, `data` views the request frame, which is
// writable so the leader can stamp offsets in place; it lives as long as the frame.
// Encoded into a response, the records are either `data` (memory the caller keeps
// alive until sent) or `file` (a slice of a segment file, spliced onto the wire).
struct Records {
  std::optional<MutableBytes> data;  // nullopt and no file: null records
  std::optional<FileSlice> file;
  bool is_null() const { return !data && !file; }
  uint64_t size() const { return file ? file->size : data ? data->size() : 0; }
};

}  // namespace strata::protocol

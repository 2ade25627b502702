// The value types of Kafka protocol fields that are not plain integers or strings.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/types.h"
#include "protocol/output.h"

namespace strata::protocol {

// A Kafka Uuid (topic ids): common/types.h, shared with storage (partition.metadata).
using Uuid = strata::Uuid;

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

// The console's JSON of record batches (docs/formats/console-api.md): what the batch
// inspector and the message browser show. Bytes come from a Fetch answer, as the leader's
// log holds them; nothing here trusts them: a cut or malformed tail ends the list with a
// note, a bad CRC is shown as such, records that cannot be read are reported, not thrown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/bytes.h"
#include "record/batch_view.h"

namespace strata::console {

// Bounds on what one answer decodes (records of compressed batches are decompressed).
inline constexpr size_t kRecordsPerAnswerMax = 500;
inline constexpr size_t kValueBytesShownMax = 64 * 1024;  // per key or value; longer ones are cut
inline constexpr size_t kAnswerBytesMax = 4 << 20;        // keys, values and headers in one answer

// The header fields of one v2 batch: offsets, sizes, codec, producer, flags, CRC status.
nlohmann::json batch_header(const record::BatchView& batch, size_t position);

// Every whole batch in `records` (a Fetch's RECORDS bytes): {"batches": [...], "end": why
// the list ends ("end", "partial" for a tail cut by the fetch size, or the reason bytes
// could not be read)}. Each batch carries "gap": offsets missing before it (compacted or
// never written), from `expected_next` on.
nlohmann::json batch_list(Bytes records, int64_t expected_next);

// One batch opened: its header, its records (at most kRecordsPerAnswerMax) and the byte
// map of `strata dump-log --explain`.
nlohmann::json batch_detail(const record::BatchView& batch, size_t position);

// What one page of the message browser keeps from a Fetch's bytes.
struct RecordQuery {
  int64_t from = 0;      // records before this offset are skipped
  size_t limit = 50;     // records kept at most
  std::string filter;    // kept: records whose key, value or a header value holds these bytes
  size_t bytes_max = kAnswerBytesMax;  // of keys, values and headers kept
  bool controls = false;  // control records (markers) kept too
};

// The records of the batches in `records` that `q` keeps: {"records": [...], "next": the
// offset after the last record examined (after the last batch when all were examined,
// so compacted ranges and markers are passed), "full": the limit or the byte bound was
// reached, "error": what could not be read}.
nlohmann::json record_list(Bytes records, const RecordQuery& q);

// A key, value or header value: {"size": n, "text": UTF-8 or null, "base64": "..."} (text
// only when the bytes are valid UTF-8), null for null; cut at kValueBytesShownMax.
nlohmann::json bytes_json(const std::optional<Bytes>& b);

}  // namespace strata::console

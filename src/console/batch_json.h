// The console's JSON of record batches (docs/formats/console-api.md): what the batch
// inspector and the message browser show. Bytes come from a Fetch answer, as the leader's
// log holds them; nothing here trusts them: a cut or malformed tail ends the list with a
// note, a bad CRC is shown as such, records that cannot be read are reported, not thrown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "common/bytes.h"
#include "record/batch_view.h"

namespace strata::console {

// Bounds on what one answer decodes (records of compressed batches are decompressed).
inline constexpr size_t kRecordsPerAnswerMax = 500;
inline constexpr size_t kValueBytesShownMax = 64 * 1024;  // per key or value; longer ones are cut

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

// The records of every batch in `records` from `from` on, at most `limit`; control
// records left out unless `controls`.
nlohmann::json record_list(Bytes records, int64_t from, size_t limit, bool controls);

// A key, value or header value: {"size": n, "text": UTF-8 or null, "base64": "..."} (text
// only when the bytes are valid UTF-8), null for null; cut at kValueBytesShownMax.
nlohmann::json bytes_json(const std::optional<Bytes>& b);

}  // namespace strata::console

#include "console/batch_json.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.h"
#include "record/batch_format.h"
#include "record/control.h"
#include "record/errors.h"
#include "record/log_scanner.h"
#include "record/validate.h"
#include "security/base64.h"
#include "tools/explain.h"

namespace strata::console {

using nlohmann::json;
using namespace strata::record;

namespace {


// Offsets and timestamps from bytes nobody vouches for: sums saturate rather than
// overflow (a hostile base offset near the int64 bounds).
int64_t add_sat(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? INT64_MAX : INT64_MIN;
  return out;
}
int64_t last_offset_of(const BatchView& b) { return add_sat(b.base_offset().value(), b.last_offset_delta()); }
int64_t offset_of(const BatchView& b, const RecordView& r) { return add_sat(b.base_offset().value(), r.offset_delta); }
int64_t timestamp_of(const BatchView& b, const RecordView& r) {
  if (b.timestamp_type() == TimestampType::kLogAppendTime) return b.max_timestamp();
  return add_sat(b.base_timestamp(), r.timestamp_delta);
}
// Offsets from `from` up to `to`, 0 when `to` is not after it.
int64_t gap_between(int64_t from, int64_t to) {
  return to > from ? int64_t(std::min<uint64_t>(uint64_t(to) - uint64_t(from), INT64_MAX)) : 0;
}

json control_json(const RecordView& r) {
  auto key = parse_control_key(r.key);
  if (!key) return {{"error", std::string(record::to_string(key.error()))}};
  json out = {{"type", control_type_name(key->type)}, {"version", key->version}};
  if (key->is_end_txn()) {
    if (auto m = parse_end_txn_marker(*key, r.value)) out["coordinator_epoch"] = m->coordinator_epoch;
  }
  return out;
}

json record_json(const BatchView& batch, const RecordView& r) {
  json headers = json::array();
  HeaderCursor h(r);
  Header header;
  while (h.next(header)) headers.push_back({{"key", std::string(header.key)}, {"value", bytes_json(header.value)}});
  json out = {{"offset", offset_of(batch, r)},
              {"timestamp", timestamp_of(batch, r)},
              {"key", bytes_json(r.key)},
              {"value", bytes_json(r.value)},
              {"headers", std::move(headers)},
              {"size", r.size}};
  if (batch.is_control()) out["control"] = control_json(r);
  return out;
}

// Calls `each(batch, position)` for every whole v2 batch in `records`; returns why it
// stopped ("end", "partial", or what could not be read).
template <class F>
std::string for_each_batch(Bytes records, F&& each) {
  LogScanner scanner(records);
  while (auto entry = scanner.next()) {
    if (entry->magic != 2) return "a magic " + std::to_string(entry->magic) + " entry at offset " +
                                  std::to_string(entry->offset) + " (shown by strata dump-log only)";
    auto batch = frame_batch(entry->bytes);
    if (!batch) return std::string("batch at offset ") + std::to_string(entry->offset) + ": " +
                       std::string(record::to_string(batch.error()));
    if (!each(*batch, entry->position)) return "end";
  }
  switch (scanner.stop()) {
    case ScanStop::kPartialEntry: return "partial";
    case ScanStop::kBadSize: return "a bad size field at byte " + std::to_string(scanner.valid_bytes());
    case ScanStop::kBadMagic: return "a bad magic byte at byte " + std::to_string(scanner.valid_bytes());
    default: return "end";
  }
}

bool has(const std::optional<Bytes>& b, std::string_view needle) {
  if (!b) return false;
  return std::search(b->begin(), b->end(), needle.begin(), needle.end()) != b->end();
}

// A record's key, value or a header value holds `needle` (bytes compared as they are).
bool matches(const RecordView& r, std::string_view needle) {
  if (needle.empty() || has(r.key, needle) || has(r.value, needle)) return true;
  HeaderCursor h(r);
  Header header;
  while (h.next(header)) {
    if (has(header.value, needle)) return true;
  }
  return false;
}

size_t shown_bytes(const RecordView& r) {
  auto shown = [](const std::optional<Bytes>& b) { return b ? std::min(b->size(), kValueBytesShownMax) : 0; };
  return shown(r.key) + shown(r.value) + r.headers.size();
}

}  // namespace

json bytes_json(const std::optional<Bytes>& b) {
  if (!b) return nullptr;
  const size_t shown = std::min(b->size(), kValueBytesShownMax);
  std::string_view s(reinterpret_cast<const char*>(b->data()), shown);
  json out = {{"size", b->size()}, {"base64", security::base64_encode(s)}};
  out["text"] = valid_utf8(s) ? json(std::string(s)) : json(nullptr);
  if (shown < b->size()) out["cut"] = true;
  return out;
}

json batch_header(const BatchView& b, size_t position) {
  const uint32_t computed = b.computed_crc();
  json out = {{"base_offset", b.base_offset().value()},
              {"last_offset", last_offset_of(b)},
              {"record_count", b.record_count()},
              {"position", position},
              {"size", b.size()},
              {"magic", b.magic()},
              {"partition_leader_epoch", b.partition_leader_epoch().value()},
              {"crc", b.crc()},
              {"crc_computed", computed},
              {"crc_valid", computed == b.crc()},
              {"attributes", b.attributes()},
              {"codec", b.codec_bits() <= kCodecMax ? codec_name(b.codec()) : "unknown"},
              {"timestamp_type", b.timestamp_type() == TimestampType::kLogAppendTime ? "LogAppendTime" : "CreateTime"},
              {"transactional", b.is_transactional()},
              {"control", b.is_control()},
              {"producer_id", b.producer_id().value()},
              {"producer_epoch", b.producer_epoch().value()},
              {"base_sequence", b.base_sequence().value()},
              {"last_sequence", b.last_sequence().value()},
              {"base_timestamp", b.base_timestamp()},
              {"max_timestamp", b.max_timestamp()}};
  if (auto horizon = b.delete_horizon_ms()) out["delete_horizon_ms"] = *horizon;
  return out;
}

json batch_list(Bytes records, int64_t expected_next) {
  json batches = json::array();
  std::string end = for_each_batch(records, [&](const BatchView& b, size_t position) {
    json h = batch_header(b, position);
    const int64_t base = b.base_offset().value();
    h["gap"] = gap_between(expected_next, base);
    if (b.is_control() && b.record_count() > 0) {  // the marker's type, for the list
      std::vector<uint8_t> scratch;
      if (auto bytes = uncompressed_records(b, scratch)) {
        RecordCursor cursor(*bytes, b.record_count());
        RecordView r;
        if (auto more = cursor.next(r); more && *more) h["marker"] = control_json(r);
      }
    }
    expected_next = add_sat(last_offset_of(b), 1);
    batches.push_back(std::move(h));
    return true;
  });
  return {{"batches", std::move(batches)}, {"end", end}};
}

json batch_detail(const BatchView& b, size_t position) {
  json records = json::array();
  std::string error;
  std::vector<uint8_t> scratch;
  auto bytes = uncompressed_records(b, scratch);
  if (!bytes) {
    error = std::string(record::to_string(bytes.error()));
  } else {
    RecordCursor cursor(*bytes, b.record_count());
    RecordView r;
    size_t kept = 0;
    while (records.size() < kRecordsPerAnswerMax && kept < kAnswerBytesMax) {
      auto more = cursor.next(r);
      if (!more) {
        error = std::string(record::to_string(more.error()));
        break;
      }
      if (!*more) break;
      records.push_back(record_json(b, r));
      kept += shown_bytes(r);
    }
  }
  json out = {{"header", batch_header(b, position)},
              {"records", std::move(records)},
              {"explain", tools::explain_v2_batch(b, position)}};
  if (!error.empty()) out["records_error"] = error;
  return out;
}

json record_list(Bytes bytes, const RecordQuery& q) {
  json records = json::array();
  std::string error;
  int64_t next = q.from;
  size_t bytes_kept = 0;
  bool full = false;
  for_each_batch(bytes, [&](const BatchView& b, size_t) {
    const int64_t past = add_sat(last_offset_of(b), 1);
    if (past <= q.from || (b.is_control() && !q.controls)) {
      next = std::max(next, past);
      return true;
    }
    std::vector<uint8_t> scratch;
    auto data = uncompressed_records(b, scratch);
    if (!data) {
      error = "batch at offset " + std::to_string(b.base_offset().value()) + ": " + record::to_string(data.error());
      return false;
    }
    RecordCursor cursor(*data, b.record_count());
    RecordView r;
    for (;;) {
      auto more = cursor.next(r);
      if (!more) {
        error = "batch at offset " + std::to_string(b.base_offset().value()) + ": " + record::to_string(more.error());
        return false;
      }
      if (!*more) break;
      const int64_t offset = offset_of(b, r);
      if (offset < q.from) continue;
      next = add_sat(offset, 1);
      if (!matches(r, q.filter)) continue;
      json rec = record_json(b, r);
      rec["transactional"] = b.is_transactional();
      rec["producer_id"] = b.producer_id().value();
      records.push_back(std::move(rec));
      bytes_kept += shown_bytes(r);
      if (records.size() >= q.limit || bytes_kept >= q.bytes_max) {
        full = true;
        return false;
      }
    }
    next = std::max(next, past);  // a compacted batch's range ends past its last record
    return true;
  });
  json out = {{"records", std::move(records)}, {"next", next}, {"full", full}};
  if (!error.empty()) out["error"] = error;
  return out;
}

}  // namespace strata::console

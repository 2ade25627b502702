// Recovery of cleanings a crash interrupted, as Kafka's LogLoader does before it loads a
// log's segments (removeTempFilesAndCollectSwapFiles and the passes after it):
//
//   1. `.cleaned` files are deleted (output not finished), and with them any `.swap` file
//      at or above the lowest `.cleaned` base offset (Kafka: an unfinished split);
//   2. each remaining `<base>.log.swap` covers [base, its next offset): the segment files
//      of that range without `.swap` are the segments it replaces, and are deleted;
//   3. every `.swap` file is renamed to its final name.
//
// Log::finish_clean renames in an order that makes each crash point land in one of
// these cases (docs/formats/segments.md, "Compaction"). Unlike Kafka, step 2 keeps the
// producer snapshots in the range (they stay true; stray ones go later).
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "record/batch_format.h"
#include "storage/index_format.h"
#include "storage/log.h"
#include "storage/segment_scan.h"

namespace strata::storage {

using namespace strata::record;

namespace {

constexpr uint64_t kSwapEntryBytesMax = uint64_t{1} << 31;  // a segment is < 2 GiB

// The base offset of a file named "<20 digits>.<anything>".
std::optional<int64_t> offset_of_name(const std::string& name) {
  if (name.size() <= size_t(kFileNameDigits) || name[size_t(kFileNameDigits)] != '.') {
    return std::nullopt;
  }
  int64_t v = 0;
  for (int i = 0; i < kFileNameDigits; ++i) {
    const char c = name[size_t(i)];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool is_segment_file(const std::string& name) {
  const std::string rest = name.substr(size_t(kFileNameDigits));
  return rest == kLogSuffix || rest == kIndexSuffix || rest == kTimeIndexSuffix ||
         rest == kTxnIndexSuffix;
}

// One past the last offset of the entries in a `.log.swap` file (its base if empty);
// a torn tail ends the walk, as recovery will cut it.
Result<int64_t, StorageError> next_offset_of(const std::string& path, int64_t base) {
  auto file = File::open(path, false);
  if (!file) return fail(file.error());
  auto size = (*file)->size();
  if (!size) return fail(size.error());
  SequentialReader reader(**file, *size, kSwapEntryBytesMax);
  int64_t next = base;
  for (Bytes entry;;) {
    auto more = reader.next(entry);
    if (!more) return fail(more.error());
    if (!*more) break;
    int64_t last = int64_t(load_be64(entry.data()));
    if (int8_t(entry[kMagicPos]) == kMagicV2 && entry.size() >= kHeaderSize) {
      last += int32_t(load_be32(entry.data() + kLastOffsetDeltaPos));
    }
    next = std::max(next, last + 1);
  }
  return next;
}

}  // namespace

Result<bool, StorageError> Log::complete_swaps(const std::vector<std::string>& names) {
  int64_t min_cleaned = INT64_MAX;
  std::vector<std::string> swaps;
  for (const std::string& name : names) {
    if (name.ends_with(kCleanedSuffix)) {
      min_cleaned = std::min(min_cleaned, offset_of_name(name).value_or(INT64_MAX));
      ::unlink((dir_ + "/" + name).c_str());
    } else if (name.ends_with(kSwapSuffix)) {
      swaps.push_back(name);
    }
  }
  if (swaps.empty()) return min_cleaned != INT64_MAX;
  int64_t range_begin = INT64_MAX, range_end = INT64_MIN;
  std::vector<std::string> valid;
  for (const std::string& name : swaps) {
    const std::optional<int64_t> base = offset_of_name(name);
    if (!base || *base >= min_cleaned) {
      report_.notes.push_back("deleted " + name + " (an unfinished split)");
      ::unlink((dir_ + "/" + name).c_str());
      continue;
    }
    valid.push_back(name);
    if (name.substr(size_t(kFileNameDigits)) != std::string(kLogSuffix) + kSwapSuffix) continue;
    auto next = next_offset_of(dir_ + "/" + name, *base);
    if (!next) return fail(next.error());
    range_begin = std::min(range_begin, *base);
    range_end = std::max(range_end, *next);
  }
  for (const std::string& name : names) {
    const std::optional<int64_t> at = offset_of_name(name);
    if (!at || !is_segment_file(name) || *at < range_begin || *at >= range_end) continue;
    report_.notes.push_back("deleted " + name + ", replaced by a cleaned segment");
    ::unlink((dir_ + "/" + name).c_str());
  }
  for (const std::string& name : valid) {
    const std::string final_name = name.substr(0, name.size() - std::string(kSwapSuffix).size());
    if (auto r = rename_file(dir_ + "/" + name, dir_ + "/" + final_name); !r) return fail(r.error());
    report_.notes.push_back("completed the swap of " + final_name);
  }
  if (auto r = sync_directory(dir_); !r) return fail(r.error());
  return true;
}

}  // namespace strata::storage

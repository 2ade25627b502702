#include "tools/dump_index.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <vector>

#include "record/legacy.h"
#include "record/log_scanner.h"
#include "record/validate.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "tools/mapped_file.h"

namespace strata::tools {

using namespace strata::record;
using storage::OffsetIndex;
using storage::TimeIndex;

namespace {

namespace fs = std::filesystem;

// An error as text, for the stderr lines of this tool.
using Checked = Result<int64_t, std::string>;

// The segment's base offset: the file name up to its first '.', as Kafka parses it.
std::optional<int64_t> base_offset_of(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  const std::string digits = name.substr(0, name.find('.'));
  int64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size()) return {};
  return v;
}

// "<dir>/00000000000000000042.index" -> "<absolute dir>/00000000000000000042<suffix>".
std::string sibling(const std::string& path, const char* suffix) {
  const fs::path abs = fs::absolute(path);
  const std::string name = abs.filename().string();
  return (abs.parent_path() / (name.substr(0, name.find('.')) + suffix)).string();
}

// Kafka's FileChannelRecordBatch.lastOffset: v2 baseOffset + lastOffsetDelta; for v0/v1
// the entry's own offset.
Checked last_offset_of(const LogEntry& e) {
  if (e.magic != kMagicV2) return e.offset;
  auto batch = frame_batch(e.bytes);
  if (!batch) return fail(std::string(to_string(batch.error())));
  return batch->last_offset().value();
}

// The last offset of the first batch in `bytes` (Kafka: slice.batches.iterator.next()).
Checked first_batch_last_offset(Bytes bytes) {
  LogScanner scanner(bytes);
  auto e = scanner.next();
  if (!e) return fail(std::string("no whole batch there (") + to_string(scanner.stop()) + ")");
  return last_offset_of(*e);
}

// The largest record timestamp of an entry, iterating its records as Kafka does
// (decompressing if need be); -1 when it has none.
Checked max_record_timestamp(const LogEntry& e, std::vector<uint8_t>& scratch) {
  int64_t max_ts = kNoTimestamp.value();
  if (e.magic == kMagicV2) {
    auto batch = frame_batch(e.bytes);
    if (!batch) return fail(std::string(to_string(batch.error())));
    auto records = uncompressed_records(*batch, scratch);
    if (!records) return fail(std::string(to_string(records.error())));
    RecordCursor cursor(*records, batch->record_count());
    RecordView r;
    for (;;) {
      auto more = cursor.next(r);
      if (!more) return fail(std::string(to_string(more.error())));
      if (!*more) return max_ts;
      max_ts = std::max(max_ts, batch->timestamp_of(r));
    }
  }
  auto m = parse_legacy_entry(e.bytes);
  if (!m) return fail(std::string(to_string(m.error())));
  if (!m->compressed()) return m->timestamp.value();
  auto inner = read_wrapper_inner(*m, scratch);
  if (!inner) return fail(std::string(to_string(inner.error())));
  for (const LegacyMessage& im : *inner) max_ts = std::max(max_ts, im.timestamp.value());
  return max_ts;
}

// Kafka's sanity check, as `--index-sanity-check` runs it.
template <class Index>
int print_sanity(const Index& index, const std::string& path, std::ostream& out,
                 std::ostream& err) {
  if (auto r = index.sanity_check(); !r) {
    err << r.error().detail << "\n";
    return 1;
  }
  out << path << " passed sanity check.\n";
  return 0;
}

// Reports a sibling .log that cannot be read; its index entries are then not checked.
bool log_readable(const MappedFile& log, const std::string& index_path, std::ostream& err) {
  if (log.ok()) return true;
  err << "Error: cannot read " << sibling(index_path, ".log") << " to verify " << index_path << ": "
      << log.error() << "; its entries are not checked\n";
  return false;
}

struct OffsetIndexDump {
  const DumpLogOptions& options;
  std::ostream& err;
  IndexDumpErrors& errors;
  std::string abs_path;
  Bytes log;
  std::string log_path;

  void verify(const storage::OffsetPosition& e) {
    if (e.position > log.size()) {
      err << "Error: index offset " << e.offset.value() << " points at position " << e.position
          << ", past the end of " << log_path << " (" << log.size() << " bytes)\n";
      return;
    }
    const size_t limit = size_t(std::max<int64_t>(options.max_message_size, 0));
    const Bytes slice = log.subspan(e.position, std::min(limit, log.size() - e.position));
    const Checked last = first_batch_last_offset(slice);
    if (!last) {
      err << "Error: no batch at position " << e.position << " of " << log_path
          << " for index offset " << e.offset.value() << ": " << last.error() << "\n";
    } else if (*last != e.offset.value()) {
      errors.offset_mismatch(abs_path, e.offset.value(), *last);
    }
  }
};

struct TimeIndexDump {
  std::ostream& err;
  IndexDumpErrors& errors;
  std::string abs_path;
  Bytes log;
  std::string log_path;
  const OffsetIndex* offsets;  // null: batches are searched from the log's start
  std::vector<uint8_t> scratch;

  // Finds the first batch ending at or after the entry's offset, from the position the
  // offset index gives, and checks the entry's timestamp against its records.
  void verify(const storage::TimestampOffset& e, int64_t previous_ts) {
    const uint64_t position = offsets ? offsets->lookup(e.offset).position : 0;
    if (position > log.size()) {
      err << "Error: the offset index maps offset " << e.offset.value() << " to position "
          << position << ", past the end of " << log_path << "\n";
      return;
    }
    LogScanner scanner(log.subspan(size_t(position)));
    std::optional<LogEntry> found;
    int64_t found_last = -1;
    while ((found = scanner.next())) {
      const Checked last = last_offset_of(*found);
      if (!last) return problem(position + found->position, last.error());
      found_last = *last;
      if (found_last >= e.offset.value()) break;
    }
    if (!found) {
      if (scanner.stop() == ScanStop::kBadSize || scanner.stop() == ScanStop::kBadMagic) {
        problem(position + scanner.valid_bytes(), to_string(scanner.stop()));
      }
      return errors.offset_not_found(abs_path, e.offset.value(), -1);
    }
    if (found_last != e.offset.value()) {
      return errors.offset_not_found(abs_path, e.offset.value(), found_last);
    }
    const Checked max_ts = max_record_timestamp(*found, scratch);
    if (!max_ts) return problem(position + found->position, max_ts.error());
    if (*max_ts != e.timestamp) errors.timestamp_mismatch(abs_path, e.timestamp, *max_ts);
    if (previous_ts >= e.timestamp) errors.out_of_order(abs_path, e.timestamp, previous_ts);
  }

  void problem(uint64_t position, const std::string& what) {
    err << "Error in " << log_path << " at position " << position << ": " << what << "\n";
  }
};

}  // namespace

int dump_offset_index(const std::string& path, const DumpLogOptions& options, std::ostream& out,
                      std::ostream& err, IndexDumpErrors& errors) {
  const auto base = base_offset_of(path);
  if (!base) {
    err << "Error: cannot read a base offset from the file name of " << path << "\n";
    return 1;
  }
  auto index = OffsetIndex::open(path, Offset(*base), 0, false);
  if (!index) {
    err << "Error: " << index.error().message() << "\n";
    return 1;
  }
  if (index->entries() == 0) {
    out << path << " is empty.\n";
    return 0;
  }
  if (options.index_sanity_check) return print_sanity(*index, path, out, err);
  const MappedFile log(sibling(path, ".log"), UINT64_MAX);
  const bool verify = log_readable(log, path, err);
  OffsetIndexDump d{
      options, err, errors, fs::absolute(path).string(), log.bytes(), sibling(path, ".log")};
  for (size_t i = 0; i < index->entries(); ++i) {
    const storage::OffsetPosition e = index->entry(i);
    // A crashed, preallocated file ends in zero entries: stop at the first.
    if (i > 0 && e.offset == index->base_offset()) break;
    if (verify) d.verify(e);
    if (!options.verify_index_only) {
      out << "offset: " << e.offset.value() << " position: " << e.position << "\n";
    }
  }
  return 0;
}

int dump_time_index(const std::string& path, const DumpLogOptions& options, std::ostream& out,
                    std::ostream& err, IndexDumpErrors& errors) {
  const auto base = base_offset_of(path);
  if (!base) {
    err << "Error: cannot read a base offset from the file name of " << path << "\n";
    return 1;
  }
  auto index = TimeIndex::open(path, Offset(*base), 0, false);
  if (!index) {
    err << "Error: " << index.error().message() << "\n";
    return 1;
  }
  if (options.index_sanity_check) return print_sanity(*index, path, out, err);
  const MappedFile log(sibling(path, ".log"), UINT64_MAX);
  const bool verify = log_readable(log, path, err);
  const std::string offsets_path = sibling(path, ".index");
  auto offsets = OffsetIndex::open(offsets_path, Offset(*base), 0, false);
  if (verify && !offsets) {
    err << "Error: " << offsets.error().message()
        << "; batches are searched from the start of the log\n";
  }
  TimeIndexDump d{err,
                  errors,
                  fs::absolute(path).string(),
                  log.bytes(),
                  sibling(path, ".log"),
                  offsets ? &*offsets : nullptr};
  int64_t previous_ts = kNoTimestamp.value();
  for (size_t i = 0; i < index->entries(); ++i) {
    const storage::TimestampOffset e = index->entry(i);
    if (i > 0 && e.offset == index->base_offset()) break;  // the zero tail, as for .index
    if (verify) d.verify(e, previous_ts);
    if (!options.verify_index_only) {
      out << "timestamp: " << e.timestamp << " offset: " << e.offset.value() << "\n";
    }
    previous_ts = e.timestamp;
  }
  return 0;
}

void IndexDumpErrors::add(std::vector<FileFindings>& to, const std::string& abs_path, int64_t a,
                          int64_t b) {
  auto it = std::find_if(to.begin(), to.end(),
                         [&](const FileFindings& f) { return f.abs_path == abs_path; });
  if (it == to.end()) it = to.insert(to.end(), FileFindings{abs_path, {}});
  it->pairs.emplace_back(a, b);
}

void IndexDumpErrors::offset_mismatch(const std::string& abs_path, int64_t index_offset,
                                      int64_t log_offset) {
  add(offset_mismatches_, abs_path, index_offset, log_offset);
}
void IndexDumpErrors::timestamp_mismatch(const std::string& abs_path, int64_t index_ts,
                                         int64_t log_ts) {
  add(timestamp_mismatches_, abs_path, index_ts, log_ts);
}
void IndexDumpErrors::out_of_order(const std::string& abs_path, int64_t index_ts,
                                   int64_t previous_ts) {
  add(out_of_order_, abs_path, index_ts, previous_ts);
}
void IndexDumpErrors::offset_not_found(const std::string& abs_path, int64_t index_offset,
                                       int64_t log_offset) {
  add(not_found_, abs_path, index_offset, log_offset);
}

void IndexDumpErrors::print(std::ostream& err) const {
  for (const FileFindings& f : offset_mismatches_) {
    err << "Mismatches in :" << f.abs_path << "\n";
    for (auto it = f.pairs.rbegin(); it != f.pairs.rend(); ++it) {
      err << "  Index offset: " << it->first << ", log offset: " << it->second << "\n";
    }
  }
  for (const FileFindings& f : timestamp_mismatches_) {
    err << "Found timestamp mismatch in :" << f.abs_path << "\n";
    for (const auto& [index_ts, log_ts] : f.pairs) {
      err << "  Index timestamp: " << index_ts << ", log timestamp: " << log_ts << "\n";
    }
  }
  for (const FileFindings& f : out_of_order_) {
    err << "Found out of order timestamp in :" << f.abs_path << "\n";
    for (const auto& [index_ts, previous_ts] : f.pairs) {
      err << "  Index timestamp: " << index_ts << ", Previously indexed timestamp: " << previous_ts
          << "\n";
    }
  }
  for (const FileFindings& f : not_found_) {
    err << "The following indexed offsets are not found in the log.\n";
    for (const auto& [index_offset, log_offset] : f.pairs) {
      err << "Indexed offset: " << index_offset << ", found log offset: " << log_offset << "\n";
    }
  }
}

}  // namespace strata::tools

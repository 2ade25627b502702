#include "tools/dump_log.h"

#include <charconv>
#include <filesystem>
#include <ostream>
#include <utility>

#include "record/log_scanner.h"
#include "record/validate.h"
#include "storage/index_format.h"
#include "tools/dump_index.h"
#include "tools/dump_log_print.h"
#include "tools/dump_snapshot.h"
#include "tools/dump_txn_index.h"
#include "tools/explain.h"
#include "tools/mapped_file.h"
#include "tools/offsets_decoder.h"
#include "tools/txn_log_decoder.h"

namespace strata::tools {

using namespace strata::record;

namespace {

// Everything one file's dump needs; summaries are gathered for the end of the run.
struct SegmentDump {
  const DumpLogOptions& options;
  std::ostream& out;
  std::ostream& err;
  std::string path;
  bool deep = false;
  DataFormat data = DataFormat::kNone;
  std::optional<int64_t> last_offset;              // of the previous record, for gaps
  std::vector<std::pair<int64_t, int64_t>> gaps;   // (previous, next) record offsets
  std::vector<uint8_t> scratch;

  void note_offset(int64_t offset) {
    if (last_offset && offset != *last_offset + 1) gaps.emplace_back(*last_offset, offset);
    last_offset = offset;
  }
  void problem(size_t position, const char* what, RecordErrc e) {
    err << "Error in " << path << " at position " << position << ": " << what << ": "
        << to_string(e) << "\n";
  }
  // Kafka's offsets and transaction-log decoders stop the whole dump on a record without
  // a key; we report it and go on.
  void check_key(size_t position, int64_t offset, bool has_key, bool control) {
    if (has_key || control) return;
    if (data != DataFormat::kOffsets && data != DataFormat::kTxnLog) return;
    err << "Error in " << path << " at position " << position << ": "
        << (data == DataFormat::kOffsets ? offsets_missing_key_message(offset)
                                         : txn_log_missing_key_message(offset))
        << "\n";
  }

  void v2_entry(const LogEntry& e);
  void legacy_entry(const LogEntry& e);
  void v2_records(const BatchView& batch, size_t position);
};

void SegmentDump::v2_records(const BatchView& batch, size_t position) {
  auto records = uncompressed_records(batch, scratch);
  if (!records) return problem(position, "cannot read the batch's records", records.error());
  RecordCursor cursor(*records, batch.record_count());
  RecordView r;
  for (;;) {
    auto more = cursor.next(r);
    if (!more) return problem(position, "bad record", more.error());
    if (!*more) return;
    note_offset(batch.offset_of(r).value());
    check_key(position, batch.offset_of(r).value(), r.key.has_value(), batch.is_control());
    out << v2_record_line(batch, r, data) << "\n";
  }
}

void SegmentDump::v2_entry(const LogEntry& e) {
  auto batch = frame_batch(e.bytes);
  if (!batch) return problem(e.position, "cannot frame the batch", batch.error());
  out << v2_batch_line(*batch, e.position) << "\n";
  if (options.explain) out << explain_v2_batch(*batch, e.position);
  if (deep) v2_records(*batch, e.position);
}

void SegmentDump::legacy_entry(const LogEntry& e) {
  auto m = parse_legacy_entry(e.bytes);
  if (!m) return problem(e.position, "cannot parse the message", m.error());
  out << legacy_batch_line(*m, e.position) << "\n";
  if (options.explain) out << explain_legacy_entry(*m, e.position);
  if (!deep) return;
  if (!m->compressed()) {
    note_offset(m->offset.value());
    check_key(e.position, m->offset.value(), m->key.has_value(), false);
    out << legacy_record_line(*m, data) << "\n";
    return;
  }
  auto inner = read_wrapper_inner(*m, scratch);
  if (!inner) return problem(e.position, "cannot read the wrapper's inner messages", inner.error());
  for (const LegacyMessage& im : *inner) {
    note_offset(im.offset.value());
    check_key(e.position, im.offset.value(), im.key.has_value(), false);
    out << legacy_record_line(im, data) << "\n";
  }
}

// The segment's base offset, from its file name as Kafka does ("000...123.log" -> 123).
std::optional<int64_t> base_offset_of(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  const std::string digits = name.substr(0, name.find('.'));
  int64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty()) return {};
  return v;
}

int dump_segment(SegmentDump& d) {
  const auto base = base_offset_of(d.path);
  if (!base) {
    d.err << "Error: cannot read a base offset from the file name of " << d.path << "\n";
    return 1;
  }
  d.out << "Log starting offset: " << *base << "\n";
  MappedFile file(d.path, uint64_t(std::max<int64_t>(d.options.max_bytes, 0)));
  if (!file.ok()) {
    d.err << "Error: cannot read " << d.path << ": " << file.error() << "\n";
    return 1;
  }
  LogScanner scanner(file.bytes());
  while (auto e = scanner.next()) {
    if (e->magic == kMagicV2) {
      d.v2_entry(*e);
    } else {
      d.legacy_entry(*e);
    }
  }
  if (scanner.tail_bytes() > 0 && d.options.max_bytes == kDumpMaxBytesDefault) {
    d.out << "Found " << scanner.tail_bytes() << " invalid bytes at the end of "
          << std::filesystem::path(d.path).filename().string() << "\n";
  }
  return 0;
}

void print_gaps(const SegmentDump& d) {
  if (d.gaps.empty()) return;
  d.err << "Non-consecutive offsets in " << std::filesystem::absolute(d.path).string() << "\n";
  for (const auto& [prev, next] : d.gaps) d.err << "  " << prev << " is followed by " << next << "\n";
}

std::string suffix_of(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? "" : name.substr(dot);
}

}  // namespace

int run_dump_log(const DumpLogOptions& options, std::ostream& out, std::ostream& err) {
  const bool print_data =
      options.print_data_log || options.offsets_decoder || options.transaction_log_decoder;
  const DataFormat data = options.offsets_decoder           ? DataFormat::kOffsets
                          : options.transaction_log_decoder ? DataFormat::kTxnLog
                                                            : DataFormat::kText;
  int status = 0;
  std::vector<SegmentDump> dumps;
  dumps.reserve(options.files.size());
  IndexDumpErrors index_errors;
  for (const std::string& path : options.files) {
    out << "Dumping " << path << "\n";
    const std::string suffix = suffix_of(path);
    if (suffix == ".index") {
      status |= dump_offset_index(path, options, out, err, index_errors);
      continue;
    }
    if (suffix == ".timeindex") {
      status |= dump_time_index(path, options, out, err, index_errors);
      continue;
    }
    if (suffix == storage::kSnapshotSuffix) {
      status |= dump_producer_snapshot(path, out, err);
      continue;
    }
    if (suffix == storage::kTxnIndexSuffix) {
      status |= dump_txn_index(path, out, err);
      continue;
    }
    if (suffix != ".log") {
      err << "Ignoring unknown file " << path << "\n";
      continue;
    }
    SegmentDump& d = dumps.emplace_back(SegmentDump{options, out, err, path});
    d.deep = options.deep_iteration || print_data;
    if (print_data) d.data = data;
    status |= dump_segment(d);
  }
  index_errors.print(err);
  for (const SegmentDump& d : dumps) print_gaps(d);
  out.flush();
  return status;
}

}  // namespace strata::tools

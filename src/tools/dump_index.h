// `strata dump-log` for `.index` and `.timeindex` files, as Kafka's DumpLogSegments
// dumpIndex and dumpTimeIndex do (docs/formats/dump-log-output.md sections 3.1, 3.2):
// each entry is printed and checked against the batches of the sibling `.log`; what
// disagrees is gathered and printed to stderr once every file is done (section 4).
//
// Where Kafka's tool crashes (no sibling .log, an entry pointing past the log or at no
// batch, a failed sanity check) this prints a clear error to stderr and goes on.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "tools/dump_log.h"

namespace strata::tools {

// The findings of index dumps, per index file, in Kafka's summary order.
class IndexDumpErrors {
 public:
  // .index: the entry's offset differs from the last offset of the batch at its position.
  void offset_mismatch(const std::string& abs_path, int64_t index_offset, int64_t log_offset);
  // .timeindex: the entry's timestamp differs from its batch's largest record timestamp.
  void timestamp_mismatch(const std::string& abs_path, int64_t index_ts, int64_t log_ts);
  // .timeindex: the entry's timestamp is not above the previous entry's.
  void out_of_order(const std::string& abs_path, int64_t index_ts, int64_t previous_ts);
  // .timeindex: no batch ends at the entry's offset (log_offset: the first batch ending
  // at or after it, -1 if none).
  void offset_not_found(const std::string& abs_path, int64_t index_offset, int64_t log_offset);

  // Kafka's stderr summaries: offset-index mismatches (newest first, as Scala's list
  // prepends), then time-index mismatches, out-of-order timestamps, offsets not found.
  void print(std::ostream& err) const;

 private:
  struct FileFindings {
    std::string abs_path;
    std::vector<std::pair<int64_t, int64_t>> pairs;  // in discovery order
  };
  static void add(std::vector<FileFindings>& to, const std::string& abs_path, int64_t a, int64_t b);

  std::vector<FileFindings> offset_mismatches_;
  std::vector<FileFindings> timestamp_mismatches_;
  std::vector<FileFindings> out_of_order_;
  std::vector<FileFindings> not_found_;
};

// Dumps one `.index` (or `.timeindex`) file after its "Dumping" line. Uses
// options.verify_index_only, index_sanity_check and (for .index) max_message_size.
// Returns 0, or 1 if the index could not be read or failed its sanity check.
int dump_offset_index(const std::string& path, const DumpLogOptions& options, std::ostream& out,
                      std::ostream& err, IndexDumpErrors& errors);
int dump_time_index(const std::string& path, const DumpLogOptions& options, std::ostream& out,
                    std::ostream& err, IndexDumpErrors& errors);

}  // namespace strata::tools

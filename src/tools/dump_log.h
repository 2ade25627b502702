// `strata dump-log`: prints log segments the way Kafka's kafka-dump-log.sh does
// (docs/formats/dump-log-output.md is the byte-exact model), plus `--explain`, an
// annotated byte map of every batch. Reads Kafka's segments and Strata's alike.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace strata::tools {

inline constexpr int64_t kDumpMaxBytesDefault = 2147483647;  // Kafka's Integer.MAX_VALUE

struct DumpLogOptions {
  std::vector<std::string> files;
  bool print_data_log = false;  // keys and payloads; implies deep_iteration
  bool deep_iteration = false;  // one line per record
  bool explain = false;         // byte map of each batch (Strata's addition)
  int64_t max_bytes = kDumpMaxBytesDefault;  // read at most this many bytes of each .log
};

// Dumps every file in order; summaries (non-consecutive offsets) go to `err` at the end.
// Returns 0, or 1 if a file could not be read at all. Corrupt data is reported in the
// output, never fatal.
int run_dump_log(const DumpLogOptions& options, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

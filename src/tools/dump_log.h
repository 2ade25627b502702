// `strata dump-log`: prints log segments, their indexes and producer snapshots the way
// Kafka's kafka-dump-log.sh does (docs/formats/dump-log-output.md is the byte-exact
// model), plus `--explain`, an annotated byte map of every batch. Reads Kafka's segments
// and Strata's alike.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace strata::tools {

inline constexpr int64_t kDumpMaxBytesDefault = 2147483647;  // Kafka's Integer.MAX_VALUE

// Kafka's --max-message-size default, 5242880.
inline constexpr int64_t kDumpMaxMessageSizeDefault = 5 * 1024 * 1024;

struct DumpLogOptions {
  std::vector<std::string> files;
  bool print_data_log = false;  // keys and payloads; implies deep_iteration
  bool deep_iteration = false;  // one line per record
  bool explain = false;         // byte map of each batch (Strata's addition)
  // Keys and payloads decoded as __consumer_offsets records; implies print_data_log.
  bool offsets_decoder = false;
  // Keys and payloads decoded as __transaction_state records; implies print_data_log.
  // offsets_decoder wins when both are set, as in Kafka.
  bool transaction_log_decoder = false;
  int64_t max_bytes = kDumpMaxBytesDefault;  // read at most this many bytes of each .log
  // .index/.timeindex: check entries against the log but print none of them.
  bool verify_index_only = false;
  // .index/.timeindex: run the broker's start-up sanity check only.
  bool index_sanity_check = false;
  // .index: bytes of the log read at each entry's position to find its batch.
  int64_t max_message_size = kDumpMaxMessageSizeDefault;
};

// Dumps every file in order (.log, .index, .timeindex, .snapshot, .txnindex); summaries
// (index mismatches, then non-consecutive offsets) go to `err` at the end. Returns 0, or
// 1 if a file could not be read at all, a producer snapshot or a transaction index failed
// its checks, or an index failed --index-sanity-check. Corrupt data is reported in the
// output, never fatal.
int run_dump_log(const DumpLogOptions& options, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

// Log compaction (Kafka's LogCleaner) for logs whose cleanup.policy includes "compact",
// in three steps so that the work runs on a cleaner thread while the partition's shard
// goes on appending:
//
//   shard:   Log::prepare_clean(first_dirty, now)   -> CleanTask    (cheap: no I/O)
//   cleaner: run_clean(task, map, config, now)      -> CleanResult  (reads and writes files;
//                                                                     never touches the Log)
//   shard:   Log::finish_clean(std::move(result))   -> CleanOutcome (renames: Kafka's swap)
//
// then LogManager::done_cleaning records the outcome's first dirty offset in
// cleaner-offset-checkpoint. LogManager::grab_filthiest picks the log to clean.
//
// What a cleaning does, as Kafka's Cleaner: it maps key -> latest offset over the dirty
// range [first dirty, first uncleanable) (as much of it as the OffsetMap holds), then
// rewrites every segment from the log's first up to where the map ends, in groups that
// fit segment.bytes and segment.index.bytes, into `<base>.log.cleaned` (+ indexes). A
// record survives if its offset is at or above its key's mapped offset (or beyond the
// map); keyless records go; tombstones and transaction markers go once the delete horizon
// that the first cleaning stamped into their batch (now + delete.retention.ms) has
// passed; aborted transactions' records go. docs/formats/segments.md, "Compaction".
//
// Threading: run_clean touches only its task, its map and new files; the task keeps the
// segments' files open (shared_ptr), so retention on the shard may delete them meanwhile
// (finish_clean then discards the groups that lost a segment).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/types.h"
#include "storage/errors.h"
#include "storage/file.h"
#include "storage/log_config.h"
#include "storage/offset_map.h"
#include "storage/segment.h"
#include "storage/txn_index.h"

namespace strata::storage {

// One segment a cleaning reads.
struct CleanInput {
  Offset base;
  Offset next_base;            // the next segment's base offset (the last: first uncleanable)
  std::shared_ptr<File> file;  // the .log, kept open whatever the shard does meanwhile
  uint64_t size = 0;           // its bytes when the task was made (it is not active)
  uint64_t offset_index_bytes = 0;
  uint64_t time_index_bytes = 0;
  uint64_t first_dirty_position = 0;  // the index hint for the first dirty offset, if here
};

// Kafka's LastRecord: what the producer state says of a producer when the task is made.
// The batch holding its last data offset (or, with none, its last marker) is kept, even
// if emptied, so the producer's sequence and epoch survive compaction.
struct ProducerLast {
  std::optional<Offset> last_data_offset;
  ProducerEpoch epoch = kNoProducerEpoch;
};

struct CleanTask {
  std::string dir;
  LogConfig config;
  Offset first_dirty;                // where the previous cleaning stopped (cleaner checkpoint)
  Offset first_uncleanable;          // a segment base: active segment, LSO, min.compaction.lag.ms
  std::vector<CleanInput> segments;  // the log's segments below first_uncleanable, in order
  std::vector<AbortedTxn> aborted;   // aborted transactions with data below it
  std::unordered_map<ProducerId, ProducerLast> producers;
};

struct CleanStats {
  uint64_t map_bytes_read = 0;
  uint64_t map_records_read = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t records_read = 0;
  uint64_t records_written = 0;
  uint64_t keyless_records_removed = 0;  // Kafka's "invalid messages"
  double map_utilization = 0;
  size_t segments_read = 0;
  size_t segments_written = 0;
};

// The cleaned replacement of consecutive segments.
struct CleanedGroup {
  std::unique_ptr<Segment> segment;  // named `<base>.*.cleaned`, flushed
  // The segments it replaces: base offset and .log file (the file tells the segment
  // apart from a later one with the same base).
  std::vector<std::pair<Offset, std::shared_ptr<File>>> replaces;
};

// run_clean's output. Move-only; the `.cleaned` files of groups still held when it is
// destroyed are deleted (a cleaning dropped on the floor leaves nothing behind).
struct CleanResult {
  CleanResult() = default;
  CleanResult(CleanResult&&) = default;
  CleanResult& operator=(CleanResult&&) = delete;
  ~CleanResult();

  std::vector<CleanedGroup> groups;
  Offset end_offset;  // the first offset not cleaned: the next first dirty offset
  CleanStats stats;
};

// What finish_clean did.
struct CleanOutcome {
  Offset first_dirty;  // for cleaner-offset-checkpoint (CleanResult::end_offset)
  size_t groups_swapped = 0;
  size_t groups_discarded = 0;  // a segment of theirs was deleted meanwhile
  uint64_t bytes_before = 0;    // of the replaced segments
  uint64_t bytes_after = 0;     // of their replacements
  CleanStats stats;
};

// Kafka's LogToClean figures for one log (Log::cleanable).
struct CleanableStats {
  Offset first_dirty;               // the checkpoint, or the log start when it was outside the log
  Offset first_uncleanable;         // a segment base
  uint64_t clean_bytes = 0;         // segments below the first dirty offset
  uint64_t cleanable_bytes = 0;     // segments from the one holding it to first_uncleanable
  double dirty_ratio = 0;           // cleanable / (clean + cleanable); 0 for an empty log
  int64_t compaction_delay_ms = 0;  // > 0: max.compaction.lag.ms exceeded by that much
  bool checkpoint_reset = false;    // the checkpointed offset was outside the log
  // Kafka's choice: compacted, not empty, and cleanable bytes with the lag exceeded, or
  // a dirty ratio above min.cleanable.dirty.ratio.
  bool should_clean = false;
};

// The cleaning itself (cleaner thread). `map` is the thread's (cleared first); `stop`, if
// set, aborts between batches (kClosed). Errors leave no files behind.
Result<CleanResult, StorageError> run_clean(const CleanTask& task, OffsetMap& map,
                                            const CleanerConfig& config, int64_t now_ms,
                                            const std::atomic<bool>* stop = nullptr);

// Kafka's groupSegmentsBySize: consecutive inputs whose data, offset index and time index
// bytes each fit the limits, and whose offsets fit one segment (relative int32).
std::vector<std::vector<const CleanInput*>> group_segments(const std::vector<const CleanInput*>& in,
                                                           uint64_t segment_bytes_max,
                                                           uint64_t index_bytes_max,
                                                           Offset first_uncleanable);

}  // namespace strata::storage

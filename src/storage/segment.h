// One segment of a partition log: `<base>.log` holding whole batches back to back,
// with its `.index`, `.timeindex` and `.txnindex` (docs/formats/segments.md,
// docs/formats/txn-index.md). The log appends to the
// last ("active") segment only; older segments are read-only.
//
// Threading: owned by the partition's shard; not thread-safe. The `.log` File is shared
// with the SyncService, which may fdatasync it from its own thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "common/bytes.h"
#include "common/result.h"
#include "common/types.h"
#include "storage/errors.h"
#include "storage/file.h"
#include "storage/log_config.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "storage/txn_index.h"

namespace strata::storage {

// What the segment needs to know of each batch it appends (gathered by the log when it
// stamps offsets, so nothing is parsed twice).
struct BatchInfo {
  Offset last_offset;
  int64_t max_timestamp = -1;
  uint32_t size = 0;
};

// Where a batch sits in the file, from its header alone.
struct BatchLocation {
  uint64_t position = 0;
  uint32_t size = 0;
  Offset first_offset;  // v2 baseOffset; for v0/v1 the entry's offset
  Offset last_offset;
  int64_t max_timestamp = -1;
};

// A byte range of whole batches in a segment's file, for a fetch.
struct FileRegion {
  std::shared_ptr<File> file;
  uint64_t position = 0;
  uint64_t size = 0;
};

struct RecoveryStats {
  uint64_t valid_bytes = 0;
  uint64_t truncated_bytes = 0;
  uint64_t batches = 0;
  std::string reason;  // why the tail was cut, empty when nothing was
};

// Called with each whole entry (a v2 batch or a legacy message set) a scan passes, in
// offset order; the bytes are valid during the call only.
using EntryVisitor = std::function<void(Bytes entry)>;

class Segment {
 public:
  // A new, empty segment (files created; indexes preallocated). With a `suffix`
  // (".cleaned": the cleaner's output) every file name carries it until rename_all.
  static Result<std::unique_ptr<Segment>, StorageError> create(const std::string& dir, Offset base,
                                                               const LogConfig& config,
                                                               int64_t now_ms,
                                                               const std::string& suffix = "");
  // An existing segment. Indexes are loaded as they are (the txn index read whole);
  // `sanity_check()` tells whether they can be trusted, else the caller runs `recover()`. `active` keeps the indexes
  // preallocated for appends.
  static Result<std::unique_ptr<Segment>, StorageError> open(const std::string& dir, Offset base,
                                                             const LogConfig& config, bool active,
                                                             int64_t now_ms);
  ~Segment();

  Offset base_offset() const { return base_; }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // One past the last offset stored; base_offset() when empty.
  Offset next_offset() const { return next_offset_; }
  int64_t max_timestamp() const { return max_timestamp_; }
  Offset offset_of_max_timestamp() const { return offset_of_max_timestamp_; }
  const std::shared_ptr<File>& log_file() const { return log_; }
  // The max timestamp of the first batch (Kafka's getFirstBatchTimestamp); -1 if none.
  int64_t first_batch_timestamp() const { return rolling_timestamp_; }
  // Bytes of index entries (what Kafka's cleaner counts when it groups segments).
  uint64_t offset_index_bytes() const;
  uint64_t time_index_bytes() const;
  // The offset index's hint for `target`: a position at or before its batch.
  uint64_t index_position(Offset target) const { return offsets_.lookup(target).position; }
  // The aborted transactions whose markers are in this segment. The log appends to it
  // after writing an ABORT marker, and while recovery replays the segment.
  TxnIndex& txn_index() { return *txns_; }
  const TxnIndex& txn_index() const { return *txns_; }
  std::string log_path() const;

  // Appends whole, stamped batches with one write, then their index entries.
  // Requires offsets above next_offset() and the batches' sizes to sum to batches.size().
  Result<void, StorageError> append(Bytes batches, std::span<const BatchInfo> infos);
  // Kafka's LogSegment.truncateTo: removes the batch whose last offset >= `offset` and
  // every batch after it (file, offset, time and txn indexes); returns the bytes removed.
  // next_offset() is then the removed batch's first offset (or the base when empty).
  Result<uint64_t, StorageError> truncate_to(Offset offset);
  // Kafka's roll rules for an append of `bytes` whose last offset is `last_offset`.
  bool should_roll(uint64_t bytes, Offset last_offset, int64_t max_timestamp, int64_t now_ms,
                   const LogConfig& config) const;

  // The first batch whose last offset >= target, scanning from the index's hint.
  Result<std::optional<BatchLocation>, StorageError> find_batch(Offset target) const;
  // Whole batches from the one holding `start`, up to `max_bytes` (at least one batch if
  // `min_one_batch`, however large: KIP-74), ending before `max_position`. Reads the
  // headers of the first batch and of those after the last indexed batch that fits; the
  // ones between are taken as the file holds them (as Kafka's reads take the whole range).
  Result<std::optional<FileRegion>, StorageError> read(Offset start, uint64_t max_bytes,
                                                       bool min_one_batch,
                                                       uint64_t max_position) const;
  // The first offset >= start_offset whose record timestamp >= ts, with that timestamp.
  Result<std::optional<std::pair<Offset, int64_t>>, StorageError> find_by_timestamp(
      int64_t ts, Offset start_offset) const;

  // Validates every batch from the start, rebuilds the offset and time indexes, empties
  // the txn index and truncates the file after the last valid batch. `visit`, if set,
  // sees each entry that validated (so the log rebuilds its producer state and the txn
  // index in the same pass).
  Result<RecoveryStats, StorageError> recover(const LogConfig& config,
                                              const EntryVisitor& visit = {});
  // Visits the entries from the one holding `from` to the end, as the file holds them
  // (framing only: for segments whose data is trusted). Stops quietly at an entry that
  // cannot be whole.
  Result<void, StorageError> scan(Offset from, uint64_t max_entry_bytes,
                                  const EntryVisitor& visit) const;
  Result<void, StorageError> sanity_check() const;
  // True when an index file was missing at open: only recovery can rebuild it.
  bool needs_recovery() const { return needs_recovery_; }
  // Called when a newer segment takes over: final time-index entry, indexes trimmed.
  Result<void, StorageError> on_become_inactive();
  // fdatasync of the log and the txn index, msync of the other indexes.
  Result<void, StorageError> flush();
  // Renames every file to its segment name with `suffix` appended (".deleted" before an
  // async delete; ".swap" then "" when cleaned output replaces segments).
  Result<void, StorageError> rename_all(const std::string& suffix);
  // Unlinks every file (after rename_all, the renamed ones).
  void remove_files();

 private:
  Segment(std::string dir, Offset base, std::shared_ptr<File> log, OffsetIndex offsets,
          TimeIndex times, uint64_t size, int64_t created_ms);
  Result<void, StorageError> load_tail_state();
  Result<void, StorageError> make_indexes_writable(const LogConfig& config);
  void index_batch(const BatchInfo& info, uint64_t position, const LogConfig* config);
  // The start of the last batch that the offset index places in (begin, reach], checked
  // against the file; `begin` when there is none. Requires begin to start a batch.
  Result<uint64_t, StorageError> indexed_boundary(uint64_t begin, uint64_t reach) const;

  std::string dir_;
  std::string suffix_;  // "", or ".deleted", ".cleaned", ".swap" (create, rename_all)
  Offset base_;
  std::shared_ptr<File> log_;
  OffsetIndex offsets_;
  TimeIndex times_;
  std::unique_ptr<TxnIndex> txns_;
  uint64_t size_ = 0;
  Offset next_offset_;
  int64_t max_timestamp_ = -1;
  Offset offset_of_max_timestamp_;
  uint64_t bytes_since_index_entry_ = 0;
  int32_t index_interval_bytes_ = 4096;
  int64_t created_ms_ = 0;
  int64_t rolling_timestamp_ = -1;  // max timestamp of the first batch (segment.ms basis)
  bool needs_recovery_ = false;
  bool writable_indexes_ = true;
};

}  // namespace strata::storage

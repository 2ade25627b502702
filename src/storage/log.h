// A partition's log: its directory of segments, the offsets that matter (log start,
// log end, recovery point), appends, reads, retention and durability.
//
// Threading: every method is called on the partition's shard only, except that `sync`
// callbacks run on the SyncService thread (they touch only an atomic here).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "common/shard.h"
#include "common/types.h"
#include "storage/checkpoint.h"
#include "storage/errors.h"
#include "storage/log_cleaner.h"
#include "storage/log_config.h"
#include "storage/producer_snapshot.h"
#include "storage/producer_state.h"
#include "storage/segment.h"
#include "storage/sync_service.h"
#include "storage/txn_index.h"

namespace strata::storage {

// Runs blocking file work (unlinks, fsynced writes) away from the caller's thread: the
// broker hands it to its blocking-work pool. Empty: the work runs in the caller.
using Offload = std::function<void(std::function<void()>)>;

inline void run_offloaded(const Offload& offload, std::function<void()> work) {
  if (offload) {
    offload(std::move(work));
  } else {
    work();
  }
}

struct LogOptions {
  LogConfig config;
  Offset recovery_point{0};    // from recovery-point-offset-checkpoint
  Offset log_start_offset{0};  // from log-start-offset-checkpoint
  std::optional<Offset> high_watermark;  // from replication-offset-checkpoint
  bool clean_shutdown = false; // the log dir had its clean-shutdown marker
  int64_t now_ms = 0;
  SyncService* sync = nullptr; // required for sync(); may be null for read-only use
  Offload offload;             // unlinks of deleted segments and snapshots
};

struct AppendResult {
  Offset first_offset;
  Offset last_offset;
  int64_t max_timestamp = -1;
  int64_t log_append_time = -1;  // set when message.timestamp.type=LogAppendTime
  size_t batches = 0;
  // True when the append was an idempotent producer's retry of a batch already in the
  // log (same producer id, epoch, first and last sequence as one of its last five):
  // nothing was written, `batches` is 0, and the offsets and max_timestamp are the
  // original batch's (log_append_time too, under LogAppendTime). The caller answers
  // success, as Kafka does.
  bool duplicate = false;
};

// An end-transaction marker for append_marker, as the transaction coordinator sends it
// (WriteTxnMarkers).
struct TxnMarker {
  ProducerId producer_id;
  ProducerEpoch epoch;
  int32_t coordinator_epoch = 0;
  bool commit = true;  // false: ABORT
};

struct LogRecoveryReport {
  size_t segments_recovered = 0;
  uint64_t bytes_truncated = 0;
  size_t segments_deleted = 0;  // whole segments after a truncated one
  std::vector<std::string> notes;  // one line per truncation, with byte counts
};

class Log {
 public:
  // Opens the log in `dir` (created if missing), recovering what must be recovered.
  static Result<std::unique_ptr<Log>, StorageError> open(const std::string& dir,
                                                         const LogOptions& options);
  ~Log();

  // Appends v2 batches that passed validate_batch, back to back in `batches`: each
  // batch's baseOffset and partitionLeaderEpoch are stamped in place (the CRC is
  // untouched unless LogAppendTime rewrites the timestamp), then all are written with
  // one write. A batch over max.message.bytes fails the whole append before any write.
  // Batches with a producer id (>= 0) are checked first by Kafka's idempotence rules:
  // a refused one fails the whole append (kOutOfOrderSequence, kInvalidProducerEpoch,
  // kInvalidTxnState) and a retried one makes it a duplicate (AppendResult::duplicate),
  // nothing written. A transactional batch opens its producer's transaction. Control
  // batches are refused (kInvalidRecord): only append_marker writes them. A
  // coordinator's own batches (kCoordinator) skip the duplicate and sequence checks.
  Result<AppendResult, StorageError> append(MutableBytes batches, LeaderEpoch epoch,
                                            int64_t now_ms,
                                            AppendOrigin origin = AppendOrigin::kClient);
  // Writes an end-transaction marker at the log end: a v2 control batch (control and
  // transactional bits, the producer's id and epoch, one COMMIT/ABORT record, version 0,
  // with the coordinator epoch). Refused, nothing written, for an older producer epoch
  // (kInvalidProducerEpoch) or an older coordinator epoch than the producer's last
  // marker (kTransactionCoordinatorFenced). It ends the producer's open transaction, if
  // any; an ABORT of one adds an entry to the active segment's .txnindex. Durability as
  // append: the caller calls sync() when it must wait for the disk.
  Result<AppendResult, StorageError> append_marker(const TxnMarker& marker, LeaderEpoch epoch,
                                                   int64_t now_ms);
  // ---- A follower's log (replication; log_replica.cc).
  // Appends the leader's batches as they are: offsets, partitionLeaderEpoch and CRC
  // untouched, each batch's CRC checked first (a corrupt batch fails the whole append,
  // kInvalidBatch, nothing written). Offsets must start at or past the log end and grow
  // (gaps allowed: a compacted leader's batches). Producer state, transactions and the
  // txn index follow the batches without Kafka's client checks (its REPLICATION origin);
  // a batch of a newer leader epoch adds an epoch-cache entry. Durability as append.
  Result<AppendResult, StorageError> append_replicated(MutableBytes batches, int64_t now_ms);
  // Kafka's truncateTo: removes every batch whose last offset >= `offset` (a batch
  // holding `offset` goes whole), the segments past it, their index entries, epoch-cache
  // entries from the new end on and producer snapshots above it; the producer state is
  // rebuilt for the new end. Returns the new log end (<= offset). kOffsetOutOfRange
  // below the log start.
  Result<Offset, StorageError> truncate_to(Offset offset, int64_t now_ms);
  // Kafka's truncateFullyAndStartAt, for a follower whose log end is below its leader's
  // log start (retention or DeleteRecords removed what it would fetch next): every
  // segment goes (renamed, unlinked later, as retention's), with the producer snapshots,
  // the epoch cache and the producer state; the log restarts empty at `offset`, its log
  // start, log end and high watermark. What the follower appends next starts there.
  Result<void, StorageError> truncate_fully_and_start_at(Offset offset, int64_t now_ms);
  // Asks the SyncService to make everything appended so far durable; `done` runs on
  // the sync thread. Concurrent requests share fdatasyncs (group commit).
  void sync(SyncService::Done done);
  // Synchronous fdatasync of every segment with unflushed data.
  Result<void, StorageError> flush();
  // Kafka's flush.ms policy: requests a sync when data has waited that long. Also
  // unlinks deleted files when due and expires idle producers (every
  // producer.id.expiration.check.interval.ms).
  void tick(int64_t now_ms);

  // Whole batches from the one holding `start` (KIP-74: at least one if min_one_batch),
  // none past `max_offset` (exclusive, e.g. the high watermark).
  // kOffsetOutOfRange if start is below the log start or above the log end.
  Result<std::optional<FileRegion>, StorageError> read(Offset start, uint64_t max_bytes,
                                                       bool min_one_batch,
                                                       std::optional<Offset> max_offset) const;
  // The first offset >= log start whose timestamp >= ts (ListOffsets by time).
  Result<std::optional<std::pair<Offset, int64_t>>, StorageError> offset_for_timestamp(
      int64_t ts) const;
  // The offset (a batch's last offset) and value of the largest timestamp; nullopt if empty.
  std::optional<std::pair<Offset, int64_t>> max_timestamp_offset() const;
  // Kafka's firstUnstableOffset: the first offset of the earliest open transaction;
  // nullopt if none is open. The last stable offset is the smaller of it and the high
  // watermark. (Kafka also holds it at a transaction whose marker is above the high
  // watermark: a marker not yet replicated; the caller takes the minimum, which is the
  // same bound.)
  std::optional<Offset> first_unstable_offset() const {
    check_owner();
    return producers_.first_unstable_offset();
  }
  // Kafka's collectAbortedTransactions, for a read_committed fetch of [start, upper):
  // the aborted transactions with last_offset >= start and first_offset < upper, from
  // the txn indexes of the segment holding `start` and the later ones, until an entry's
  // last stable offset reaches `upper`. In offset order of their markers.
  std::vector<AbortedTxn> aborted_transactions(Offset start, Offset upper) const;

  // Deletes segments past retention.ms / retention.bytes / below the log start offset;
  // returns how many. Files are renamed to *.deleted now and unlinked by tick() after
  // file.delete.delay.ms.
  Result<size_t, StorageError> apply_retention(int64_t now_ms);
  // DeleteRecords: moves the log start offset forward (never past the log end).
  Result<void, StorageError> advance_log_start_offset(Offset offset, int64_t now_ms);
  // Flushes, adds the final time-index entries, trims the indexes, writes a producer
  // snapshot at the log end. No appends after.
  Result<void, StorageError> close();

  Offset log_start_offset() const { check_owner(); return log_start_; }
  Offset log_end_offset() const { check_owner(); return next_offset_; }
  // Kafka's high watermark: what consumers may read. With one replica (the single node,
  // replication factor 1) it is the log end. A replicated partition's log tracks it
  // (track_high_watermark): the leader raises it as the ISR's fetches show their log
  // ends, a follower takes the leader's; it never passes the log end and never moves
  // back except with a truncation below it.
  Offset high_watermark() const { check_owner(); return tracked_hw_ ? std::min(*tracked_hw_, next_offset_) : next_offset_; }
  bool tracks_high_watermark() const { check_owner(); return tracked_hw_.has_value(); }
  // Starts tracking, at the high watermark replication-offset-checkpoint recorded for
  // this log (LogOptions::high_watermark), else the log end; clamped to [log start, log
  // end]. No-op when tracking.
  void track_high_watermark();
  // Raises the tracked high watermark to `hw` (clamped to the log end); true if it moved.
  bool raise_high_watermark(Offset hw);
  // Back to the log end as the high watermark (the partition has one replica again).
  void untrack_high_watermark() { check_owner(); tracked_hw_.reset(); }
  // Everything below it is durable (fdatasync'ed).
  // What a crash keeps without recovery: the data made durable, but never past an added
  // leader epoch whose checkpoint is not yet durable (recovery rebuilds it from the batches).
  Offset recovery_point() const {
    return Offset(std::min(durable_->offset.load(std::memory_order_acquire),
                           epoch_file_->pending_from.load(std::memory_order_acquire)));
  }
  uint64_t size_bytes() const;
  size_t segment_count() const { check_owner(); return segments_.size(); }
  std::vector<Offset> segment_bases() const;
  const LogRecoveryReport& recovery_report() const { return report_; }
  const std::string& dir() const { return dir_; }
  // The leader epoch cache (leader-epoch-checkpoint): the first offset of each epoch.
  const std::vector<EpochEntry>& epochs() const { check_owner(); return epochs_; }
  const LogConfig& config() const { check_owner(); return config_; }
  // The idempotent producers' state (Kafka's ProducerStateManager).
  const ProducerState& producers() const { check_owner(); return producers_; }
  // Offsets of the producer snapshot files present (`<offset>.snapshot`), ascending.
  std::vector<Offset> snapshot_offsets() const;
  // ---- Compaction (log_clean.cc; the protocol is in log_cleaner.h). Shard only.
  // Kafka's cleanable range and dirty ratio, from the cleaner checkpoint (nullopt: none).
  CleanableStats cleanable(std::optional<Offset> checkpoint, int64_t now_ms) const;
  // The cleaner thread's task: nullopt when the log is not compacted or nothing dirty is
  // cleanable (the active segment, the last stable offset, min.compaction.lag.ms).
  // kClosed after close().
  Result<std::optional<CleanTask>, StorageError> prepare_clean(std::optional<Offset> checkpoint,
                                                               int64_t now_ms) const;
  // Swaps run_clean's output in, group by group (Kafka's replaceSegments); a group one of
  // whose segments left the log meanwhile (retention, DeleteRecords) is discarded, as is
  // everything after close() (kClosed). The replaced files are unlinked after
  // file.delete.delay.ms, as retention's.
  Result<CleanOutcome, StorageError> finish_clean(CleanResult&& result, int64_t now_ms);

  // Replaces the settings (AlterConfigs). Each takes effect at its next use (appends,
  // rolls, flushes, retention); existing segments keep the index sizes they were made with.
  void set_config(const LogConfig& config);

  // Ownership: once bound, every method runs on shard `owner` only (common/shard.h);
  // a call from another shard or a worker thread is a bug and aborts, in every build.
  // LogManager binds a log to the shard that creates it; logs opened at start-up are
  // bound by the broker before its shards run.
  void bind_owner(int owner) { owner_ = owner; }
  int owner() const { return owner_; }

 private:
  void check_owner() const { STRATA_ASSERT(on_shard(owner_)); }
  Log(std::string dir, const LogOptions& options);
  Result<void, StorageError> load(const LogOptions& options);
  // Kafka's LogLoader for interrupted cleanings: `.cleaned` files deleted, `.swap`
  // segments completed (the segments in their offset range deleted, then renamed).
  // `names` is the directory's listing; true if this changed the directory.
  Result<bool, StorageError> complete_swaps(const std::vector<std::string>& names);
  bool still_holds(const CleanedGroup& group) const;
  Result<void, StorageError> swap_in(CleanedGroup& group, int64_t now_ms, CleanOutcome& out);
  Result<void, StorageError> recover_from(size_t first_index);
  Result<void, StorageError> roll(int64_t now_ms);
  // The write shared by append and append_replicated: rolls first if Kafka's rules say
  // so, writes `batches` (whose facts are `infos`) to the active segment, and moves the
  // log end to `next`.
  Result<void, StorageError> write_batches(Bytes batches, std::span<const BatchInfo> infos, Offset next,
                                           int64_t max_timestamp, int64_t now_ms);
  Segment& active() { return *segments_.rbegin()->second; }
  const Segment* segment_for(Offset offset) const;
  Result<void, StorageError> delete_segment(Offset base, int64_t now_ms);
  void unlink_due(int64_t now_ms);
  Result<void, StorageError> load_epochs();
  // Writes leader-epoch-checkpoint offloaded; `added`: the start offset of an entry this
  // change added (the recovery point stays at or below it until the write is durable).
  Result<void, StorageError> save_epochs(std::optional<Offset> added = std::nullopt);
  // Recovery's part of the epoch cache: epochs of the recovered batches (Kafka's
  // LogSegment.recover assigns them too), merged in after the checkpoint is loaded.
  void note_recovered_epoch(Bytes entry);
  Result<void, StorageError> flush_epochs();
  Result<void, StorageError> merge_recovered_epochs();
  // Drops epoch entries at or past the log end and before the log start.
  Result<void, StorageError> trim_epochs();

  // Producer state (log_producers.cc).
  Result<void, StorageError> check_writable() const;
  // After a write: the files to sync and flush.messages.
  void note_written(const std::shared_ptr<File>& txn_file = nullptr);
  Result<AppendResult, StorageError> producer_outcome(const ProducerCheck& check,
                                                     const IdempotentBatch& batch) const;
  Result<void, StorageError> take_producer_snapshot(SnapshotSync sync);
  Result<void, StorageError> begin_producer_load(const LogOptions& options,
                                                 std::optional<Offset> recovery_base);
  Result<void, StorageError> finish_producer_load(const LogOptions& options);
  Offset load_newest_snapshot(Offset limit, int64_t now_ms);
  Result<void, StorageError> replay_segments(Offset from, Offset until);
  // Replays one entry into the producer state; with `aborted`, the entries of the txn
  // index being rebuilt (recovery) are added to it.
  void replay_entry(Bytes entry, std::vector<AbortedTxn>* aborted = nullptr);
  EntryVisitor replay_visitor(std::vector<AbortedTxn>* aborted);
  // The txn index entry for an ABORT that ended an open transaction (Kafka's
  // updateTxnIndex with lastStableOffset(completedTxn)).
  AbortedTxn aborted_entry(const CompletedTxn& txn) const;
  void remove_stray_snapshots();
  void unlink_snapshot(int64_t offset);
  Result<void, StorageError> delete_snapshot_later(Offset offset, int64_t now_ms);
  Result<void, StorageError> flush_snapshots();
  std::string snapshot_path(Offset offset) const;

  std::string dir_;
  LogConfig config_;
  SyncService* sync_;
  std::map<int64_t, std::unique_ptr<Segment>> segments_;  // by base offset
  Offset log_start_{0};
  Offset next_offset_{0};
  std::optional<Offset> tracked_hw_;  // nullopt: the log end is the high watermark
  std::optional<Offset> checkpointed_hw_;  // where tracking starts (LogOptions)
  // The offset below which everything is durable, shared with sync callbacks (which may
  // run after the Log is gone). A truncation lowers it and starts a new generation, so
  // that a sync requested before it cannot later mark the offsets appended after it as
  // durable; the offset is read without the lock.
  struct Durability {
    std::mutex mu;
    uint64_t generation = 0;  // guarded by mu
    std::atomic<int64_t> offset{0};  // written under mu
    void set(int64_t v) {
      std::lock_guard lock(mu);
      offset.store(v, std::memory_order_release);
    }
  };
  std::shared_ptr<Durability> durable_ = std::make_shared<Durability>();
  std::shared_ptr<std::atomic<bool>> sync_failed_ = std::make_shared<std::atomic<bool>>(false);
  int64_t last_sync_request_ms_ = 0;
  Offset sync_requested_{0};
  // Files written since their last sync, with the offset their data ends at (for a
  // producer snapshot written at a roll: its own offset; it rides with the next sync,
  // and flush() syncs it too).
  struct Dirty {
    std::shared_ptr<File> file;
    Offset end;
    bool snapshot = false;
  };
  std::vector<Dirty> dirty_;
  std::vector<std::pair<std::unique_ptr<Segment>, int64_t>> pending_deletes_;  // due time
  LogRecoveryReport report_;
  std::vector<EpochEntry> epochs_;
  // append()'s per-batch facts for the segment, kept between calls so that an append
  // does not allocate (a 1 MiB append of 1 KiB batches has ~1,100); dropped after an
  // append of more batches than this, so an idle log holds at most 96 KiB of them.
  static constexpr size_t kAppendInfosKeptMax = 4096;
  std::vector<BatchInfo> append_infos_;
  ProducerState producers_;
  ProducerAppend producer_append_;  // one append's producer updates, reused
  std::set<int64_t> snapshots_;     // offsets of the .snapshot files
  std::vector<std::pair<std::string, int64_t>> pending_snapshot_deletes_;  // path, due time
  int64_t last_producer_expiry_ms_ = 0;
  // While loading: producers_ reflects every batch below this offset (Kafka's mapEndOffset).
  Offset producers_end_{0};
  bool replaying_producers_ = false;
  bool closed_ = false;
  int owner_ = kNoShard;
  Offload offload_;
  // leader-epoch-checkpoint is written on the offload pool: a shard would otherwise
  // create and fsync a file for every new partition's first append and for every
  // partition of a leadership change. Shared with the writes, which may outlive the Log.
  struct EpochFile {
    std::mutex write_mu;  // one write at a time (they share the .tmp name)
    std::mutex state_mu;  // the fields below
    uint64_t latest = 0;   // the newest version handed to a write
    uint64_t written = 0;  // the newest version durably written
    // Start offset of the oldest added entry not yet durably written (INT64_MAX: none).
    std::atomic<int64_t> pending_from{INT64_MAX};
  };
  std::shared_ptr<EpochFile> epoch_file_ = std::make_shared<EpochFile>();
  std::vector<EpochEntry> recovered_epochs_;
};

}  // namespace strata::storage

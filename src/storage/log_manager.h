// The partition logs of one log directory, and the directory-level files Kafka keeps:
// meta.properties, recovery-point-offset-checkpoint, log-start-offset-checkpoint,
// replication-offset-checkpoint, cleaner-offset-checkpoint (with the cleaner's
// per-partition state), and the clean-shutdown marker.
//
// Threading: the partition map is guarded by a mutex; each Log is bound to the shard that
// owns its partition and used only there (Log::bind_owner asserts it). get, create and
// remove are called on the partition's owner shard (or before the shards run).
// Every partition directory records its topic id (partition.metadata): a log is looked
// up by partition *and* id, so a request that named a deleted topic never reaches the
// new topic of the same name.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/types.h"
#include "storage/checkpoint.h"
#include "storage/errors.h"
#include "storage/log.h"
#include "storage/log_cleaner.h"
#include "storage/sync_service.h"

namespace strata::storage {

// The cleaner's bookkeeping of one partition (Kafka's LogCleanerManager), for the
// broker to act on and to show.
struct CleanerPartitionState {
  std::optional<Offset> first_dirty;  // cleaner-offset-checkpoint; nullopt: never cleaned
  CleanableStats cleanable;           // as of the last refresh_cleanable (dirty ratio etc.)
  bool in_progress = false;           // between grab_filthiest and done/abort_cleaning
  int64_t last_clean_ms = -1;         // when the last cleaning finished
  uint64_t cleanings = 0;
  uint64_t bytes_cleaned = 0;         // read by cleanings, all of them
  uint64_t bytes_written = 0;         // written by them
  CleanOutcome last;                  // the last cleaning's outcome
};

struct LogManagerOptions {
  std::string log_dir;
  NodeId node_id{1};
  int64_t now_ms = 0;
  SyncService* sync = nullptr;
  // The settings of a topic's partitions (topic configs over the broker's defaults).
  std::function<LogConfig(const std::string& topic)> config_for;
  // The cluster's id when the broker is one of a cluster (taken from etcd): an
  // unformatted directory is formatted with it, and a directory formatted for another
  // cluster is refused. Unset (the single node): a new directory gets a random id.
  std::optional<std::string> cluster_id;
  // Blocking work of deletions, handed on so that no shard waits for it: directory
  // removal, segment and snapshot unlinks, cleaner-offset-checkpoint rewrites. The broker
  // posts it to its blocking-work pool; empty: it runs in the caller.
  Offload offload;
};

// The offsets a checkpoint records for one partition.
struct CheckpointFigures {
  Offset recovery_point;
  Offset log_start;
  Offset high_watermark;
};
using CheckpointMap = std::map<TopicPartition, CheckpointFigures>;

class LogManager {
 public:
  // Formats the directory on first use (meta.properties with a new cluster id), notes
  // and removes the clean-shutdown marker, reads the checkpoints and opens every
  // "<topic>-<partition>" directory, recovering what needs it.
  static Result<std::unique_ptr<LogManager>, StorageError> open(const LogManagerOptions& options);
  ~LogManager();

  const std::string& cluster_id() const { return cluster_id_; }
  // meta.properties' directory.id (Kafka's Uuid, base64url): this directory's identity,
  // which tells a broker's earlier incarnation from another broker. Given to directories
  // formatted before it was written.
  const std::string& directory_id() const { return directory_id_; }
  bool was_clean_shutdown() const { return clean_; }

  // The partition's log; with a non-zero `topic_id`, only if the log belongs to that id.
  Log* get(const TopicPartition& tp) const;
  Log* get(const TopicPartition& tp, const Uuid& topic_id) const;
  // Creates the log of a new partition of topic `topic_id`, bound to the calling shard
  // (returns it if it exists with that id). A log of the same partition with another id
  // belongs to a deleted topic: it is removed first. Blocking (open_new).
  Result<Log*, StorageError> create(const TopicPartition& tp, const LogConfig& config,
                                    int64_t now_ms, const Uuid& topic_id = {});
  // create() in two steps, so that the files are made off the event loops:
  // open_new makes a new partition's directory, segment and index files and its
  // partition.metadata (fsynced) and binds the log to shard `owner`; blocking, any
  // thread. It fails if the partition has a log: the caller (the broker's admin lock)
  // makes sure no two creations or a creation and a removal of one partition overlap.
  // install then makes the log reachable through get(); any thread.
  Result<std::unique_ptr<Log>, StorageError> open_new(const TopicPartition& tp,
                                                      const LogConfig& config, int64_t now_ms,
                                                      const Uuid& topic_id, int owner);
  Log* install(const TopicPartition& tp, std::unique_ptr<Log> log, const Uuid& topic_id);
  // Deletes a partition's log if it belongs to `topic_id` (zero: whatever it belongs
  // to): it is closed and its directory renamed to *-delete, then removed offloaded.
  // On the log's owner shard (no request may be using it).
  Result<void, StorageError> remove(const TopicPartition& tp, const Uuid& topic_id = {});
  std::vector<TopicPartition> partitions() const;

  // At start-up, before serving: `expected(tp)` is the topic id the partition should
  // belong to (nullopt: no such partition). Directories of other ids or of partitions
  // that do not exist are strays (docs/formats/partition-metadata.md): renamed to
  // *-stray and dropped. Directories without an id are adopted. Then each log is bound
  // to `owner(tp)`.
  Result<void, StorageError> reconcile(
      const std::function<std::optional<Uuid>(const TopicPartition&)>& expected,
      const std::function<int(const TopicPartition&)>& owner);

  // The figures of every log (each read where its owner allows: at start-up/shutdown, or
  // on the owner shard through `figures_of`).
  static CheckpointFigures figures_of(const Log& log);
  // Writes the recovery-point, log-start and replication offset checkpoints of every
  // partition in `figures` (blocking: fsyncs; not on a shard's event loop).
  Result<void, StorageError> write_checkpoints(const CheckpointMap& figures);
  // Both, for start-up and shutdown (no shard running).
  Result<void, StorageError> checkpoint();
  // Closes every log, writes the checkpoints and the clean-shutdown marker.
  Result<void, StorageError> shutdown();

  // ---- Compaction bookkeeping (log_manager_cleaner.cc; the protocol is in
  // log_cleaner.h). Any thread, except refresh_cleanable (the log's shard).
  // The first dirty offset to give Log::prepare_clean (nullopt: never cleaned).
  std::optional<Offset> cleaner_checkpoint(const TopicPartition& tp) const;
  // Recomputes the partition's cleanable figures (Log::cleanable), which grab_filthiest
  // and cleaner_state use. Call it on the log's shard, e.g. from the maintenance loop.
  void refresh_cleanable(const TopicPartition& tp, const Log& log, int64_t now_ms);
  // Kafka's grabFilthiestCompactedLog over the last refreshed figures: of the partitions
  // that should be cleaned and are not being cleaned, the one with the highest dirty
  // ratio, now marked in progress. nullopt when none.
  std::optional<TopicPartition> grab_filthiest();
  // After Log::finish_clean: notes the outcome and writes cleaner-offset-checkpoint with
  // its first dirty offset. Ends the partition's cleaning.
  Result<void, StorageError> done_cleaning(const TopicPartition& tp, const CleanOutcome& outcome,
                                           int64_t now_ms);
  // Ends a cleaning that failed or was dropped; the checkpoint stays.
  void abort_cleaning(const TopicPartition& tp);
  std::optional<CleanerPartitionState> cleaner_state(const TopicPartition& tp) const;

 private:
  explicit LogManager(LogManagerOptions options) : options_(std::move(options)) {}
  Result<void, StorageError> load();
  Result<void, StorageError> load_meta_properties();
  Result<void, StorageError> lock_dir();
  Result<void, StorageError> load_cleaner_checkpoint();
  // Writes cleaner-offset-checkpoint from cleaner_ (requires cleaner_mu_).
  Result<void, StorageError> write_cleaner_checkpoint_locked();

  LogManagerOptions options_;
  std::string cluster_id_;
  std::string directory_id_;
  int lock_fd_ = -1;  // <log.dir>/.lock, flocked while this manager lives
  bool clean_ = false;
  mutable std::shared_mutex mu_;
  struct Slot {
    std::unique_ptr<Log> log;
    Uuid topic_id;  // zero until reconciled, for a directory without partition.metadata
  };
  std::map<TopicPartition, Slot> logs_;
  // Deletes a log detached from its slot (mu_ not held).
  Result<void, StorageError> discard(const TopicPartition& tp, std::unique_ptr<Log> log);
  Uuid slot_id(const TopicPartition& tp) const;
  // Writes cleaner-offset-checkpoint from cleaner_, offloaded (cleaner_mu_ not held).
  void rewrite_cleaner_checkpoint();
  std::mutex checkpoint_mu_;
  mutable std::mutex cleaner_mu_;  // guards cleaner_ and the cleaner checkpoint's writes
  std::map<TopicPartition, CleanerPartitionState> cleaner_;
};

// "<topic>-<partition>" for a directory name, and back.
std::string partition_dir_name(const TopicPartition& tp);
std::optional<TopicPartition> parse_partition_dir_name(const std::string& name);

}  // namespace strata::storage

// The partition logs of one log directory, and the directory-level files Kafka keeps:
// meta.properties, recovery-point-offset-checkpoint, log-start-offset-checkpoint,
// replication-offset-checkpoint, cleaner-offset-checkpoint (with the cleaner's
// per-partition state), and the clean-shutdown marker.
//
// Threading: the partition map is guarded by a mutex (any shard may look a log up);
// each Log is then used only by the shard that owns its partition.
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
};

class LogManager {
 public:
  // Formats the directory on first use (meta.properties with a new cluster id), notes
  // and removes the clean-shutdown marker, reads the checkpoints and opens every
  // "<topic>-<partition>" directory, recovering what needs it.
  static Result<std::unique_ptr<LogManager>, StorageError> open(const LogManagerOptions& options);
  ~LogManager();

  const std::string& cluster_id() const { return cluster_id_; }
  bool was_clean_shutdown() const { return clean_; }

  Log* get(const TopicPartition& tp) const;
  // Creates (or returns) the log of a new partition.
  Result<Log*, StorageError> create(const TopicPartition& tp, const LogConfig& config,
                                    int64_t now_ms);
  // Deletes a partition's log and its directory (Kafka renames it to *-delete first).
  Result<void, StorageError> remove(const TopicPartition& tp);
  std::vector<TopicPartition> partitions() const;

  // Writes the recovery-point, log-start and replication offset checkpoints.
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
  Result<void, StorageError> load_cleaner_checkpoint();
  // Writes cleaner-offset-checkpoint from cleaner_ (requires cleaner_mu_).
  Result<void, StorageError> write_cleaner_checkpoint_locked();

  LogManagerOptions options_;
  std::string cluster_id_;
  bool clean_ = false;
  mutable std::shared_mutex mu_;
  std::map<TopicPartition, std::unique_ptr<Log>> logs_;
  std::mutex checkpoint_mu_;
  mutable std::mutex cleaner_mu_;  // guards cleaner_ and the cleaner checkpoint's writes
  std::map<TopicPartition, CleanerPartitionState> cleaner_;
};

// "<topic>-<partition>" for a directory name, and back.
std::string partition_dir_name(const TopicPartition& tp);
std::optional<TopicPartition> parse_partition_dir_name(const std::string& name);

}  // namespace strata::storage

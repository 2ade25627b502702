// The partition logs of one log directory, and the directory-level files Kafka keeps:
// meta.properties, recovery-point-offset-checkpoint, log-start-offset-checkpoint,
// replication-offset-checkpoint, and the clean-shutdown marker.
//
// Threading: the partition map is guarded by a mutex (any shard may look a log up);
// each Log is then used only by the shard that owns its partition.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/result.h"
#include "storage/checkpoint.h"
#include "storage/errors.h"
#include "storage/log.h"
#include "storage/sync_service.h"

namespace strata::storage {

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

 private:
  explicit LogManager(LogManagerOptions options) : options_(std::move(options)) {}
  Result<void, StorageError> load();

  LogManagerOptions options_;
  std::string cluster_id_;
  bool clean_ = false;
  mutable std::shared_mutex mu_;
  std::map<TopicPartition, std::unique_ptr<Log>> logs_;
  std::mutex checkpoint_mu_;
};

// "<topic>-<partition>" for a directory name, and back.
std::string partition_dir_name(const TopicPartition& tp);
std::optional<TopicPartition> parse_partition_dir_name(const std::string& name);

}  // namespace strata::storage

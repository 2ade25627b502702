// The small text files Kafka keeps beside its segments, byte-compatible with Kafka 3.x/4.x
// (grammar: docs/formats/segments.md, "Log-directory files"):
//
//   <log.dir>/recovery-point-offset-checkpoint     offsets checkpoint, see below
//   <log.dir>/log-start-offset-checkpoint          offsets checkpoint
//   <log.dir>/replication-offset-checkpoint        offsets checkpoint (high watermarks)
//   <log.dir>/cleaner-offset-checkpoint            offsets checkpoint (compaction progress)
//   <log.dir>/meta.properties                      Java properties: cluster and node identity
//   <log.dir>/.kafka_cleanshutdown                 clean shutdown marker (JSON)
//   <log.dir>/<topic>-<partition>/leader-epoch-checkpoint
//
// Every writer goes through atomic_write_file: "<file>.tmp" is written and fsynced, renamed
// over the file, and the directory is fsynced, so a reader sees the old or the new file,
// never a mix. Readers are strict: anything Kafka's writer could not have produced is
// kCorruptCheckpoint with the file and line; a missing checkpoint reads as empty, as in Kafka.
// Every read is bounded by a named file size, and no count field is trusted for allocation.
//
// Threading: plain functions without shared state; callers serialize writes to one file.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/types.h"
#include "storage/errors.h"

namespace strata::storage {

// File names (Kafka's LogManager, ReplicaManager, LogCleanerManager, LeaderEpochCheckpointFile,
// MetaPropertiesEnsemble, CleanShutdownFileHandler).
inline constexpr const char* kRecoveryPointCheckpointFile = "recovery-point-offset-checkpoint";
inline constexpr const char* kLogStartOffsetCheckpointFile = "log-start-offset-checkpoint";
inline constexpr const char* kReplicationOffsetCheckpointFile = "replication-offset-checkpoint";
inline constexpr const char* kCleanerOffsetCheckpointFile = "cleaner-offset-checkpoint";
inline constexpr const char* kLeaderEpochCheckpointFile = "leader-epoch-checkpoint";
inline constexpr const char* kMetaPropertiesFile = "meta.properties";
inline constexpr const char* kCleanShutdownFile = ".kafka_cleanshutdown";
inline constexpr const char* kTempFileSuffix = ".tmp";

// Line 1 of every offsets and leader-epoch checkpoint.
inline constexpr int32_t kCheckpointVersion = 0;
// Read bounds. A valid offsets line is at most 281 bytes (249-byte topic, int32, int64,
// separators), so 128 MiB holds ~450k partitions of worst-case names.
inline constexpr size_t kCheckpointFileBytesMax = size_t{128} << 20;
inline constexpr size_t kMetaPropertiesBytesMax = size_t{1} << 20;
inline constexpr size_t kCleanShutdownFileBytesMax = size_t{64} << 10;
// Kafka's topic name rule: 1..249 of [a-zA-Z0-9._-], and not "." or "..".
inline constexpr size_t kTopicNameBytesMax = 249;

bool valid_topic_name(std::string_view topic);

struct TopicPartition {
  std::string topic;
  PartitionId partition;
  auto operator<=>(const TopicPartition&) const = default;
};

// Writes `contents` to `path` durably and atomically: <path>.tmp, fsync, rename, fsync of the
// parent directory. On failure the .tmp file is removed (best effort) and `path` is untouched.
// A missing parent directory is kIo with sys_errno ENOENT (a partition deleted meanwhile).
Result<void, StorageError> atomic_write_file(const std::string& path, std::string_view contents);

// ---- Offsets checkpoints: "0\n<count>\n" then "<topic> <partition> <offset>\n" per entry.
// Kafka writes the entries in hash-map order; Strata writes them sorted. Offsets are >= 0.
using OffsetCheckpoint = std::map<TopicPartition, Offset>;

// Fails (kCorruptCheckpoint, nothing written) on an invalid topic name, a negative partition
// or a negative offset: the file would not read back.
Result<std::string, StorageError> encode_offset_checkpoint(const OffsetCheckpoint& entries);
// `path` only names the file in error messages. Empty text is an empty checkpoint (Kafka
// creates checkpoint files empty). Duplicate partitions are corrupt.
Result<OffsetCheckpoint, StorageError> parse_offset_checkpoint(std::string_view text,
                                                               std::string_view path);
// A missing file reads as empty.
Result<OffsetCheckpoint, StorageError> read_offset_checkpoint(const std::string& path);
Result<void, StorageError> write_offset_checkpoint(const std::string& path,
                                                   const OffsetCheckpoint& entries);

// ---- leader-epoch-checkpoint: "0\n<count>\n" then "<epoch> <startOffset>\n" per entry.
struct EpochEntry {
  LeaderEpoch epoch;
  Offset start_offset;
  bool operator==(const EpochEntry&) const = default;
};

// Writes need epochs and start offsets >= 0 and both strictly increasing (the epoch cache's
// invariant, so Kafka's writer never breaks it).
Result<std::string, StorageError> encode_leader_epoch_checkpoint(
    std::span<const EpochEntry> entries);
// Reads need epochs and start offsets >= 0 (Kafka rejects negatives on load) but accept any
// order: Kafka's cache repairs non-monotonic entries left by old brokers, so the caller must.
Result<std::vector<EpochEntry>, StorageError> parse_leader_epoch_checkpoint(std::string_view text,
                                                                            std::string_view path);
Result<std::vector<EpochEntry>, StorageError> read_leader_epoch_checkpoint(const std::string& path);
Result<void, StorageError> write_leader_epoch_checkpoint(const std::string& path,
                                                         std::span<const EpochEntry> entries);

// ---- meta.properties (Java properties). v1 (KRaft): version=1, cluster.id, node.id, and
// optionally directory.id. v0 (ZooKeeper era, also migrated clusters): version=0 or absent,
// broker.id and cluster.id both optional. Unknown keys are ignored, as Kafka does.
struct MetaProperties {
  int32_t version = 1;                      // 0 or 1
  std::optional<std::string> cluster_id;    // required in v1
  std::optional<NodeId> node_id;            // node.id (v1, required) or broker.id (v0)
  std::optional<std::string> directory_id;  // a Kafka Uuid: 22 base64url characters
  bool operator==(const MetaProperties&) const = default;
};

// Kafka's bytes: "#\n#<java.util.Date of `now`, UTC>\n" then "key=value\n" lines sorted by key
// (what Kafka's Properties.store writes on Java 18+; Java 17 writes the same lines in hash
// order). Fails on a version other than 0/1, a v1 without cluster.id or node.id, or a
// malformed directory.id.
Result<std::string, StorageError> encode_meta_properties(const MetaProperties& props,
                                                         TimestampMs now);
Result<MetaProperties, StorageError> parse_meta_properties(std::string_view text,
                                                           std::string_view path);
// nullopt when the file does not exist (an unformatted log dir).
Result<std::optional<MetaProperties>, StorageError> read_meta_properties(const std::string& path);
// Stamps the header with the system clock.
Result<void, StorageError> write_meta_properties(const std::string& path,
                                                 const MetaProperties& props);

// ---- .kafka_cleanshutdown in each log dir. Kafka >= 3.7 writes {"version":0,"brokerEpoch":N}
// (no newline); Kafka <= 3.6 wrote an empty file. Its presence alone means "clean".
struct CleanShutdownMarker {
  std::optional<int64_t> broker_epoch;  // nullopt: empty or unreadable content (still clean)
};

std::string encode_clean_shutdown_marker(int64_t broker_epoch);
// The top-level "brokerEpoch" integer of a JSON object; nullopt for anything else.
std::optional<int64_t> parse_clean_shutdown_broker_epoch(std::string_view text);
// Written at the end of a clean shutdown, after every log is flushed and checkpointed.
Result<void, StorageError> write_clean_shutdown_marker(const std::string& log_dir,
                                                       int64_t broker_epoch);
// The marker if present, without removing it (the broker epoch for registration).
Result<std::optional<CleanShutdownMarker>, StorageError> read_clean_shutdown_marker(
    const std::string& log_dir);
// At startup, before loading logs: returns the marker if it was there and deletes it
// durably (unlink + directory fsync), so a crash during loading is seen as unclean.
Result<std::optional<CleanShutdownMarker>, StorageError> consume_clean_shutdown_marker(
    const std::string& log_dir);

}  // namespace strata::storage

#include "storage/log_manager.h"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <random>

#include "storage/partition_metadata.h"

namespace strata::storage {

namespace fs = std::filesystem;

namespace {
constexpr const char* kMetaProperties = "meta.properties";
constexpr const char* kRecoveryPoints = "recovery-point-offset-checkpoint";
constexpr const char* kLogStarts = "log-start-offset-checkpoint";
constexpr const char* kReplicationOffsets = "replication-offset-checkpoint";

// A Kafka-style cluster id: 16 random bytes in URL-safe base64 without padding (22 chars).
// Also the unique part of a deleted partition's directory name, so it is cheap: one
// engine per thread, seeded once (a std::random_device per call opened the kernel's
// source each time, on the shard deleting the partition).
std::string random_cluster_id() {
  static const char* kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  thread_local std::mt19937_64 engine = [] {
    std::random_device rd;
    std::seed_seq seed{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
    return std::mt19937_64(seed);
  }();
  std::string id;
  for (int i = 0; i < 22; ++i) id += kAlphabet[engine() % 64];
  return id;
}

// A Kafka Uuid of 16 random bytes, base64url (canonical, unlike random_cluster_id's text).
std::string random_directory_id() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  Uuid id;
  for (auto& b : id.bytes) b = uint8_t(engine());
  return uuid_to_base64(id);
}

}  // namespace

std::string partition_dir_name(const TopicPartition& tp) {
  return tp.topic + "-" + std::to_string(tp.partition.value());
}

std::optional<TopicPartition> parse_partition_dir_name(const std::string& name) {
  const size_t dash = name.rfind('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == name.size()) return std::nullopt;
  int32_t p = 0;
  for (size_t i = dash + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || p > 100000000) return std::nullopt;
    p = p * 10 + (name[i] - '0');
  }
  TopicPartition tp{name.substr(0, dash), PartitionId(p)};
  if (!valid_topic_name(tp.topic)) return std::nullopt;
  return tp;
}

Result<std::unique_ptr<LogManager>, StorageError> LogManager::open(const LogManagerOptions& options) {
  std::unique_ptr<LogManager> m(new LogManager(options));
  if (auto r = m->load(); !r) return fail(r.error());
  return m;
}

LogManager::~LogManager() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

// Kafka's `.lock`: one process per log dir. Two brokers on one directory would write the
// same segments (and, in a cluster, share one directory.id and take each other's
// registration), so the second refuses to start. flock is released by the kernel when the
// process dies, so a crash leaves nothing to clean.
Result<void, StorageError> LogManager::lock_dir() {
  const std::string path = options_.log_dir + "/.lock";
  lock_fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) return fail(io_error("open " + path));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return fail(io_error("failed to acquire lock on " + path +
                         (errno == EWOULDBLOCK ? " (another process is using this log dir)" : "")));
  }
  return {};
}

// meta.properties: formats a new directory (the cluster's id, or a random one on a single
// node), refuses one of another cluster or node, and gives a directory.id to one that has
// none (as Kafka does when it first needs one).
Result<void, StorageError> LogManager::load_meta_properties() {
  const std::string path = options_.log_dir + "/" + kMetaProperties;
  auto meta = read_meta_properties(path);
  if (!meta) return fail(meta.error());
  MetaProperties props = meta->value_or(MetaProperties{});
  bool write = !props.cluster_id || !props.directory_id;
  if (props.cluster_id && options_.cluster_id && *props.cluster_id != *options_.cluster_id) {
    return fail(storage_error(StorageErrc::kCorruptCheckpoint,
                              "log dir " + options_.log_dir + " belongs to cluster " + *props.cluster_id +
                                  ", not to cluster " + *options_.cluster_id +
                                  " (etcd.connect names another cluster, or the directory is "
                                  "another cluster's); refusing to start"));
  }
  if (props.node_id && *props.node_id != options_.node_id) {
    return fail(storage_error(StorageErrc::kCorruptCheckpoint,
                              "log dir " + options_.log_dir + " belongs to node.id " +
                                  std::to_string(props.node_id->value()) + ", not to node.id " +
                                  std::to_string(options_.node_id.value()) + "; refusing to start"));
  }
  const bool fresh = !props.cluster_id;
  if (fresh) props.cluster_id = options_.cluster_id.value_or(random_cluster_id());
  if (!props.node_id && props.version == 1) props.node_id = options_.node_id;
  if (!props.directory_id) props.directory_id = random_directory_id();
  cluster_id_ = *props.cluster_id;
  directory_id_ = *props.directory_id;
  if (write) {
    if (auto w = write_meta_properties(path, props); !w) return w;
  }
  if (fresh) spdlog::info("formatted log dir {} (cluster id {})", options_.log_dir, cluster_id_);
  return {};
}

Result<void, StorageError> LogManager::load() {
  const std::string& dir = options_.log_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(storage_error(StorageErrc::kIo, "mkdir " + dir + ": " + ec.message()));
  if (auto r = lock_dir(); !r) return r;
  if (auto r = load_meta_properties(); !r) return r;
  auto marker = consume_clean_shutdown_marker(dir);
  if (!marker) return fail(marker.error());
  clean_ = marker->has_value();
  auto recovery = read_offset_checkpoint(dir + "/" + kRecoveryPoints);
  if (!recovery) return fail(recovery.error());
  auto starts = read_offset_checkpoint(dir + "/" + kLogStarts);
  if (!starts) return fail(starts.error());
  auto highs = read_offset_checkpoint(dir + "/" + kReplicationOffsets);
  if (!highs) return fail(highs.error());
  if (auto c = load_cleaner_checkpoint(); !c) return c;

  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    if (name.ends_with("-delete")) {  // a deletion interrupted by a crash
      fs::remove_all(entry.path(), ec);
      continue;
    }
    if (name.ends_with("-stray")) continue;  // kept for an operator, never loaded
    auto tp = parse_partition_dir_name(name);
    if (!tp) continue;
    LogOptions o;
    o.config = options_.config_for ? options_.config_for(tp->topic) : LogConfig{};
    o.clean_shutdown = clean_;
    o.now_ms = options_.now_ms;
    o.sync = options_.sync;
    o.offload = options_.offload;
    if (auto it = recovery->find(*tp); it != recovery->end()) o.recovery_point = it->second;
    if (auto it = starts->find(*tp); it != starts->end()) o.log_start_offset = it->second;
    if (auto it = highs->find(*tp); it != highs->end()) o.high_watermark = it->second;
    auto log = Log::open(entry.path().string(), o);
    if (!log) return fail(log.error());
    for (const std::string& note : (*log)->recovery_report().notes) {
      spdlog::warn("recovery of {}: {}", name, note);
    }
    Slot slot{std::move(*log), read_partition_metadata(entry.path().string()).value_or(Uuid{})};
    logs_.emplace(*tp, std::move(slot));
  }
  {
    std::lock_guard guard(cleaner_mu_);  // checkpoint entries of partitions not here go
    std::erase_if(cleaner_, [this](const auto& e) { return !logs_.contains(e.first); });
  }
  spdlog::info("loaded {} partition logs from {} ({} shutdown)", logs_.size(), dir,
               clean_ ? "clean" : "unclean");
  return {};
}

Log* LogManager::get(const TopicPartition& tp) const {
  std::shared_lock lock(mu_);
  auto it = logs_.find(tp);
  return it == logs_.end() ? nullptr : it->second.log.get();
}

Log* LogManager::get(const TopicPartition& tp, const Uuid& topic_id) const {
  std::shared_lock lock(mu_);
  auto it = logs_.find(tp);
  if (it == logs_.end()) return nullptr;
  if (!topic_id.is_zero() && !it->second.topic_id.is_zero() && it->second.topic_id != topic_id) {
    return nullptr;
  }
  return it->second.log.get();
}

Result<std::unique_ptr<Log>, StorageError> LogManager::open_new(const TopicPartition& tp,
                                                                const LogConfig& config,
                                                                int64_t now_ms,
                                                                const Uuid& topic_id, int owner) {
  {
    std::shared_lock lock(mu_);
    if (logs_.contains(tp)) {
      return fail(storage_error(StorageErrc::kIo, "a log of " + partition_dir_name(tp) + " is open"));
    }
  }
  LogOptions o;
  o.config = config;
  o.clean_shutdown = true;  // a new, empty directory
  o.now_ms = now_ms;
  o.sync = options_.sync;
  o.offload = options_.offload;
  const std::string dir = options_.log_dir + "/" + partition_dir_name(tp);
  std::error_code ec;
  if (fs::exists(dir, ec)) {  // a removal that failed half-way: never adopt its files
    return fail(storage_error(StorageErrc::kIo, dir + " exists"));
  }
  auto log = Log::open(dir, o);
  if (!log) return fail(log.error());
  if (!topic_id.is_zero()) {
    if (auto w = write_partition_metadata(dir, topic_id); !w) return fail(w.error());
  }
  (*log)->bind_owner(owner);
  return std::move(*log);
}

Log* LogManager::install(const TopicPartition& tp, std::unique_ptr<Log> log, const Uuid& topic_id) {
  std::unique_lock lock(mu_);
  Log* raw = log.get();
  const bool inserted = logs_.emplace(tp, Slot{std::move(log), topic_id}).second;
  STRATA_ASSERT(inserted);  // open_new's precondition: one log per partition at a time
  return raw;
}

Result<Log*, StorageError> LogManager::create(const TopicPartition& tp, const LogConfig& config,
                                              int64_t now_ms, const Uuid& topic_id) {
  if (Log* existing = get(tp); existing != nullptr) {
    if (slot_id(tp) == topic_id) return existing;
    // A deleted topic's partition whose removal has not reached this shard yet.
    if (auto r = remove(tp); !r) return fail(r.error());
  }
  const int owner = current_shard() >= 0 ? current_shard() : kNoShard;
  auto log = open_new(tp, config, now_ms, topic_id, owner);
  if (!log) return fail(log.error());
  return install(tp, std::move(*log), topic_id);
}

Uuid LogManager::slot_id(const TopicPartition& tp) const {
  std::shared_lock lock(mu_);
  auto it = logs_.find(tp);
  return it == logs_.end() ? Uuid{} : it->second.topic_id;
}

Result<void, StorageError> LogManager::remove(const TopicPartition& tp, const Uuid& topic_id) {
  std::unique_ptr<Log> log;
  {
    std::unique_lock lock(mu_);
    auto it = logs_.find(tp);
    if (it == logs_.end()) return {};
    if (!topic_id.is_zero() && !it->second.topic_id.is_zero() && it->second.topic_id != topic_id) {
      return {};  // the partition of a newer topic of the same name
    }
    log = std::move(it->second.log);
    logs_.erase(it);
  }
  return discard(tp, std::move(log));
}

// Outside mu_: closing and renaming touch only this log's files; the cleaner checkpoint
// write (fsynced) and the directory removal run offloaded.
Result<void, StorageError> LogManager::discard(const TopicPartition& tp, std::unique_ptr<Log> log) {
  const std::string from = log->dir();
  log.reset();  // not closed: nothing of a deleted partition needs flushing
  bool had_checkpoint = false;
  {
    std::lock_guard guard(cleaner_mu_);
    had_checkpoint = cleaner_.erase(tp) > 0;
  }
  if (had_checkpoint) rewrite_cleaner_checkpoint();
  const std::string to = from + "." + random_cluster_id() + "-delete";
  if (auto r = rename_file(from, to); !r) return r;
  run_offloaded(options_.offload, [to] {
    std::error_code ec;
    fs::remove_all(to, ec);
    if (ec) spdlog::warn("removing {}: {}", to, ec.message());
  });
  return {};
}

Result<void, StorageError> LogManager::reconcile(
    const std::function<std::optional<Uuid>(const TopicPartition&)>& expected,
    const std::function<int(const TopicPartition&)>& owner) {
  std::unique_lock lock(mu_);
  for (auto it = logs_.begin(); it != logs_.end();) {
    const std::optional<Uuid> want = expected(it->first);
    Slot& slot = it->second;
    if (want && (slot.topic_id.is_zero() || slot.topic_id == *want)) {
      if (slot.topic_id.is_zero()) {
        slot.topic_id = *want;
        if (auto w = write_partition_metadata(slot.log->dir(), *want); !w) return w;
      }
      slot.log->bind_owner(owner(it->first));
      ++it;
      continue;
    }
    const std::string from = slot.log->dir();
    if (auto r = slot.log->close(); !r) return r;
    const std::string to = from + "." + random_cluster_id() + "-stray";
    if (auto r = rename_file(from, to); !r) return r;
    spdlog::warn("{} belongs to no current topic: kept as {}", from, to);
    {
      std::lock_guard guard(cleaner_mu_);
      cleaner_.erase(it->first);
    }
    it = logs_.erase(it);
  }
  return {};
}

std::vector<TopicPartition> LogManager::partitions() const {
  std::shared_lock lock(mu_);
  std::vector<TopicPartition> out;
  for (const auto& [tp, log] : logs_) out.push_back(tp);
  return out;
}

CheckpointFigures LogManager::figures_of(const Log& log) {
  return {log.recovery_point(), log.log_start_offset(), log.high_watermark()};
}

Result<void, StorageError> LogManager::write_checkpoints(const CheckpointMap& figures) {
  std::lock_guard guard(checkpoint_mu_);
  OffsetCheckpoint recovery, starts, replication;
  for (const auto& [tp, f] : figures) {
    recovery[tp] = f.recovery_point;
    starts[tp] = f.log_start;
    replication[tp] = f.high_watermark;
  }
  const std::string& dir = options_.log_dir;
  if (auto r = write_offset_checkpoint(dir + "/" + kRecoveryPoints, recovery); !r) return r;
  if (auto r = write_offset_checkpoint(dir + "/" + kLogStarts, starts); !r) return r;
  return write_offset_checkpoint(dir + "/" + kReplicationOffsets, replication);
}

Result<void, StorageError> LogManager::checkpoint() {
  CheckpointMap figures;
  {
    std::shared_lock lock(mu_);
    for (const auto& [tp, slot] : logs_) figures[tp] = figures_of(*slot.log);
  }
  return write_checkpoints(figures);
}

Result<void, StorageError> LogManager::shutdown() {
  {
    std::unique_lock lock(mu_);
    for (auto& [tp, slot] : logs_) {
      if (auto r = slot.log->close(); !r) return r;
    }
  }
  if (auto r = checkpoint(); !r) return r;
  return write_clean_shutdown_marker(options_.log_dir, 0);
}

}  // namespace strata::storage

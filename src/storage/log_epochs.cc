// The leader epoch cache (leader-epoch-checkpoint): loaded with the log, completed from
// the batches recovery read, trimmed to the log start and end, saved whenever it changes
// (offloaded: see Log::EpochFile).
#include <spdlog/spdlog.h>

#include "common/bytes.h"
#include "record/batch_format.h"
#include "storage/log.h"

namespace strata::storage {

namespace {
constexpr const char* kEpochFile = "leader-epoch-checkpoint";
}  // namespace

Result<void, StorageError> Log::load_epochs() {
  auto read = read_leader_epoch_checkpoint(dir_ + "/" + kEpochFile);
  if (!read) {
    // Derived data: a damaged file is dropped and rebuilt by the next append.
    report_.notes.push_back("ignored a corrupt " + std::string(kEpochFile) + ": " +
                            read.error().message());
    epochs_.clear();
    return save_epochs();
  }
  // Keep only strictly increasing epochs and offsets, as Kafka's cache does on load.
  epochs_.clear();
  for (const EpochEntry& e : *read) {
    while (!epochs_.empty() &&
           (epochs_.back().epoch >= e.epoch || epochs_.back().start_offset >= e.start_offset)) {
      epochs_.pop_back();
    }
    epochs_.push_back(e);
  }
  return trim_epochs();
}

// A trim that is lost in a crash is redone at load (trim_epochs); an added entry is kept
// safe by recovery_point() until its write is durable. A failed write leaves the
// recovery point where it is (the next restart recovers and rewrites).
Result<void, StorageError> Log::save_epochs(std::optional<Offset> added) {
  uint64_t version = 0;
  {
    std::lock_guard lock(epoch_file_->state_mu);
    version = ++epoch_file_->latest;
    if (added && added->value() < epoch_file_->pending_from.load()) {
      epoch_file_->pending_from.store(added->value(), std::memory_order_release);
    }
  }
  run_offloaded(offload_, [file = epoch_file_, path = dir_ + "/" + kEpochFile, entries = epochs_,
                           version] {
    std::lock_guard write(file->write_mu);
    {
      std::lock_guard lock(file->state_mu);
      if (version <= file->written) return;  // a newer state is already on disk
    }
    if (auto r = write_leader_epoch_checkpoint(path, entries); !r) {
      spdlog::error("{}: {}", path, r.error().message());
      return;
    }
    std::lock_guard lock(file->state_mu);
    file->written = version;
    if (version == file->latest) file->pending_from.store(INT64_MAX, std::memory_order_release);
  });
  return {};
}

// flush() (and so close and shutdown) writes the cache now if a write is still due: the
// offload pool may already be gone.
Result<void, StorageError> Log::flush_epochs() {
  std::lock_guard write(epoch_file_->write_mu);
  uint64_t version = 0;
  {
    std::lock_guard lock(epoch_file_->state_mu);
    if (epoch_file_->written == epoch_file_->latest) return {};
    version = epoch_file_->latest;
  }
  if (auto r = write_leader_epoch_checkpoint(dir_ + "/" + kEpochFile, epochs_); !r) return r;
  std::lock_guard lock(epoch_file_->state_mu);
  epoch_file_->written = version;
  if (version == epoch_file_->latest) epoch_file_->pending_from.store(INT64_MAX, std::memory_order_release);
  return {};
}

void Log::note_recovered_epoch(Bytes entry) {
  if (entry.size() < record::kHeaderSize || entry[record::kMagicPos] != record::kMagicV2) return;
  const int32_t epoch = int32_t(load_be32(entry.data() + record::kPartitionLeaderEpochPos));
  if (epoch < 0) return;
  if (!recovered_epochs_.empty() && recovered_epochs_.back().epoch.value() >= epoch) return;
  recovered_epochs_.push_back({LeaderEpoch(epoch), Offset(int64_t(load_be64(entry.data())))});
}

// Kafka's recovery assigns each recovered batch's epoch to the cache when it is newer
// than the latest: entries a crash kept out of the checkpoint come back from the data.
Result<void, StorageError> Log::merge_recovered_epochs() {
  std::optional<Offset> added;
  for (const EpochEntry& e : recovered_epochs_) {
    if (!epochs_.empty() &&
        (e.epoch <= epochs_.back().epoch || e.start_offset <= epochs_.back().start_offset)) {
      continue;
    }
    epochs_.push_back(e);
    if (!added) added = e.start_offset;
  }
  recovered_epochs_.clear();
  recovered_epochs_.shrink_to_fit();
  return added ? save_epochs(added) : Result<void, StorageError>{};
}

Result<void, StorageError> Log::trim_epochs() {
  const size_t before = epochs_.size();
  const Offset first = epochs_.empty() ? Offset(0) : epochs_.front().start_offset;
  std::erase_if(epochs_, [this](const EpochEntry& e) { return e.start_offset >= next_offset_; });
  while (epochs_.size() > 1 && epochs_[1].start_offset <= log_start_) epochs_.erase(epochs_.begin());
  if (!epochs_.empty() && epochs_.front().start_offset < log_start_) {
    epochs_.front().start_offset = log_start_;
  }
  const bool changed = epochs_.size() != before || (!epochs_.empty() && epochs_.front().start_offset != first);
  return changed ? save_epochs() : Result<void, StorageError>{};
}

}  // namespace strata::storage

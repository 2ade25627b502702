// The leader epoch cache (leader-epoch-checkpoint): loaded with the log, trimmed to the
// log start and end, saved whenever it changes.
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

Result<void, StorageError> Log::save_epochs() {
  return write_leader_epoch_checkpoint(dir_ + "/" + kEpochFile, epochs_);
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

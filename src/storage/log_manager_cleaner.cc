// LogManager's compaction bookkeeping (Kafka's LogCleanerManager): the cleaner checkpoint
// of each partition, the figures that choose the next log to clean, and the state the
// broker shows (dirty ratio, last clean time, bytes cleaned).
#include <spdlog/spdlog.h>

#include "storage/log_manager.h"

namespace strata::storage {

namespace {
std::string cleaner_checkpoint_path(const std::string& dir) {
  return dir + "/" + kCleanerOffsetCheckpointFile;
}
}  // namespace

Result<void, StorageError> LogManager::load_cleaner_checkpoint() {
  auto entries = read_offset_checkpoint(cleaner_checkpoint_path(options_.log_dir));
  if (!entries) return fail(entries.error());
  std::lock_guard guard(cleaner_mu_);
  for (const auto& [tp, offset] : *entries) cleaner_[tp].first_dirty = offset;
  return {};
}

Result<void, StorageError> LogManager::write_cleaner_checkpoint_locked() {
  OffsetCheckpoint entries;
  for (const auto& [tp, state] : cleaner_) {
    if (state.first_dirty) entries[tp] = *state.first_dirty;
  }
  return write_offset_checkpoint(cleaner_checkpoint_path(options_.log_dir), entries);
}

void LogManager::rewrite_cleaner_checkpoint() {
  run_offloaded(options_.offload, [this] {
    std::lock_guard guard(cleaner_mu_);
    if (auto r = write_cleaner_checkpoint_locked(); !r) {
      spdlog::error("cleaner checkpoint: {}", r.error().message());
    }
  });
}

std::optional<Offset> LogManager::cleaner_checkpoint(const TopicPartition& tp) const {
  std::lock_guard guard(cleaner_mu_);
  auto it = cleaner_.find(tp);
  return it == cleaner_.end() ? std::nullopt : it->second.first_dirty;
}

void LogManager::refresh_cleanable(const TopicPartition& tp, const Log& log, int64_t now_ms) {
  const std::optional<Offset> checkpoint = cleaner_checkpoint(tp);
  const CleanableStats stats = log.cleanable(checkpoint, now_ms);
  bool reset = false;
  {
    std::lock_guard guard(cleaner_mu_);
    CleanerPartitionState& state = cleaner_[tp];
    state.cleanable = stats;
    // Kafka's forceUpdateCheckpoint: a checkpoint outside the log restarts at its start.
    if (stats.checkpoint_reset && checkpoint) {
      spdlog::warn("cleaner checkpoint {} of {}-{} is outside the log; resetting to {}",
                   checkpoint->value(), tp.topic, tp.partition.value(), stats.first_dirty.value());
      state.first_dirty = stats.first_dirty;
      reset = true;
    }
  }
  if (reset) rewrite_cleaner_checkpoint();  // fsynced: not on the shard calling this
}

std::optional<TopicPartition> LogManager::grab_filthiest() {
  std::lock_guard guard(cleaner_mu_);
  std::optional<TopicPartition> best;
  double best_ratio = -1;
  for (const auto& [tp, state] : cleaner_) {
    if (state.in_progress || !state.cleanable.should_clean) continue;
    if (state.cleanable.dirty_ratio > best_ratio) {
      best = tp;
      best_ratio = state.cleanable.dirty_ratio;
    }
  }
  if (best) cleaner_[*best].in_progress = true;
  return best;
}

Result<void, StorageError> LogManager::done_cleaning(const TopicPartition& tp,
                                                     const CleanOutcome& outcome, int64_t now_ms) {
  const bool exists = get(tp) != nullptr;
  std::lock_guard guard(cleaner_mu_);
  if (!exists) {
    cleaner_.erase(tp);  // removed while it was being cleaned
    return {};
  }
  CleanerPartitionState& state = cleaner_[tp];
  state.in_progress = false;
  state.first_dirty = outcome.first_dirty;
  state.cleanable.should_clean = false;  // until the next refresh says otherwise
  state.last_clean_ms = now_ms;
  ++state.cleanings;
  state.bytes_cleaned += outcome.stats.bytes_read;
  state.bytes_written += outcome.stats.bytes_written;
  state.last = outcome;
  return write_cleaner_checkpoint_locked();
}

void LogManager::abort_cleaning(const TopicPartition& tp) {
  std::lock_guard guard(cleaner_mu_);
  auto it = cleaner_.find(tp);
  if (it != cleaner_.end()) it->second.in_progress = false;
}

std::optional<CleanerPartitionState> LogManager::cleaner_state(const TopicPartition& tp) const {
  std::lock_guard guard(cleaner_mu_);
  auto it = cleaner_.find(tp);
  if (it == cleaner_.end()) return std::nullopt;
  return it->second;
}

}  // namespace strata::storage

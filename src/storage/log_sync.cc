// Durability: which files the next sync must make durable, group-committed fdatasyncs
// through the SyncService, synchronous flushes, and the timed policies of tick().
#include "storage/log.h"

namespace strata::storage {

// The active segment's .log (and `txn_file`, a txn index just appended to) join the
// files the next sync makes durable, each listed once. flush.messages may ask for one.
void Log::note_written(const std::shared_ptr<File>& txn_file) {
  const std::shared_ptr<File>& log_file = active().log_file();
  if (txn_file) {
    std::erase_if(dirty_, [&](const Dirty& d) { return d.file == log_file || d.file == txn_file; });
    dirty_.push_back({txn_file, next_offset_});
  }
  if (dirty_.empty() || dirty_.back().file != log_file) {
    dirty_.push_back({log_file, next_offset_});
  } else {
    dirty_.back().end = next_offset_;
  }
  if (next_offset_.value() - sync_requested_.value() >= config_.flush_messages) {
    sync([](Result<void, StorageError>) {});
  }
}

void Log::sync(SyncService::Done done) {
  check_owner();
  const int64_t durable = durable_->offset.load(std::memory_order_acquire);
  // Drop files whose data is already durable; keep the active one.
  std::erase_if(dirty_, [&](const Dirty& d) {
    return d.end.value() <= durable && d.file != active().log_file();
  });
  std::vector<std::shared_ptr<File>> files;
  for (const Dirty& d : dirty_) files.push_back(d.file);
  const int64_t target = next_offset_.value();
  sync_requested_ = next_offset_;
  auto state = durable_;
  auto failed = sync_failed_;
  uint64_t generation = 0;
  {
    std::lock_guard lock(state->mu);
    generation = state->generation;
  }
  sync_->request(std::move(files), [state, failed, target, generation, done = std::move(done)](auto r) {
    // Linux may drop unwritten pages and clear the error after a failed fdatasync, so a
    // later sync could "succeed" without the data: the log goes offline for good (Kafka
    // takes the log dir offline).
    if (!r.ok()) failed->store(true);
    if (r.ok() && !failed->load()) {
      std::lock_guard lock(state->mu);
      // A truncation since the request: `target` may name offsets written after it.
      if (state->generation == generation && state->offset.load(std::memory_order_relaxed) < target) {
        state->offset.store(target, std::memory_order_release);
      }
    }
    done(std::move(r));
  });
}

Result<void, StorageError> Log::flush() {
  check_owner();
  for (auto& [base, seg] : segments_) {
    if (seg->next_offset().value() > durable_->offset.load() || seg.get() == &active()) {
      if (auto r = seg->flush(); !r) return r;
    }
  }
  if (auto r = flush_snapshots(); !r) return r;
  if (auto r = flush_epochs(); !r) return r;
  durable_->set(next_offset_.value());
  dirty_.clear();
  sync_requested_ = next_offset_;
  return {};
}

void Log::tick(int64_t now_ms) {
  check_owner();
  unlink_due(now_ms);
  if (now_ms - last_producer_expiry_ms_ >= kProducerIdExpirationCheckIntervalMs) {
    last_producer_expiry_ms_ = now_ms;
    producers_.remove_expired(now_ms, config_.producer_id_expiration_ms);
  }
  if (config_.flush_ms == INT64_MAX || sync_ == nullptr) return;
  if (recovery_point() < next_offset_ && now_ms - last_sync_request_ms_ >= config_.flush_ms) {
    last_sync_request_ms_ = now_ms;
    sync([](Result<void, StorageError>) {});
  }
}

}  // namespace strata::storage

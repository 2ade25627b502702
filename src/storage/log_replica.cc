// A follower's side of a log (replication, issue 15): the leader's batches appended as
// they are, and truncation to the point where a follower's log diverged from its leader.
#include <algorithm>
#include <string>

#include "record/control.h"
#include "record/validate.h"
#include "storage/log.h"

namespace strata::storage {

namespace {

StorageError replica_error(const std::string& what) {
  return storage_error(StorageErrc::kInvalidBatch, "replicated append: " + what);
}

}  // namespace

Result<AppendResult, StorageError> Log::append_replicated(MutableBytes batches, int64_t now_ms) {
  check_owner();
  if (auto w = check_writable(); !w) return fail(w.error());
  std::vector<BatchInfo>& infos = append_infos_;
  infos.clear();
  std::vector<uint8_t> scratch;  // unused with RecordCheck::kNone (no decompression)
  const record::ValidateOptions crc_only{record::RecordCheck::kNone, {}, false};
  AppendResult result;
  Offset next = next_offset_;
  std::vector<EpochEntry> new_epochs;
  LeaderEpoch last_epoch = epochs_.empty() ? LeaderEpoch(-1) : epochs_.back().epoch;
  for (size_t pos = 0; pos < batches.size();) {
    auto view = record::validate_batch(Bytes(batches).subspan(pos), crc_only, scratch);
    if (!view) {
      return fail(replica_error("batch at byte " + std::to_string(pos) + " fails its CRC or framing: " +
                                std::string(record::to_string(view.error()))));
    }
    // Offsets only grow (a compacted leader's batches may leave gaps between them).
    if (view->base_offset() < next) {
      return fail(replica_error("batch at offset " + std::to_string(view->base_offset().value()) +
                                " is below the log end " + std::to_string(next.value())));
    }
    if (view->last_offset() < view->base_offset()) return fail(replica_error("a batch ends before it starts"));
    if (pos == 0) result.first_offset = view->base_offset();
    const LeaderEpoch epoch(view->partition_leader_epoch());
    if (epoch > last_epoch) {
      new_epochs.push_back({epoch, view->base_offset()});
      last_epoch = epoch;
    }
    infos.push_back(BatchInfo{view->last_offset(), view->max_timestamp(), uint32_t(view->size())});
    result.max_timestamp = std::max(result.max_timestamp, view->max_timestamp());
    next = Offset(view->last_offset().value() + 1);
    pos += view->size();
  }
  if (infos.empty()) return result;
  if (auto w = write_batches(batches, infos, next, result.max_timestamp, now_ms); !w) return fail(w.error());
  // Producer state and aborted transactions as the leader recorded them: Kafka's
  // REPLICATION origin, replayed without checks (the leader made them).
  std::shared_ptr<File> txn_file;
  for (size_t pos = 0; pos < batches.size();) {
    auto view = record::frame_batch(Bytes(batches).subspan(pos));
    pos += view->size();
    if (view->producer_id().value() < 0) continue;
    if (!view->is_control()) {
      producers_.replay(*view);
      continue;
    }
    const std::optional<EndTxn> marker = EndTxn::of(*view);
    if (!marker) continue;
    const auto completed = producers_.end_txn(*marker, view->base_offset());
    if (completed && completed->aborted) {
      TxnIndex& index = active().txn_index();
      if (auto a = index.append(aborted_entry(*completed)); !a) return fail(a.error());
      txn_file = index.file();
    }
  }
  if (!new_epochs.empty()) {
    epochs_.insert(epochs_.end(), new_epochs.begin(), new_epochs.end());
    if (auto e = save_epochs(new_epochs.front().start_offset); !e) return fail(e.error());
  }
  result.last_offset = Offset(next.value() - 1);
  result.batches = infos.size();
  if (infos.capacity() > kAppendInfosKeptMax) infos = {};
  note_written(txn_file);
  return result;
}

void Log::track_high_watermark() {
  check_owner();
  if (tracked_hw_) return;
  tracked_hw_ = std::clamp(checkpointed_hw_.value_or(next_offset_), log_start_, next_offset_);
}

bool Log::raise_high_watermark(Offset hw) {
  check_owner();
  if (!tracked_hw_) return false;
  const Offset next = std::min(hw, next_offset_);
  if (next <= *tracked_hw_) return false;
  tracked_hw_ = next;
  return true;
}

Result<Offset, StorageError> Log::truncate_to(Offset offset, int64_t now_ms) {
  check_owner();
  if (auto w = check_writable(); !w) return fail(w.error());
  if (offset >= next_offset_) return next_offset_;
  if (offset < log_start_) {
    return fail(storage_error(StorageErrc::kOffsetOutOfRange,
                              "truncation to " + std::to_string(offset.value()) +
                                  " below the log start " + std::to_string(log_start_.value())));
  }
  // Whole segments at or past the point go (as retention's, renamed then unlinked);
  // the first segment stays, emptied if need be, so the log always has an active one.
  while (segments_.size() > 1 && Offset(segments_.rbegin()->first) >= offset) {
    if (auto d = delete_segment(Offset(segments_.rbegin()->first), now_ms); !d) return fail(d.error());
  }
  if (auto t = active().truncate_to(offset); !t) return fail(t.error());
  next_offset_ = active().next_offset();
  if (tracked_hw_ && *tracked_hw_ > next_offset_) tracked_hw_ = next_offset_;
  // What was made durable past the new end is gone with it, and a sync in flight must
  // not mark what comes next as durable (a new generation).
  {
    std::lock_guard lock(durable_->mu);
    ++durable_->generation;
    const int64_t kept = std::min(durable_->offset.load(std::memory_order_relaxed), next_offset_.value());
    durable_->offset.store(kept, std::memory_order_release);
  }
  sync_requested_ = std::min(sync_requested_, next_offset_);
  // The files written since their last sync stay listed (their bytes below the new end
  // still need one); their ends cannot exceed the new end.
  for (Dirty& d : dirty_) d.end = std::min(d.end, next_offset_);
  if (auto e = trim_epochs(); !e) return fail(e.error());
  // Producer state as of the new end: the newest snapshot at or below it, then the
  // batches after it (Kafka's ProducerStateManager.truncateAndReload). Later snapshots
  // describe data that is gone.
  while (!snapshots_.empty() && Offset(*snapshots_.rbegin()) > next_offset_) {
    const int64_t at = *snapshots_.rbegin();
    unlink_snapshot(at);
  }
  producers_end_ = std::max(load_newest_snapshot(next_offset_, now_ms), Offset(segments_.begin()->first));
  if (auto r = replay_segments(producers_end_, next_offset_); !r) return fail(r.error());
  producers_end_ = next_offset_;
  return next_offset_;
}

Result<void, StorageError> Log::truncate_fully_and_start_at(Offset offset, int64_t now_ms) {
  check_owner();
  if (auto w = check_writable(); !w) return fail(w.error());
  if (offset.value() < 0) return fail(storage_error(StorageErrc::kOffsetOutOfRange, "a negative log start"));
  // Order for a crash at any step: the segments leave first (a segment based at `offset`
  // would clash with the new one's names), then the producer snapshots, then the new
  // segment is made; a reopen in between finds a tail of the old log, or nothing, or the
  // new segment alone, never the new segment with the old producer state.
  std::vector<int64_t> bases;
  for (const auto& [base, seg] : segments_) bases.push_back(base);
  for (int64_t base : bases) {
    if (auto d = delete_segment(Offset(base), now_ms); !d) {
      // Some segments left: the log goes on from the first one that stays.
      if (!segments_.empty()) {
        log_start_ = std::max(log_start_, Offset(segments_.begin()->first));
      } else {
        sync_failed_->store(true);  // no segment to append to: the log goes offline
      }
      return fail(d.error());
    }
  }
  while (!snapshots_.empty()) {
    if (auto d = delete_snapshot_later(Offset(*snapshots_.begin()), now_ms); !d) {
      sync_failed_->store(true);
      return fail(d.error());
    }
  }
  producers_.clear();
  epochs_.clear();
  auto s = Segment::create(dir_, offset, config_, now_ms);
  if (!s) {
    sync_failed_->store(true);  // no segment to append to: the log goes offline
    return fail(s.error());
  }
  segments_.emplace(offset.value(), std::move(*s));
  log_start_ = next_offset_ = offset;
  producers_end_ = offset;
  if (tracked_hw_) tracked_hw_ = offset;
  {
    std::lock_guard lock(durable_->mu);
    ++durable_->generation;  // a sync in flight covers files that are gone
    durable_->offset.store(offset.value(), std::memory_order_release);
  }
  sync_requested_ = offset;
  dirty_.clear();
  if (auto e = save_epochs(); !e) return fail(e.error());
  unlink_due(now_ms);
  return {};
}

}  // namespace strata::storage

// The shard's side of compaction (log_cleaner.h): what is cleanable, the task for the
// cleaner thread, and Kafka's swap of the cleaned segments into the log
// (LocalLog.replaceSegments): `.cleaned` -> `.swap`, old segments -> `.deleted`,
// `.swap` -> final names. Log::load completes or rolls back a swap a crash interrupted
// (log_swap.cc).
#include <algorithm>

#include "storage/index_format.h"
#include "storage/log.h"

namespace strata::storage {

namespace {

ProducerLast last_record_of(const ProducerEntry& entry) {
  ProducerLast last;
  last.epoch = entry.epoch;
  if (!entry.empty()) last.last_data_offset = entry.batches().back().last_offset;
  return last;
}

}  // namespace

// Kafka's LogCleanerManager.cleanableOffsets and maxCompactionDelay, and LogToClean.
CleanableStats Log::cleanable(std::optional<Offset> checkpoint, int64_t now_ms) const {
  check_owner();
  CleanableStats s;
  s.first_dirty = checkpoint.value_or(log_start_);
  if (s.first_dirty < log_start_ || s.first_dirty > next_offset_) {
    s.checkpoint_reset = true;
    s.first_dirty = log_start_;
  }
  const int64_t active_base = segments_.rbegin()->first;
  Offset uncleanable =
      std::min(first_unstable_offset().value_or(next_offset_), Offset(active_base));
  const int64_t lag_ms = std::max<int64_t>(config_.min_compaction_lag_ms, 0);
  const int64_t clean_until_ms = now_ms - std::max<int64_t>(config_.max_compaction_lag_ms, 0);
  int64_t earliest_dirty_ms = INT64_MAX;
  auto from = segments_.upper_bound(s.first_dirty.value());
  if (from != segments_.begin()) --from;
  for (auto it = from; it != segments_.end() && it->first != active_base; ++it) {
    if (lag_ms > 0 && it->second->max_timestamp() > now_ms - lag_ms) {
      uncleanable = std::min(uncleanable, Offset(it->first));
      break;
    }
  }
  for (auto it = from; it != segments_.end() && it->first != active_base; ++it) {
    const int64_t first_ts = it->second->first_batch_timestamp();
    if (first_ts > 0) earliest_dirty_ms = std::min(earliest_dirty_ms, first_ts);
  }
  uncleanable = std::max(uncleanable, s.first_dirty);
  const Segment* holder = segment_for(uncleanable);
  s.first_uncleanable = holder != nullptr ? holder->base_offset() : uncleanable;
  const Offset cleanable_from = std::min(s.first_dirty, s.first_uncleanable);
  for (auto it = segments_.begin(); it != segments_.end(); ++it) {
    const auto next = std::next(it);
    const bool reaches = next == segments_.end() || Offset(next->first) > cleanable_from;
    if (Offset(it->first) < s.first_dirty) s.clean_bytes += it->second->size();
    if (Offset(it->first) < s.first_uncleanable && reaches &&
        cleanable_from < s.first_uncleanable) {
      s.cleanable_bytes += it->second->size();
    }
  }
  const uint64_t total = s.clean_bytes + s.cleanable_bytes;
  s.dirty_ratio = total == 0 ? 0 : double(s.cleanable_bytes) / double(total);
  if (earliest_dirty_ms < clean_until_ms)
    s.compaction_delay_ms = clean_until_ms - earliest_dirty_ms;
  s.should_clean = config_.compact() && total > 0 &&
                   ((s.compaction_delay_ms > 0 && s.cleanable_bytes > 0) ||
                    s.dirty_ratio > config_.min_cleanable_dirty_ratio);
  return s;
}

Result<std::optional<CleanTask>, StorageError> Log::prepare_clean(std::optional<Offset> checkpoint,
                                                                  int64_t now_ms) const {
  check_owner();
  if (closed_) return fail(storage_error(StorageErrc::kClosed, "clean of closed log " + dir_));
  const CleanableStats s = cleanable(checkpoint, now_ms);
  if (!config_.compact() || s.first_dirty >= s.first_uncleanable) {
    return std::optional<CleanTask>{};
  }
  CleanTask task;
  task.dir = dir_;
  task.config = config_;
  task.first_dirty = s.first_dirty;
  task.first_uncleanable = s.first_uncleanable;
  for (auto it = segments_.begin();
       it != segments_.end() && Offset(it->first) < s.first_uncleanable; ++it) {
    const Segment& seg = *it->second;
    CleanInput in;
    in.base = seg.base_offset();
    in.next_base = Offset(std::next(it)->first);  // the active segment is never an input
    in.file = seg.log_file();
    in.size = seg.size();
    in.offset_index_bytes = seg.offset_index_bytes();
    in.time_index_bytes = seg.time_index_bytes();
    if (in.base <= s.first_dirty && s.first_dirty < in.next_base) {
      in.first_dirty_position = seg.index_position(s.first_dirty);
    }
    task.segments.push_back(std::move(in));
  }
  task.aborted = aborted_transactions(Offset(segments_.begin()->first), s.first_uncleanable);
  for (const auto& [id, entry] : producers_.sorted()) task.producers[id] = last_record_of(*entry);
  return std::optional<CleanTask>{std::move(task)};
}

// A group may replace its segments only if each is still in the log, the same one (its
// .log file), and not the active segment.
bool Log::still_holds(const CleanedGroup& group) const {
  for (const auto& [base, file] : group.replaces) {
    auto it = segments_.find(base.value());
    if (it == segments_.end() || it->second->log_file() != file) return false;
    if (std::next(it) == segments_.end()) return false;
  }
  return !group.replaces.empty();
}

// Kafka's replaceSegments for one group: the output renamed `.swap` (and the directory
// fsynced, so that name is durable before any old file is renamed away), the old
// segments out of the log and renamed `.deleted`, the output renamed to its final names.
// The log in memory holds the output from the moment the old segments leave it.
// Unlike Kafka, no directory fsync follows the final renames here: until they are
// durable, a restart finds the `.swap` files and completes them (log_swap.cc), so the
// caller may sync the directory later, off the shard (BrokerCleaner does).
Result<void, StorageError> Log::swap_in(CleanedGroup& group, int64_t now_ms, CleanOutcome& out) {
  Segment& fresh = *group.segment;
  if (auto r = fresh.rename_all(kSwapSuffix); !r) return r;
  if (auto r = sync_directory(dir_); !r) return r;
  std::vector<std::unique_ptr<Segment>> old;
  for (const auto& replaced : group.replaces) {
    auto it = segments_.find(replaced.first.value());
    out.bytes_before += it->second->size();
    old.push_back(std::move(it->second));
    segments_.erase(it);
  }
  const Offset base = fresh.base_offset();
  out.bytes_after += fresh.size();
  segments_.emplace(base.value(), std::move(group.segment));
  for (std::unique_ptr<Segment>& seg : old) {
    const Offset old_base = seg->base_offset();
    // On failure the files keep their names (a restart's swap recovery removes them).
    if (auto r = seg->rename_all(kDeletedSuffix); !r) return r;
    pending_deletes_.emplace_back(std::move(seg), now_ms + config_.file_delete_delay_ms);
    // Kafka deletes the producer snapshots of the segments that are gone, not replaced.
    if (old_base != base) {
      if (auto r = delete_snapshot_later(old_base, now_ms); !r) return r;
    }
  }
  return fresh.rename_all("");
}

Result<CleanOutcome, StorageError> Log::finish_clean(CleanResult&& result, int64_t now_ms) {
  check_owner();
  CleanResult owned = std::move(result);  // whatever is not swapped in is deleted with it
  if (closed_) return fail(storage_error(StorageErrc::kClosed, "clean of closed log " + dir_));
  CleanOutcome out;
  out.first_dirty = owned.end_offset;
  out.stats = owned.stats;
  for (CleanedGroup& group : owned.groups) {
    if (!still_holds(group)) {
      group.segment->remove_files();
      group.segment.reset();
      ++out.groups_discarded;
      continue;
    }
    if (auto r = swap_in(group, now_ms, out); !r) return fail(r.error());
    ++out.groups_swapped;
  }
  unlink_due(now_ms);
  return out;
}

}  // namespace strata::storage

// Retention and deletion: whole segments leave the log by rename to *.deleted (cheap,
// on the shard) and are unlinked later by tick(), after file.delete.delay.ms, as Kafka does.
#include <unistd.h>

#include "storage/index_format.h"
#include "storage/log.h"

namespace strata::storage {

Result<void, StorageError> Log::delete_segment(Offset base, int64_t now_ms) {
  auto it = segments_.find(base.value());
  if (it == segments_.end()) return {};
  if (auto r = it->second->rename_all(kDeletedSuffix); !r) return r;
  pending_deletes_.emplace_back(std::move(it->second), now_ms + config_.file_delete_delay_ms);
  segments_.erase(it);
  // Kafka deletes the producer snapshot named after a deleted segment with it.
  return delete_snapshot_later(base, now_ms);
}

// The unlinks (and the segment's munmaps and closes) run offloaded: a segment of a
// deleted range is no longer reachable from the log, so nothing races with them.
void Log::unlink_due(int64_t now_ms) {
  std::erase_if(pending_deletes_, [this, now_ms](auto& p) {
    if (p.second > now_ms) return false;
    std::shared_ptr<Segment> seg(std::move(p.first));
    run_offloaded(offload_, [seg] { seg->remove_files(); });
    return true;
  });
  std::erase_if(pending_snapshot_deletes_, [this, now_ms](const auto& p) {
    if (p.second > now_ms) return false;
    run_offloaded(offload_, [path = p.first] { ::unlink(path.c_str()); });
    return true;
  });
}

// Kafka's three reasons, oldest segments first, each stopping at the first segment
// that must stay: past retention.ms (by the segment's largest timestamp), over
// retention.bytes, or wholly below the log start offset. The active segment goes too
// only when everything is deletable, after a roll gives the log a new empty one.
// Time and size retention apply only when cleanup.policy includes "delete" (a compacted
// topic such as __consumer_offsets keeps its segments until the cleaner rewrites them).
Result<size_t, StorageError> Log::apply_retention(int64_t now_ms) {
  check_owner();
  std::vector<Offset> doomed;
  const bool deletes = config_.cleanup_policy.find("delete") != std::string::npos;
  int64_t excess = !deletes || config_.retention_bytes < 0
                       ? 0
                       : int64_t(size_bytes()) - config_.retention_bytes;
  for (auto it = segments_.begin(); it != segments_.end(); ++it) {
    const Segment& seg = *it->second;
    const auto next = std::next(it);
    const bool last = next == segments_.end();
    const bool below_start = !last && Offset(next->first) <= log_start_;
    // An empty segment before the last (a cleaning emptied it) has no timestamp: Kafka's
    // test (now - (-1) > retention.ms) takes it as expired.
    const bool expired = deletes && config_.retention_ms >= 0 &&
                         (seg.empty() ? !last : now_ms - seg.max_timestamp() > config_.retention_ms);
    const bool over_size = deletes && config_.retention_bytes >= 0 && excess - int64_t(seg.size()) >= 0;
    if ((seg.empty() && last) || !(below_start || expired || over_size)) break;
    excess -= int64_t(seg.size());
    doomed.emplace_back(it->first);
  }
  if (doomed.empty()) return size_t(0);
  if (doomed.size() == segments_.size()) {
    if (auto r = roll(now_ms); !r) return fail(r.error());
  }
  for (Offset base : doomed) {
    if (auto r = delete_segment(base, now_ms); !r) return fail(r.error());
  }
  log_start_ = std::max(log_start_, Offset(segments_.begin()->first));
  unlink_due(now_ms);
  if (auto e = trim_epochs(); !e) return fail(e.error());
  return doomed.size();
}

Result<void, StorageError> Log::advance_log_start_offset(Offset offset, int64_t now_ms) {
  check_owner();
  if (offset > next_offset_) {
    return fail(storage_error(StorageErrc::kOffsetOutOfRange,
                              "log start offset past the log end offset"));
  }
  if (offset <= log_start_) return {};
  log_start_ = offset;
  // Segments wholly below the new start go now; the rest of retention waits for its turn.
  while (segments_.size() > 1 && Offset(std::next(segments_.begin())->first) <= log_start_) {
    if (auto r = delete_segment(Offset(segments_.begin()->first), now_ms); !r) return r;
  }
  return trim_epochs();
}

Result<void, StorageError> Log::close() {
  check_owner();
  if (closed_) return {};
  if (auto r = flush(); !r) return r;
  if (auto r = active().on_become_inactive(); !r) return r;
  // Kafka's snapshot at close: a clean restart then replays nothing.
  if (auto r = take_producer_snapshot(SnapshotSync::kNow); !r) return r;
  closed_ = true;
  return {};
}

}  // namespace strata::storage

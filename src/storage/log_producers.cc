// A log's producer state: what append answers for a refused or retried batch, producer
// snapshots (at roll, at close, deleted with their segment), and the rebuild when the
// log loads, open transactions and txn indexes included (docs/formats/producer-snapshot.md).
#include <unistd.h>

#include <algorithm>

#include "record/batch_format.h"
#include "record/validate.h"
#include "storage/index_format.h"
#include "storage/log.h"

namespace strata::storage {

using namespace strata::record;

std::string Log::snapshot_path(Offset offset) const {
  return dir_ + "/" + segment_file_name(offset, kSnapshotSuffix);
}

std::vector<Offset> Log::snapshot_offsets() const {
  check_owner();
  std::vector<Offset> out;
  for (int64_t s : snapshots_) out.emplace_back(s);
  return out;
}

Result<AppendResult, StorageError> Log::producer_outcome(const ProducerCheck& check,
                                                        const IdempotentBatch& batch) const {
  const std::string who = "producer " + std::to_string(batch.producer_id.value()) + " epoch " +
                          std::to_string(batch.epoch.value());
  if (check.duplicate) {
    AppendResult r;
    r.duplicate = true;
    r.first_offset = check.duplicate->first_offset();
    r.last_offset = check.duplicate->last_offset;
    r.max_timestamp = check.duplicate->max_timestamp;
    if (config_.message_timestamp_type == "LogAppendTime") {
      r.log_append_time = check.duplicate->max_timestamp;
    }
    return r;
  }
  const ProducerEntry* entry = producers_.find(batch.producer_id);
  const int32_t epoch = entry ? entry->epoch.value() : -1;
  if (check.error == ProducerErrc::kInvalidProducerEpoch) {
    return fail(storage_error(StorageErrc::kInvalidProducerEpoch,
                              who + " is older than its current epoch " + std::to_string(epoch)));
  }
  if (check.error == ProducerErrc::kInvalidTxnState) {
    return fail(storage_error(StorageErrc::kInvalidTxnState,
                              who + ": non-transactional batch inside its open transaction"));
  }
  if (check.reused) {
    const std::string seqs = std::to_string(batch.first_sequence.value()) + "-" +
                             std::to_string(batch.last_sequence.value());
    const std::string at = std::to_string(check.reused->first_offset().value());
    return fail(storage_error(StorageErrc::kOutOfOrderSequence,
                              who + ": sequences " + seqs + " are those of the batch at " + at +
                                  ", of a transaction that has ended (reused, not retried)"));
  }
  const int32_t last = entry ? entry->last_sequence().value() : -1;
  return fail(storage_error(StorageErrc::kOutOfOrderSequence,
                            who + ": sequence " + std::to_string(batch.first_sequence.value()) +
                                " does not follow " + std::to_string(last) + " (epoch " +
                                std::to_string(epoch) + ")"));
}

// Kafka's takeSnapshot: at the log end, unless a snapshot there exists. kLater leaves the
// fdatasync to the next sync of the log (group commit), which the recovery point waits
// for; if the log is already durable up to here there is no such sync, so it is now.
Result<void, StorageError> Log::take_producer_snapshot(SnapshotSync sync) {
  const Offset at = next_offset_;
  if (snapshots_.contains(at.value())) return {};
  if (recovery_point() >= at) sync = SnapshotSync::kNow;
  const std::vector<uint8_t> bytes = encode_producer_snapshot(producers_);
  auto file = write_producer_snapshot(snapshot_path(at), bytes, sync);
  if (!file) return fail(file.error());
  snapshots_.insert(at.value());
  if (sync == SnapshotSync::kLater) dirty_.push_back({std::move(*file), at, true});
  return {};
}

Result<void, StorageError> Log::flush_snapshots() {
  for (const Dirty& d : dirty_) {
    if (!d.snapshot) continue;
    if (auto r = d.file->datasync(); !r) return r;
  }
  return {};
}

Result<void, StorageError> Log::delete_snapshot_later(Offset offset, int64_t now_ms) {
  if (snapshots_.erase(offset.value()) == 0) return {};
  const std::string path = snapshot_path(offset);
  const std::string deleted = path + kDeletedSuffix;
  if (auto r = rename_file(path, deleted); !r) return r;
  pending_snapshot_deletes_.emplace_back(deleted, now_ms + config_.file_delete_delay_ms);
  return {};
}

void Log::unlink_snapshot(int64_t offset) {
  snapshots_.erase(offset);
  ::unlink(snapshot_path(Offset(offset)).c_str());
}

// ---- Loading

// Kafka's loadFromSnapshot: the newest snapshot at or below `limit` that reads correctly,
// without its expired producers; unreadable ones are deleted on the way. Returns its
// offset, or 0 with none (the state is then empty).
Offset Log::load_newest_snapshot(Offset limit, int64_t now_ms) {
  producers_.clear();
  while (!snapshots_.empty()) {
    auto it = snapshots_.upper_bound(limit.value());
    if (it == snapshots_.begin()) break;
    const int64_t at = *std::prev(it);
    auto entries = read_producer_snapshot(snapshot_path(Offset(at)));
    if (!entries) {
      report_.notes.push_back("deleted an unreadable producer snapshot: " + entries.error().message());
      unlink_snapshot(at);
      continue;
    }
    for (const auto& [id, entry] : *entries) {
      if (!producer_expired(entry, now_ms, config_.producer_id_expiration_ms)) producers_.put(id, entry);
    }
    return Offset(at);
  }
  return Offset(0);
}

// As Kafka's REPLICATION origin: no checks. A marker ends its producer's transaction;
// an ABORT of an open one is recorded in `aborted` when a txn index is being rebuilt.
void Log::replay_entry(Bytes entry, std::vector<AbortedTxn>* aborted) {
  if (entry.size() <= kMagicPos || int8_t(entry[kMagicPos]) != kMagicV2) return;  // no producers
  auto batch = frame_batch(entry);
  if (!batch || batch->last_offset() < producers_end_) return;
  producers_end_ = Offset(batch->last_offset().value() + 1);
  if (!batch->is_control()) {
    producers_.replay(*batch);
    return;
  }
  if (batch->producer_id().value() < 0) return;
  const std::optional<EndTxn> marker = EndTxn::of(*batch);
  if (!marker) return;  // an empty control batch or another control type
  const auto completed = producers_.end_txn(*marker, batch->base_offset());
  if (completed && completed->aborted && aborted) aborted->push_back(aborted_entry(*completed));
}

EntryVisitor Log::replay_visitor(std::vector<AbortedTxn>* aborted) {
  if (!replaying_producers_) return {};
  return [this, aborted](Bytes entry) { replay_entry(entry, aborted); };
}

// Replays the batches in [from, until) of segments whose data is trusted (read by
// framing only; recovery validates the others as it replays them).
Result<void, StorageError> Log::replay_segments(Offset from, Offset until) {
  const uint64_t max_entry = uint64_t(config_.max_message_bytes) + 4096 + kLogOverhead;
  auto it = segments_.upper_bound(from.value());
  if (it != segments_.begin()) --it;
  for (; it != segments_.end() && Offset(it->first) < until; ++it) {
    const Segment& seg = *it->second;
    if (seg.next_offset() <= from) continue;
    auto r = seg.scan(std::max(from, seg.base_offset()), std::max<uint64_t>(max_entry, 16u << 20),
                      [this](Bytes entry) { replay_entry(entry); });
    if (!r) return r;
  }
  return {};
}

// Before recovery: loads the newest snapshot the shutdown lets us trust (at or below the
// recovery point after an unclean one) and replays the trusted segments after it, up to
// the first segment recovery will read, which replays the rest. Recovery rebuilds the
// txn index of each segment it reads, which needs the transactions open at the first
// one's base: so the snapshot is one at or below that base, and recovery replays its
// segments whole (as Kafka's recoverSegment does, below the log start offset too). With
// no snapshot file at all after a clean shutdown and nothing to recover, the log is
// taken to have no producer state (Kafka's shortcut for logs written before producer
// state existed).
Result<void, StorageError> Log::begin_producer_load(const LogOptions& options,
                                                    std::optional<Offset> recovery_base) {
  replaying_producers_ = recovery_base || !(snapshots_.empty() && options.clean_shutdown);
  if (!replaying_producers_) return {};
  Offset limit = options.clean_shutdown ? Offset(INT64_MAX) : options.recovery_point;
  if (recovery_base) limit = std::min(limit, *recovery_base);
  const Offset first = segments_.empty() ? Offset(0) : Offset(segments_.begin()->first);
  producers_end_ = std::max({load_newest_snapshot(limit, options.now_ms), first,
                             options.log_start_offset});
  if (auto r = replay_segments(producers_end_, recovery_base.value_or(Offset(INT64_MAX))); !r) {
    return r;
  }
  if (recovery_base && producers_end_ > *recovery_base) producers_end_ = *recovery_base;
  return {};
}

// After recovery: if recovery cut the log below the loaded snapshot, that snapshot
// describes data that is gone, so the state is rebuilt from an older one. Then stray
// snapshots go, and a snapshot is taken at the log end.
Result<void, StorageError> Log::finish_producer_load(const LogOptions& options) {
  if (replaying_producers_ && producers_end_ > next_offset_) {
    report_.notes.push_back("producer state rebuilt: the log ends at " +
                            std::to_string(next_offset_.value()) + ", below its snapshot at " +
                            std::to_string(producers_end_.value()));
    while (!snapshots_.empty() && *snapshots_.rbegin() > next_offset_.value()) {
      unlink_snapshot(*snapshots_.rbegin());
    }
    producers_end_ = std::max(load_newest_snapshot(next_offset_, options.now_ms), log_start_);
    if (auto r = replay_segments(producers_end_, Offset(INT64_MAX)); !r) return r;
  }
  replaying_producers_ = false;
  remove_stray_snapshots();
  if (next_offset_ > log_start_) return take_producer_snapshot(SnapshotSync::kNow);
  return {};
}

// Kafka's removeStraySnapshots, plus its removal of snapshots past the log end: keeps
// the snapshots at segment bases, and of the others only the newest, if it is at or
// above the last segment's base (a clean shutdown's snapshot at the log end).
void Log::remove_stray_snapshots() {
  std::optional<int64_t> newest_stray;
  for (int64_t at : std::vector<int64_t>(snapshots_.begin(), snapshots_.end())) {
    if (at > next_offset_.value()) {
      unlink_snapshot(at);
    } else if (!segments_.contains(at)) {
      if (newest_stray) unlink_snapshot(*newest_stray);
      newest_stray = at;
    }
  }
  if (newest_stray && *newest_stray < segments_.rbegin()->first) unlink_snapshot(*newest_stray);
}

}  // namespace strata::storage

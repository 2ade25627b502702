#include "storage/log.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <cerrno>

#include "record/batch_format.h"
#include "record/stamp.h"
#include "record/validate.h"
#include "storage/index_format.h"

namespace strata::storage {

using namespace strata::record;

namespace {

// "<20 digits>.log" -> base offset.
std::optional<int64_t> base_of(const std::string& name, const std::string& suffix) {
  if (!name.ends_with(suffix) || name.size() != size_t(kFileNameDigits) + suffix.size()) {
    return std::nullopt;
  }
  int64_t v = 0;
  for (int i = 0; i < kFileNameDigits; ++i) {
    if (name[size_t(i)] < '0' || name[size_t(i)] > '9') return std::nullopt;
    v = v * 10 + (name[size_t(i)] - '0');
  }
  return v;
}

// Asks the CPU for the header of a batch append() will reach later (guessing that
// batches are alike in size), so its cache misses overlap the work on earlier ones:
// 1 KiB batches otherwise stall on every header. A hint only; nothing outside `batches`.
void prefetch_header(Bytes batches, size_t pos) {
  if (pos + kHeaderSize > batches.size()) return;
  __builtin_prefetch(batches.data() + pos);
  __builtin_prefetch(batches.data() + pos + kHeaderSize - 1);  // the 61 bytes may span two lines
}

}  // namespace

Log::Log(std::string dir, const LogOptions& options)
    : dir_(std::move(dir)),
      config_(options.config),
      sync_(options.sync),
      checkpointed_hw_(options.high_watermark),
      offload_(options.offload) {}

Log::~Log() = default;

void Log::set_config(const LogConfig& config) { check_owner(); config_ = config; }

Result<std::unique_ptr<Log>, StorageError> Log::open(const std::string& dir,
                                                     const LogOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(storage_error(StorageErrc::kIo, "mkdir " + dir + ": " + ec.message()));
  std::unique_ptr<Log> log(new Log(dir, options));
  if (auto r = log->load(options); !r) return fail(r.error());
  return log;
}

// Kafka's LogLoader in brief: drop leftovers of interrupted deletes and cleanings, open
// every segment, recover from the recovery point on (or everything whose indexes fail
// their sanity check), and start an empty segment if there is none.
Result<void, StorageError> Log::load(const LogOptions& options) {
  auto names = list_directory(dir_);
  if (!names) return fail(names.error());
  auto swapped = complete_swaps(*names);
  if (!swapped) return fail(swapped.error());
  if (*swapped) {  // files were renamed or deleted: list again
    names = list_directory(dir_);
    if (!names) return fail(names.error());
  }
  std::vector<int64_t> bases;
  for (const std::string& name : *names) {
    if (name.ends_with(kDeletedSuffix) || name.ends_with(kCleanedSuffix) ||
        name.ends_with(".tmp")) {
      ::unlink((dir_ + "/" + name).c_str());
    } else if (auto base = base_of(name, kLogSuffix)) {
      bases.push_back(*base);
    } else if (auto at = base_of(name, kSnapshotSuffix)) {
      snapshots_.insert(*at);
    }
  }
  std::sort(bases.begin(), bases.end());
  for (size_t i = 0; i < bases.size(); ++i) {
    const bool active = i + 1 == bases.size();
    auto s = Segment::open(dir_, Offset(bases[i]), config_, active, options.now_ms);
    if (!s) return fail(s.error());
    segments_.emplace(bases[i], std::move(*s));
  }
  // Kafka's rule: after an unclean shutdown, recover every segment from the one holding
  // the recovery point on (never trusting what an unflushed segment's index says);
  // after a clean one, only segments whose indexes are missing or fail their checks.
  size_t first_unflushed = segments_.size();
  size_t i = 0;
  for (const auto& [base, seg] : segments_) {
    const auto next = std::next(segments_.find(base));
    const bool holds_recovery_point =
        next == segments_.end() || Offset(next->first) > options.recovery_point;
    const bool unflushed = !options.clean_shutdown && holds_recovery_point;
    const bool bad_index = seg->needs_recovery() || !seg->sanity_check();
    if ((unflushed || bad_index) && i < first_unflushed) first_unflushed = i;
    ++i;
  }
  const bool recovered = first_unflushed < segments_.size();
  std::optional<Offset> recovery_base;
  if (recovered) recovery_base = Offset(std::next(segments_.begin(), long(first_unflushed))->first);
  // Producer state: a snapshot, then the trusted segments after it; recovery replays the rest.
  if (auto p = begin_producer_load(options, recovery_base); !p) return p;
  if (recovered) {
    if (auto r = recover_from(first_unflushed); !r) return r;
  }
  if (segments_.empty()) {
    const Offset base = std::max(options.log_start_offset, options.recovery_point);
    auto s = Segment::create(dir_, base, config_, options.now_ms);
    if (!s) return fail(s.error());
    segments_.emplace(base.value(), std::move(*s));
  }
  next_offset_ = active().next_offset();
  log_start_ = std::max(options.log_start_offset, Offset(segments_.begin()->first));
  if (log_start_ > next_offset_) log_start_ = next_offset_;
  durable_->set(std::min(next_offset_, std::max(options.recovery_point, log_start_)).value());
  // After a clean shutdown everything was flushed; recovery flushes what it kept.
  if (options.clean_shutdown || recovered) durable_->set(next_offset_.value());
  last_sync_request_ms_ = options.now_ms;
  sync_requested_ = recovery_point();
  if (auto e = load_epochs(); !e) return e;
  if (auto e = merge_recovered_epochs(); !e) return e;
  if (auto p = finish_producer_load(options); !p) return p;
  last_producer_expiry_ms_ = options.now_ms;
  if (recovery_point() < next_offset_) dirty_.push_back({active().log_file(), next_offset_});
  return {};
}

// Recovers segments from index `first` on. A segment whose tail was cut ends the log:
// every segment after it is deleted (its data follows a hole). Recovered data is then
// flushed, so the recovery point can move to the log end.
Result<void, StorageError> Log::recover_from(size_t first) {
  auto it = std::next(segments_.begin(), long(first));
  bool cut = false;
  while (it != segments_.end()) {
    Segment& seg = *it->second;
    if (cut) {
      report_.notes.push_back("deleted segment " + seg.log_path() + " after a truncated one");
      seg.remove_files();
      it = segments_.erase(it);
      ++report_.segments_deleted;
      continue;
    }
    std::vector<AbortedTxn> aborted;  // the segment's txn index, rebuilt as it replays
    const EntryVisitor replay = replay_visitor(&aborted);
    auto stats = seg.recover(config_, [this, &replay](Bytes entry) {
      note_recovered_epoch(entry);
      if (replay) replay(entry);
    });
    if (!stats) return fail(stats.error());
    for (const AbortedTxn& txn : aborted) {
      if (auto a = seg.txn_index().append(txn); !a) return a;
    }
    ++report_.segments_recovered;
    if (stats->truncated_bytes > 0) {
      report_.bytes_truncated += stats->truncated_bytes;
      report_.notes.push_back(seg.log_path() + ": kept " + std::to_string(stats->valid_bytes) +
                              " bytes in " + std::to_string(stats->batches) +
                              " batches, truncated " + std::to_string(stats->truncated_bytes) +
                              " bytes (" + stats->reason + ")");
      cut = true;
    }
    if (auto f = seg.flush(); !f) return f;
    ++it;
  }
  // Recovered segments that are not the last go read-only: final entries, trimmed indexes.
  for (auto s = segments_.begin(); s != segments_.end(); ++s) {
    if (std::next(s) != segments_.end() && std::distance(segments_.begin(), s) >= long(first)) {
      if (auto r = s->second->on_become_inactive(); !r) return r;
    }
  }
  return {};
}

Result<void, StorageError> Log::roll(int64_t now_ms) {
  Segment& old = active();
  if (auto r = old.on_become_inactive(); !r) return r;
  auto s = Segment::create(dir_, next_offset_, config_, now_ms);
  if (!s) return fail(s.error());
  segments_.emplace(next_offset_.value(), std::move(*s));
  // Kafka's snapshot at the new base: recovering this segment starts from it.
  return take_producer_snapshot(SnapshotSync::kLater);
}

Result<void, StorageError> Log::check_writable() const {
  if (closed_) return fail(storage_error(StorageErrc::kClosed, "append to closed log " + dir_));
  if (sync_failed_->load()) {
    return fail(storage_error(StorageErrc::kIo, "an fdatasync failed earlier; log offline: " + dir_));
  }
  return {};
}

Result<AppendResult, StorageError> Log::append(MutableBytes batches, LeaderEpoch epoch,
                                               int64_t now_ms, AppendOrigin origin) {
  check_owner();
  if (auto w = check_writable(); !w) return fail(w.error());
  const bool log_append_time = config_.message_timestamp_type == "LogAppendTime";
  std::vector<BatchInfo>& infos = append_infos_;
  infos.clear();
  producer_append_.clear();
  bool epochs_changed = false;
  AppendResult result;
  result.first_offset = next_offset_;
  Offset next = next_offset_;
  for (size_t pos = 0; pos < batches.size();) {
    auto view = frame_batch(Bytes(batches).subspan(pos));
    if (!view) return fail(storage_error(StorageErrc::kInvalidBatch, "unframed batch in append"));
    if (view->size() > size_t(config_.max_message_bytes)) {  // Kafka counts the whole batch
      return fail(storage_error(StorageErrc::kMessageTooLarge, "batch over max.message.bytes"));
    }
    if (view->is_control()) {
      return fail(storage_error(StorageErrc::kInvalidRecord, "clients may not write control batches"));
    }
    const int32_t last_delta = view->last_offset_delta();
    // Kafka's hasProducerId: idempotent or transactional data. One compare for everyone else.
    if (view->producer_id().value() >= 0) {
      IdempotentBatch b = IdempotentBatch::of(*view);
      if (log_append_time) b.max_timestamp = now_ms;  // as the batch will be written
      const ProducerCheck c =
          producer_append_.stage(producers_, b, Offset(next.value() + last_delta), origin);
      if (c.duplicate || c.error != ProducerErrc::kNone) return producer_outcome(c, b);
    }
    MutableBytes batch = batches.subspan(pos, view->size());
    prefetch_header(batches, pos + 2 * batch.size());
    stamp_batch(batch, next, epoch);
    if (log_append_time) set_log_append_time(batch, TimestampMs(now_ms));
    const int64_t max_ts = log_append_time ? now_ms : view->max_timestamp();
    const Offset last(next.value() + last_delta);
    if (epochs_.empty() || epoch > epochs_.back().epoch) {
      epochs_.push_back({epoch, next});
      epochs_changed = true;
    }
    infos.push_back(BatchInfo{last, max_ts, uint32_t(batch.size())});
    result.max_timestamp = std::max(result.max_timestamp, max_ts);
    next = Offset(last.value() + 1);
    pos += batch.size();
  }
  if (infos.empty()) return result;
  if (auto w = write_batches(batches, infos, next, result.max_timestamp, now_ms); !w) return fail(w.error());
  if (!producer_append_.empty()) producer_append_.commit(producers_);
  // A new leader epoch starts here: once per epoch, written offloaded.
  if (epochs_changed) {
    if (auto e = save_epochs(epochs_.back().start_offset); !e) return fail(e.error());
  }
  result.last_offset = Offset(next.value() - 1);
  result.batches = infos.size();
  if (infos.capacity() > kAppendInfosKeptMax) infos = {};
  if (log_append_time) result.log_append_time = now_ms;
  note_written();
  return result;
}

Result<void, StorageError> Log::write_batches(Bytes batches, std::span<const BatchInfo> infos, Offset next,
                                             int64_t max_timestamp, int64_t now_ms) {
  if (active().should_roll(batches.size(), Offset(next.value() - 1), max_timestamp, now_ms, config_)) {
    if (auto r = roll(now_ms); !r) return fail(r.error());
  }
  if (auto r = active().append(batches, infos); !r) return fail(r.error());
  next_offset_ = next;
  return {};
}

const Segment* Log::segment_for(Offset offset) const {
  auto it = segments_.upper_bound(offset.value());
  if (it == segments_.begin()) return nullptr;
  return std::prev(it)->second.get();
}

Result<std::optional<FileRegion>, StorageError> Log::read(Offset start, uint64_t max_bytes,
                                                          bool min_one_batch,
                                                          std::optional<Offset> max_offset) const {
  check_owner();
  using Region = std::optional<FileRegion>;
  if (start < log_start_ || start > next_offset_) {
    return fail(storage_error(StorageErrc::kOffsetOutOfRange,
                              "offset " + std::to_string(start.value()) + " outside [" +
                                  std::to_string(log_start_.value()) + ", " +
                                  std::to_string(next_offset_.value()) + "]"));
  }
  const Offset limit = max_offset ? std::min(*max_offset, next_offset_) : next_offset_;
  if (start >= limit) return Region{};
  // From the segment holding `start`; a segment can end before its successor begins
  // (compaction gaps), so an empty read moves on to the next one.
  for (auto it = std::prev(segments_.upper_bound(start.value())); it != segments_.end(); ++it) {
    const Segment& seg = *it->second;
    if (Offset(it->first) >= limit) break;
    uint64_t max_position = seg.size();
    if (limit < seg.next_offset()) {
      // The batch holding `limit` starts at it (limits fall on batch boundaries).
      auto bound = seg.find_batch(limit);
      if (!bound) return fail(bound.error());
      if (*bound) max_position = (*bound)->position;
    }
    auto region = seg.read(std::max(start, Offset(it->first)), max_bytes, min_one_batch,
                           max_position);
    if (!region || *region) return region;
  }
  return Region{};
}

Result<std::optional<std::pair<Offset, int64_t>>, StorageError> Log::offset_for_timestamp(
    int64_t ts) const {
  check_owner();
  for (const auto& [base, seg] : segments_) {
    if (seg->max_timestamp() < ts) continue;
    auto found = seg->find_by_timestamp(ts, log_start_);
    if (!found) return found;
    if (*found) return found;
  }
  return std::optional<std::pair<Offset, int64_t>>{};
}

std::optional<std::pair<Offset, int64_t>> Log::max_timestamp_offset() const {
  check_owner();
  std::optional<std::pair<Offset, int64_t>> best;
  for (const auto& [base, seg] : segments_) {
    if (seg->empty()) continue;
    if (!best || seg->max_timestamp() > best->second) {
      best = std::pair{seg->offset_of_max_timestamp(), seg->max_timestamp()};
    }
  }
  return best;
}

uint64_t Log::size_bytes() const {
  check_owner();
  uint64_t total = 0;
  for (const auto& [base, seg] : segments_) total += seg->size();
  return total;
}

std::vector<Offset> Log::segment_bases() const {
  check_owner();
  std::vector<Offset> out;
  for (const auto& [base, seg] : segments_) out.emplace_back(base);
  return out;
}

}  // namespace strata::storage

#include "storage/segment.h"

#include <unistd.h>

#include <algorithm>
#include <cassert>

#include "storage/index_format.h"
#include "storage/segment_scan.h"

namespace strata::storage {

namespace {
std::string path_of(const std::string& dir, Offset base, const char* suffix) {
  return dir + "/" + segment_file_name(base, suffix);
}
}  // namespace

Segment::Segment(std::string dir, Offset base, std::shared_ptr<File> log, OffsetIndex offsets,
                 TimeIndex times, uint64_t size, int64_t created_ms)
    : dir_(std::move(dir)),
      base_(base),
      log_(std::move(log)),
      offsets_(std::move(offsets)),
      times_(std::move(times)),
      size_(size),
      next_offset_(base),
      offset_of_max_timestamp_(base),
      created_ms_(created_ms) {}

Segment::~Segment() = default;

std::string Segment::log_path() const { return path_of(dir_, base_, kLogSuffix) + suffix_; }

Result<std::unique_ptr<Segment>, StorageError> Segment::create(const std::string& dir, Offset base,
                                                               const LogConfig& config,
                                                               int64_t now_ms,
                                                               const std::string& suffix) {
  auto log = File::open(path_of(dir, base, kLogSuffix) + suffix, true);
  if (!log) return fail(log.error());
  // Truncate only a leftover: on ext4 truncating a file makes its close start writeback.
  auto existing = (*log)->size();
  if (!existing) return fail(existing.error());
  if (*existing > 0) {
    if (auto t = (*log)->truncate(0); !t) return fail(t.error());
  }
  auto offsets = OffsetIndex::open(path_of(dir, base, kIndexSuffix) + suffix, base,
                                   size_t(config.segment_index_bytes), true);
  if (!offsets) return fail(offsets.error());
  offsets->clear();
  auto times = TimeIndex::open(path_of(dir, base, kTimeIndexSuffix) + suffix, base,
                               size_t(config.segment_index_bytes), true);
  if (!times) return fail(times.error());
  times->clear();
  auto txns = TxnIndex::create(path_of(dir, base, kTxnIndexSuffix) + suffix, base);
  if (!txns) return fail(txns.error());
  std::unique_ptr<Segment> s(new Segment(dir, base, std::move(*log), std::move(*offsets),
                                         std::move(*times), 0, now_ms));
  s->txns_ = std::move(*txns);
  s->index_interval_bytes_ = config.index_interval_bytes;
  s->suffix_ = suffix;
  return s;
}

Result<std::unique_ptr<Segment>, StorageError> Segment::open(const std::string& dir, Offset base,
                                                             const LogConfig& config, bool active,
                                                             int64_t now_ms) {
  auto log = File::open(path_of(dir, base, kLogSuffix), false);
  if (!log) return fail(log.error());
  auto size = (*log)->size();
  if (!size) return fail(size.error());
  // An index that is missing is rebuilt by recovery (Kafka does the same): open it
  // writable, which creates it, and say so.
  const std::string index_path = path_of(dir, base, kIndexSuffix);
  const std::string time_path = path_of(dir, base, kTimeIndexSuffix);
  const bool missing = ::access(index_path.c_str(), F_OK) != 0 || ::access(time_path.c_str(), F_OK) != 0;
  const bool writable = active || missing;
  auto offsets = OffsetIndex::open(index_path, base, size_t(config.segment_index_bytes), writable);
  if (!offsets) return fail(offsets.error());
  auto times = TimeIndex::open(time_path, base, size_t(config.segment_index_bytes), writable);
  if (!times) return fail(times.error());
  auto txns = TxnIndex::open(path_of(dir, base, kTxnIndexSuffix), base, *size);
  if (!txns) return fail(txns.error());
  std::unique_ptr<Segment> s(new Segment(dir, base, std::move(*log), std::move(*offsets),
                                         std::move(*times), *size, now_ms));
  s->txns_ = std::move(*txns);
  s->index_interval_bytes_ = config.index_interval_bytes;
  s->needs_recovery_ = missing;
  s->writable_indexes_ = writable;
  if (auto t = s->load_tail_state(); !t) return fail(t.error());
  return s;
}

// Recovery rebuilds the indexes, so they must be writable (older segments map them
// read-only); the caller trims them again if the segment is not the active one.
Result<void, StorageError> Segment::make_indexes_writable(const LogConfig& config) {
  if (writable_indexes_) return {};
  auto offsets = OffsetIndex::open(offsets_.path(), base_, size_t(config.segment_index_bytes), true);
  if (!offsets) return fail(offsets.error());
  auto times = TimeIndex::open(times_.path(), base_, size_t(config.segment_index_bytes), true);
  if (!times) return fail(times.error());
  offsets_ = std::move(*offsets);
  times_ = std::move(*times);
  writable_indexes_ = true;
  return {};
}

// For a segment opened without recovery: the next offset comes from the last index
// entry plus a short scan to the end; the max timestamp from the time index (Kafka's
// lazy maxTimestampAndOffsetSoFar), refined by the batches the scan passes.
Result<void, StorageError> Segment::load_tail_state() {
  const TimestampOffset last_time = times_.last_entry();
  max_timestamp_ = last_time.timestamp;
  offset_of_max_timestamp_ = last_time.offset;
  uint64_t position = offsets_.last_entry().position;
  next_offset_ = base_;
  while (position < size_) {
    auto loc = read_location(*log_, position, size_);
    if (!loc) return fail(loc.error());
    if (!*loc) break;
    next_offset_ = Offset((*loc)->last_offset.value() + 1);
    if ((*loc)->max_timestamp > max_timestamp_) {
      max_timestamp_ = (*loc)->max_timestamp;
      offset_of_max_timestamp_ = (*loc)->last_offset;
    }
    if (rolling_timestamp_ < 0 && position == 0) rolling_timestamp_ = (*loc)->max_timestamp;
    position += (*loc)->size;
  }
  if (rolling_timestamp_ < 0 && size_ > 0) {
    auto first = read_location(*log_, 0, size_);
    if (first && *first) rolling_timestamp_ = (*first)->max_timestamp;
  }
  return {};
}

// Kafka's LogSegment.append rule, per batch: an index entry for this batch when more
// than index.interval.bytes were appended since the last entry.
void Segment::index_batch(const BatchInfo& info, uint64_t position, const LogConfig*) {
  if (info.max_timestamp > max_timestamp_) {
    max_timestamp_ = info.max_timestamp;
    offset_of_max_timestamp_ = info.last_offset;
  }
  if (bytes_since_index_entry_ > uint64_t(index_interval_bytes_)) {
    // A full index makes the log roll before the next append; an error here cannot
    // lose data, only precision of lookups, so it is not fatal.
    (void)offsets_.append(info.last_offset, uint32_t(position));
    (void)times_.maybe_append(max_timestamp_, offset_of_max_timestamp_);
    bytes_since_index_entry_ = 0;
  }
  bytes_since_index_entry_ += info.size;
}

Result<void, StorageError> Segment::append(Bytes batches, std::span<const BatchInfo> infos) {
  if (batches.empty()) return {};
  if (auto w = log_->pwrite_all(batches, size_); !w) return w;
  uint64_t position = size_;
  for (const BatchInfo& info : infos) {
    if (rolling_timestamp_ < 0 && position == 0) rolling_timestamp_ = info.max_timestamp;
    index_batch(info, position, nullptr);
    position += info.size;
    next_offset_ = Offset(info.last_offset.value() + 1);
  }
  assert(position == size_ + batches.size());
  size_ = position;
  return {};
}

bool Segment::should_roll(uint64_t bytes, Offset last_offset, int64_t max_timestamp,
                          int64_t now_ms, const LogConfig& config) const {
  if (size_ == 0) return false;
  if (size_ + bytes > uint64_t(config.segment_bytes)) return true;
  if (offsets_.full() || times_.full()) return true;
  if (last_offset.value() - base_.value() > INT32_MAX) return true;  // relative offset overflow
  // segment.ms counts from the first batch's max timestamp (or the creation time).
  const int64_t since = rolling_timestamp_ > 0 ? std::max(max_timestamp, now_ms) - rolling_timestamp_
                                               : now_ms - created_ms_;
  return since > config.segment_ms;
}

Result<std::optional<BatchLocation>, StorageError> Segment::find_batch(Offset target) const {
  uint64_t position = offsets_.lookup(target).position;
  while (position < size_) {
    auto loc = read_location(*log_, position, size_);
    if (!loc) return fail(loc.error());
    if (!*loc) break;
    if ((*loc)->last_offset >= target) return loc;
    position += (*loc)->size;
  }
  return std::optional<BatchLocation>{};
}

Result<uint64_t, StorageError> Segment::truncate_to(Offset offset) {
  auto loc = find_batch(offset);
  if (!loc) return fail(loc.error());
  if (!*loc) return uint64_t(0);  // every batch ends below `offset`
  const uint64_t keep = (*loc)->position;
  const uint64_t removed = size_ - keep;
  if (auto t = log_->truncate(keep); !t) return fail(t.error());
  offsets_.truncate_to(offset);
  times_.truncate_to(offset);
  if (auto t = txns_->truncate_to(offset); !t) return fail(t.error());
  size_ = keep;
  if (keep == 0) rolling_timestamp_ = -1;
  bytes_since_index_entry_ = 0;
  if (auto r = load_tail_state(); !r) return fail(r.error());
  return removed;
}

Result<std::optional<FileRegion>, StorageError> Segment::read(Offset start, uint64_t max_bytes,
                                                              bool min_one_batch,
                                                              uint64_t max_position) const {
  auto first = find_batch(start);
  if (!first) return fail(first.error());
  if (!*first || (*first)->position >= max_position) return std::optional<FileRegion>{};
  const uint64_t begin = (*first)->position;
  const uint64_t limit = std::min(max_position, size_);
  // Whole batches only: extend batch by batch while they fit in max_bytes, walking the
  // headers from the last indexed batch that surely fits.
  const uint64_t reach = max_bytes < limit - begin ? begin + max_bytes : limit;
  auto from = indexed_boundary(begin, reach);
  if (!from) return fail(from.error());
  uint64_t end = *from;
  while (end < limit) {
    auto loc = read_location(*log_, end, size_);
    if (!loc) return fail(loc.error());
    if (!*loc || end + (*loc)->size > limit) break;
    const bool first_batch = end == begin;
    if (end + (*loc)->size - begin > max_bytes && !(first_batch && min_one_batch)) break;
    end += (*loc)->size;
  }
  if (end == begin) return std::optional<FileRegion>{};
  return std::optional<FileRegion>{FileRegion{log_, begin, end - begin}};
}

// Every batch between `begin` and the start of a batch at or before `reach` lies whole
// inside [begin, reach], so a read may take them without reading their headers. The
// offset index names such a batch within index.interval.bytes of `reach`. Its entry is
// checked against the batch's header (a damaged index is not trusted: `begin` then).
Result<uint64_t, StorageError> Segment::indexed_boundary(uint64_t begin, uint64_t reach) const {
  const OffsetPosition entry = offsets_.lookup_position(reach);
  if (entry.position <= begin) return begin;
  auto loc = read_location(*log_, entry.position, size_);
  if (!loc) return fail(loc.error());
  if (!*loc || (*loc)->last_offset != entry.offset) return begin;
  return uint64_t(entry.position);
}

uint64_t Segment::offset_index_bytes() const { return offsets_.entries() * kOffsetIndexEntrySize; }
uint64_t Segment::time_index_bytes() const { return times_.entries() * kTimeIndexEntrySize; }

Result<void, StorageError> Segment::sanity_check() const {
  if (auto r = offsets_.sanity_check(); !r) return r;
  if (auto r = times_.sanity_check(); !r) return r;
  return txns_->sanity_check(next_offset_);
}

Result<void, StorageError> Segment::on_become_inactive() {
  if (auto r = times_.maybe_append(max_timestamp_, offset_of_max_timestamp_, true); !r) return r;
  if (auto r = offsets_.trim(); !r) return r;
  return times_.trim();
}

Result<void, StorageError> Segment::flush() {
  if (auto r = log_->datasync(); !r) return r;
  if (auto r = offsets_.flush(); !r) return r;
  if (auto r = times_.flush(); !r) return r;
  return txns_->flush();
}

Result<void, StorageError> Segment::rename_all(const std::string& suffix) {
  const std::string log_from = log_path();
  if (auto r = rename_file(log_from, path_of(dir_, base_, kLogSuffix) + suffix); !r) return r;
  if (auto r = offsets_.rename(path_of(dir_, base_, kIndexSuffix) + suffix); !r) return r;
  if (auto r = times_.rename(path_of(dir_, base_, kTimeIndexSuffix) + suffix); !r) return r;
  if (auto r = txns_->rename(path_of(dir_, base_, kTxnIndexSuffix) + suffix); !r) return r;
  suffix_ = suffix;
  return {};
}

void Segment::remove_files() {
  ::unlink(log_path().c_str());
  ::unlink(offsets_.path().c_str());
  ::unlink(times_.path().c_str());
  txns_->remove_file();
}

}  // namespace strata::storage

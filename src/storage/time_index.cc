// Kafka's TimeIndex (storage/internals/log/TimeIndex.java), entry for entry.
#include "storage/time_index.h"

#include <cassert>
#include <cerrno>
#include <cstdint>
#include <limits>
#include <optional>

#include "common/bytes.h"
#include "storage/index_format.h"
#include "storage/mmap_index.h"

namespace strata::storage {

struct TimeIndex::Impl {
  MmapIndex file;
  Offset base;

  int64_t timestamp(size_t slot) const { return int64_t(load_be64(file.slot(slot))); }
  int32_t relative_offset(size_t slot) const { return int32_t(load_be32(file.slot(slot) + 8)); }
  int64_t offset(size_t slot) const { return base.value() + relative_offset(slot); }
  TimestampOffset entry(size_t slot) const { return {timestamp(slot), Offset(offset(slot))}; }
};

TimeIndex::TimeIndex(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TimeIndex::TimeIndex(TimeIndex&&) noexcept = default;
TimeIndex& TimeIndex::operator=(TimeIndex&&) noexcept = default;
TimeIndex::~TimeIndex() = default;

Result<TimeIndex, StorageError> TimeIndex::open(const std::string& path, Offset base_offset,
                                                size_t max_index_bytes, bool writable) {
  auto file = MmapIndex::open(path, kTimeIndexEntrySize, max_index_bytes, writable);
  if (!file) return fail(file.error());
  return TimeIndex(std::make_unique<Impl>(Impl{std::move(*file), base_offset}));
}

Offset TimeIndex::base_offset() const {
  return impl_->base;
}
size_t TimeIndex::entries() const {
  return impl_->file.entries();
}
// Kafka keeps the last slot for the entry the roll adds (maybe_append's skip_full_check).
bool TimeIndex::full() const {
  return impl_->file.entries() + 1 >= impl_->file.max_entries();
}
const std::string& TimeIndex::path() const {
  return impl_->file.path();
}

TimestampOffset TimeIndex::last_entry() const {
  const size_t n = impl_->file.entries();
  if (n == 0) return {kNoTimestamp.value(), impl_->base};
  return impl_->entry(n - 1);
}

Result<void, StorageError> TimeIndex::maybe_append(int64_t timestamp, Offset offset,
                                                   bool skip_full_check) {
  MmapIndex& f = impl_->file;
  if (!skip_full_check && full()) {
    return fail(storage_error(StorageErrc::kIndexFull, "Attempt to append to a full time index (size = " +
                                                           std::to_string(f.entries()) + ")."));
  }
  const TimestampOffset last = last_entry();
  // An equal offset is no error: the roll and close paths re-offer the last entry.
  if (f.entries() != 0 && offset < last.offset) {
    return fail(
        storage_error(StorageErrc::kIndexOrder,
                      "Attempt to append an offset (" + std::to_string(offset.value()) +
                          ") to slot " + std::to_string(f.entries()) + " no larger than the last offset appended (" +
                          std::to_string(last.offset.value()) + ") to " + f.absolute_path()));
  }
  if (f.entries() != 0 && timestamp < last.timestamp) {
    return fail(storage_error(StorageErrc::kIndexOrder,
                              "Attempt to append a timestamp (" + std::to_string(timestamp) +
                                  ") to slot " + std::to_string(f.entries()) +
                                  " no larger than the last timestamp appended (" +
                                  std::to_string(last.timestamp) + ") to " + f.absolute_path()));
  }
  // Only a timestamp above the last one (-1 when empty: v0 batches add nothing) is indexed.
  if (timestamp <= last.timestamp) return {};
  const int64_t relative = offset.value() - impl_->base.value();
  if (relative < 0 || relative > std::numeric_limits<int32_t>::max()) {
    return fail(storage_error(StorageErrc::kOffsetOverflow,
                              "Integer overflow for offset: " + std::to_string(offset.value()) +
                                  " (" + f.absolute_path() + ")"));
  }
  if (!f.writable() || f.entries() >= f.max_entries()) {
    // Kafka's mmap would throw here (read-only or overflowing buffer).
    return fail(storage_error(StorageErrc::kIndexFull,
                              std::string(f.writable() ? "Attempt to append to a full"
                                                       : "Attempt to append to a read-only") +
                                  " time index (size = " + std::to_string(f.entries()) + ") " + f.absolute_path()));
  }
  uint8_t* slot = f.next_slot();
  if (slot == nullptr) {
    errno = ENOSPC;  // what the file system would say to a write(2); a disk failure
    return fail(io_error("extend the time index " + f.absolute_path()));
  }
  store_be64(slot, uint64_t(timestamp));
  store_be32(slot + 8, uint32_t(int32_t(relative)));
  f.commit_append();
  return {};
}

TimestampOffset TimeIndex::entry(size_t n) const {
  assert(n < entries());
  return impl_->entry(n);
}

TimestampOffset TimeIndex::lookup(int64_t target) const {
  const auto slot =
      impl_->file.largest_lower_bound(target, [this](size_t n) { return impl_->timestamp(n); });
  if (!slot) return {kNoTimestamp.value(), impl_->base};
  return impl_->entry(*slot);
}

// As OffsetIndex::truncate_to, searching the entries by offset.
void TimeIndex::truncate_to(Offset target) {
  const auto slot = impl_->file.largest_lower_bound(target.value(),
                                                    [this](size_t n) { return impl_->offset(n); });
  size_t keep = 0;
  if (slot) keep = impl_->offset(*slot) == target.value() ? *slot : *slot + 1;
  impl_->file.truncate_to_entries(keep);
}

void TimeIndex::clear() {
  impl_->file.truncate_to_entries(0);
}

Result<void, StorageError> TimeIndex::sanity_check() const {
  const MmapIndex& f = impl_->file;
  const TimestampOffset last = last_entry();
  const std::string prefix = "Corrupt time index found, time index file (" + f.absolute_path() +
                             ") has non-zero size but the last ";
  if (f.entries() != 0 && last.timestamp < impl_->timestamp(0)) {
    return fail(storage_error(StorageErrc::kCorruptIndex,
                              prefix + "timestamp is " + std::to_string(last.timestamp) +
                                  " which is less than the first timestamp " +
                                  std::to_string(impl_->timestamp(0))));
  }
  if (f.entries() != 0 && last.offset < impl_->base) {
    return fail(storage_error(StorageErrc::kCorruptIndex,
                              prefix + "offset is " + std::to_string(last.offset.value()) +
                                  " which is less than the first offset " +
                                  std::to_string(impl_->base.value())));
  }
  if (f.checked_length() % kTimeIndexEntrySize != 0) {
    return fail(storage_error(StorageErrc::kCorruptIndex,
                              "Time index file " + f.absolute_path() + " is corrupt, found " +
                                  std::to_string(f.checked_length()) +
                                  " bytes which is neither positive nor a multiple of " +
                                  std::to_string(kTimeIndexEntrySize) + "."));
  }
  return {};
}

Result<void, StorageError> TimeIndex::trim() {
  return impl_->file.trim();
}
Result<void, StorageError> TimeIndex::flush() {
  return impl_->file.flush();
}
Result<void, StorageError> TimeIndex::rename(const std::string& new_path) {
  return impl_->file.rename(new_path);
}

}  // namespace strata::storage

// Kafka's OffsetIndex (storage/internals/log/OffsetIndex.java), entry for entry.
#include "storage/offset_index.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdint>
#include <limits>

#include "common/bytes.h"
#include "storage/index_format.h"
#include "storage/mmap_index.h"

namespace strata::storage {

struct OffsetIndex::Impl {
  MmapIndex file;
  Offset base;

  int32_t relative_offset(size_t slot) const { return int32_t(load_be32(file.slot(slot))); }
  uint32_t position(size_t slot) const { return load_be32(file.slot(slot) + 4); }
  int64_t offset(size_t slot) const { return base.value() + relative_offset(slot); }
  OffsetPosition entry(size_t slot) const { return {Offset(offset(slot)), position(slot)}; }
  std::optional<size_t> slot_for(Offset target) const {
    return file.largest_lower_bound(target.value(), [this](size_t n) { return offset(n); });
  }
};

OffsetIndex::OffsetIndex(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OffsetIndex::OffsetIndex(OffsetIndex&&) noexcept = default;
OffsetIndex& OffsetIndex::operator=(OffsetIndex&&) noexcept = default;
OffsetIndex::~OffsetIndex() = default;

Result<OffsetIndex, StorageError> OffsetIndex::open(const std::string& path, Offset base_offset,
                                                    size_t max_index_bytes, bool writable) {
  auto file = MmapIndex::open(path, kOffsetIndexEntrySize, max_index_bytes, writable);
  if (!file) return fail(file.error());
  return OffsetIndex(std::make_unique<Impl>(Impl{std::move(*file), base_offset}));
}

Offset OffsetIndex::base_offset() const {
  return impl_->base;
}
size_t OffsetIndex::entries() const {
  return impl_->file.entries();
}
bool OffsetIndex::full() const {
  return impl_->file.entries() >= impl_->file.max_entries();
}
const std::string& OffsetIndex::path() const {
  return impl_->file.path();
}

OffsetPosition OffsetIndex::last_entry() const {
  const size_t n = impl_->file.entries();
  if (n == 0) return {impl_->base, 0};
  return impl_->entry(n - 1);
}

Result<void, StorageError> OffsetIndex::append(Offset offset, uint32_t position) {
  MmapIndex& f = impl_->file;
  if (!f.writable()) {
    return fail(storage_error(StorageErrc::kIndexFull,
                              "Attempt to append to a read-only index " + f.absolute_path()));
  }
  if (full()) {
    return fail(storage_error(
        StorageErrc::kIndexFull,
        "Attempt to append to a full index (size = " + std::to_string(f.entries()) + ")."));
  }
  const OffsetPosition last = last_entry();
  if (f.entries() > 0 && offset <= last.offset) {
    return fail(storage_error(
        StorageErrc::kIndexOrder,
        "Attempt to append an offset " + std::to_string(offset.value()) + " to position " +
            std::to_string(f.entries()) + " no larger than the last offset appended (" +
            std::to_string(last.offset.value()) + ") to " + f.absolute_path()));
  }
  const int64_t relative = offset.value() - impl_->base.value();
  if (relative < 0 || relative > std::numeric_limits<int32_t>::max()) {
    return fail(storage_error(StorageErrc::kOffsetOverflow,
                              "Integer overflow for offset: " + std::to_string(offset.value()) +
                                  " (" + f.absolute_path() + ")"));
  }
  // Kafka stores positions as int32 and has no such check: its segments cannot pass 2 GiB.
  if (position > uint32_t(std::numeric_limits<int32_t>::max())) {
    return fail(storage_error(StorageErrc::kOffsetOverflow, "Position " + std::to_string(position) +
                                                                " does not fit an int32 (" +
                                                                f.absolute_path() + ")"));
  }
  if (f.entries() > 0 && position < last.position) {
    return fail(storage_error(StorageErrc::kIndexOrder,
                              "Attempt to append a position " + std::to_string(position) +
                                  " to slot " + std::to_string(f.entries()) +
                                  " below the last position appended (" +
                                  std::to_string(last.position) + ") to " + f.absolute_path()));
  }
  uint8_t* slot = f.next_slot();
  if (slot == nullptr) {
    errno = ENOSPC;  // what the file system would say to a write(2); a disk failure
    return fail(io_error("extend the offset index " + f.absolute_path()));
  }
  store_be32(slot, uint32_t(int32_t(relative)));
  store_be32(slot + 4, position);
  f.commit_append();
  return {};
}

OffsetPosition OffsetIndex::entry(size_t n) const {
  assert(n < entries());
  return impl_->entry(n);
}

OffsetPosition OffsetIndex::lookup(Offset target) const {
  const auto slot = impl_->slot_for(target);
  if (!slot) return {impl_->base, 0};
  return impl_->entry(*slot);
}

OffsetPosition OffsetIndex::lookup_position(uint64_t position) const {
  const int64_t target = int64_t(std::min<uint64_t>(position, uint64_t(INT64_MAX)));
  const auto slot = impl_->file.largest_lower_bound(
      target, [this](size_t n) { return int64_t(impl_->position(n)); });
  if (!slot) return {impl_->base, 0};
  return impl_->entry(*slot);
}

// Kafka's three cases: no entry <= target drops everything; an entry at target drops it
// and what follows; otherwise what follows the largest entry below target is dropped.
void OffsetIndex::truncate_to(Offset target) {
  const auto slot = impl_->slot_for(target);
  size_t keep = 0;
  if (slot) keep = impl_->offset(*slot) == target.value() ? *slot : *slot + 1;
  impl_->file.truncate_to_entries(keep);
}

void OffsetIndex::clear() {
  impl_->file.truncate_to_entries(0);
}

Result<void, StorageError> OffsetIndex::sanity_check() const {
  const MmapIndex& f = impl_->file;
  const Offset last = last_entry().offset;
  if (f.entries() != 0 && last < impl_->base) {
    return fail(storage_error(
        StorageErrc::kCorruptIndex,
        "Corrupt index found, index file (" + f.absolute_path() +
            ") has non-zero size but the last offset is " + std::to_string(last.value()) +
            " which is less than the base offset " + std::to_string(impl_->base.value()) + "."));
  }
  if (f.checked_length() % kOffsetIndexEntrySize != 0) {
    return fail(storage_error(StorageErrc::kCorruptIndex,
                              "Index file " + f.absolute_path() + " is corrupt, found " +
                                  std::to_string(f.checked_length()) +
                                  " bytes which is neither positive nor a multiple of " +
                                  std::to_string(kOffsetIndexEntrySize) + "."));
  }
  return {};
}

Result<void, StorageError> OffsetIndex::trim() {
  return impl_->file.trim();
}
Result<void, StorageError> OffsetIndex::flush() {
  return impl_->file.flush();
}
Result<void, StorageError> OffsetIndex::rename(const std::string& new_path) {
  return impl_->file.rename(new_path);
}

}  // namespace strata::storage

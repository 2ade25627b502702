// The machinery the offset and time indexes share (Kafka's AbstractIndex): a file of
// fixed-size entries, memory-mapped whole, preallocated while writable, trimmed to its
// entries on roll/close, and Kafka's cache-friendly "largest entry <= target" search.
// Internal to storage; OffsetIndex and TimeIndex give the entries their meaning.
//
// No file descriptor is kept: like Kafka, the file is opened to map or resize it and
// closed again (a mapping outlives its descriptor), so thousands of segments cost no fds.
//
// Threading: owned by the partition's shard; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "common/result.h"
#include "storage/errors.h"

namespace strata::storage {

class MmapIndex {
 public:
  // Opens `path`. Writable: creates it if missing, preallocated to `max_index_bytes`
  // rounded down to whole entries (an error if that is less than one entry); an existing
  // file is resized to the same size (never below its entries). Read-only: the file must
  // exist and is never changed by open. Either way an existing file's entries are all of
  // its whole entries (Kafka's rule; recovery rebuilds a crashed preallocated file).
  static Result<MmapIndex, StorageError> open(const std::string& path, size_t entry_size,
                                              size_t max_index_bytes, bool writable);
  MmapIndex(MmapIndex&& other) noexcept;
  MmapIndex& operator=(MmapIndex&& other) noexcept;
  ~MmapIndex();  // unmaps; does not trim (call trim() first on close)

  size_t entry_size() const { return entry_size_; }
  size_t entries() const { return entries_; }
  size_t max_entries() const { return max_entries_; }
  bool writable() const { return writable_; }
  // The file's length as Kafka's sanity check sees it: as found at open (before open
  // resized it), or as last set by resize()/trim().
  uint64_t checked_length() const { return checked_length_; }
  const std::string& path() const { return path_; }
  // The absolute path, as Kafka's messages print it (File.getAbsolutePath).
  std::string absolute_path() const;

  // The bytes of slot `n`. Requires n < max_entries().
  const uint8_t* slot(size_t n) const { return map_ + n * entry_size_; }
  // The slot the next entry goes to, or null when its page cannot be backed (the file
  // system is full: writing through the mapping would raise SIGBUS). Requires writable()
  // and entries() < max_entries(); the caller fills entry_size() bytes and then calls
  // commit_append().
  uint8_t* next_slot() {
    const uint64_t at = uint64_t(entries_) * entry_size_;
    if (at + entry_size_ > populated_bytes_ && !populate_from(at)) return nullptr;
    return map_ + at;
  }
  void commit_append() { ++entries_; }
  // Forgets the entries from `n` on. Requires n <= entries().
  void truncate_to_entries(size_t n) { entries_ = n; }

  // Resizes the file and the mapping to `bytes` rounded down to whole entries, but never
  // below the entries held (Kafka's resize). No-op when the size is already that.
  Result<void, StorageError> resize(uint64_t bytes);
  // Shrinks the file to its entries (Kafka's trimToValidSize).
  Result<void, StorageError> trim() { return resize(uint64_t(entries_) * entry_size_); }
  // msync of the mapping.
  Result<void, StorageError> flush();
  // rename(2); the mapping stays valid. The path changes only on success.
  Result<void, StorageError> rename(const std::string& new_path);

  // Kafka's largestLowerBoundSlotFor: the slot of the entry with the largest key <= target,
  // or nullopt if every key is above it (or there are no entries). `key(slot)` gives a
  // slot's key; keys are assumed sorted, and a garbage file gives an answer, not a crash.
  // The search looks at the last kWarmBytes of entries first, which keeps the pages that
  // in-sync lookups touch hot in the page cache (see Kafka's AbstractIndex).
  template <class KeyFn>
  std::optional<size_t> largest_lower_bound(int64_t target, KeyFn key) const;

 private:
  static constexpr size_t kWarmBytes = 8192;
  // How far ahead of the next slot a writable mapping is prefaulted (see populate_from).
  static constexpr uint64_t kPopulateBytes = 64 * 1024;

  MmapIndex(std::string path, size_t entry_size, bool writable)
      : path_(std::move(path)), entry_size_(entry_size), writable_(writable) {}
  // Maps the open `fd` at its current length `length`; replaces any old mapping.
  Result<void, StorageError> remap(int fd, uint64_t length);
  void unmap();
  // Prefaults the mapping for writing from the page holding byte `at` over the next
  // kPopulateBytes (MADV_POPULATE_WRITE, Linux 5.14+), so appends take one system call
  // per 64 KiB of entries rather than one page fault per 4 KiB. The pages ahead are
  // dirtied as zeros, so up to 64 KiB past the entries is written back as zeros rather
  // than left a hole (trim() cuts it). False when the pages cannot be backed (EFAULT or
  // ENOMEM: a full file system, where a write through the mapping would be a SIGBUS).
  // On a kernel without it (EINVAL, before 5.14) true, and pages fault in on first write.
  bool populate_from(uint64_t at);

  template <class KeyFn>
  static size_t binary_search(int64_t target, KeyFn& key, size_t lo, size_t hi);

  std::string path_;
  size_t entry_size_ = 0;
  bool writable_ = false;
  uint8_t* map_ = nullptr;  // null when the file is empty: mmap of 0 bytes fails
  uint64_t map_bytes_ = 0;
  uint64_t populated_bytes_ = 0;  // [0, this) of the mapping needs no more prefaulting
  uint64_t length_ = 0;  // the file's current length
  uint64_t checked_length_ = 0;
  size_t entries_ = 0;
  size_t max_entries_ = 0;
};

template <class KeyFn>
size_t MmapIndex::binary_search(int64_t target, KeyFn& key, size_t lo, size_t hi) {
  while (lo < hi) {
    const size_t mid = lo + (hi - lo + 1) / 2;
    const int64_t k = key(mid);
    if (k > target) {
      hi = mid - 1;
    } else if (k < target) {
      lo = mid;
    } else {
      return mid;
    }
  }
  return lo;
}

template <class KeyFn>
std::optional<size_t> MmapIndex::largest_lower_bound(int64_t target, KeyFn key) const {
  if (entries_ == 0) return std::nullopt;
  const size_t warm_entries = kWarmBytes / entry_size_;
  const size_t first_hot = entries_ - 1 > warm_entries ? entries_ - 1 - warm_entries : 0;
  if (key(first_hot) < target) return binary_search(target, key, first_hot, entries_ - 1);
  if (key(0) > target) return std::nullopt;
  return binary_search(target, key, 0, first_hot);
}

}  // namespace strata::storage

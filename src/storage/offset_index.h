// The offset index of one segment (`.index`): a sparse, sorted map from offset to the
// file position of the batch that ends at that offset. Entries are 8 bytes,
// big-endian: relativeOffset int32 (the batch's lastOffset - the segment's base offset)
// and position int32. The file is preallocated to `max_index_bytes` (rounded down to
// whole entries) while the segment is active and trimmed to its entries on roll/close,
// exactly as Kafka does, so Kafka's tools read it.
//
// Threading: owned by the partition's shard; not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <memory>
#include <string>

#include "common/result.h"
#include "common/types.h"
#include "storage/errors.h"

namespace strata::storage {

struct OffsetPosition {
  Offset offset;
  uint32_t position = 0;
};

class OffsetIndex {
 public:
  // Opens (or creates) `path`. An existing file's entries are all of its whole 8-byte
  // entries (Kafka's rule; a crashed preallocated file is rebuilt by recovery). The file is
  // resized to `max_index_bytes` when `writable` (the active segment). A read-only index
  // must exist, is never created or resized by open, and rejects appends (kIndexFull). The
  // destructor only unmaps: call trim() on roll and close (time index alike).
  static Result<OffsetIndex, StorageError> open(const std::string& path, Offset base_offset,
                                                size_t max_index_bytes, bool writable);
  OffsetIndex(OffsetIndex&&) noexcept;
  OffsetIndex& operator=(OffsetIndex&&) noexcept;
  ~OffsetIndex();

  Offset base_offset() const;
  size_t entries() const;
  bool full() const;
  // The last entry, or (base_offset, 0) when empty.
  OffsetPosition last_entry() const;
  // Appends an entry. Requires !full(), offset > last entry's offset (or the first entry),
  // offset - base < 2^31, and position >= the last entry's position.
  Result<void, StorageError> append(Offset offset, uint32_t position);
  // The n-th entry (Kafka's entry(n), for tools). Requires n < entries().
  OffsetPosition entry(size_t n) const;
  // The entry with the largest offset <= target, or (base_offset, 0) if none.
  OffsetPosition lookup(Offset target) const;
  // The entry with the largest position <= position, or (base_offset, 0) if none
  // (positions rise with offsets, so they are searched like the offsets).
  OffsetPosition lookup_position(uint64_t position) const;
  // Removes entries with offset >= target (log truncation).
  void truncate_to(Offset target);
  void clear();
  // Kafka's sanity check: when it has entries, the last offset is >= the base offset, and
  // the file's length (as found at open, or as last trimmed) is a multiple of 8.
  Result<void, StorageError> sanity_check() const;
  // Shrinks the file to its entries (roll, close); the index stays readable.
  Result<void, StorageError> trim();
  Result<void, StorageError> flush();
  const std::string& path() const;
  // Renames the file (e.g. to add ".deleted"); the mapping stays valid.
  Result<void, StorageError> rename(const std::string& new_path);

 private:
  struct Impl;
  explicit OffsetIndex(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::storage

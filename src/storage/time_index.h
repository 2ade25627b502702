// The time index of one segment (`.timeindex`): a sparse map from timestamp to the
// offset of the batch where that timestamp was reached. Entries are 12 bytes,
// big-endian: timestamp int64, relativeOffset int32. Timestamps strictly increase from
// entry to entry (an append with the last entry's timestamp is skipped, as in Kafka's
// maybeAppend). Preallocated and trimmed like the offset index.
//
// Threading: owned by the partition's shard; not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/result.h"
#include "common/types.h"
#include "storage/errors.h"

namespace strata::storage {

struct TimestampOffset {
  int64_t timestamp = -1;
  Offset offset;
};

class TimeIndex {
 public:
  static Result<TimeIndex, StorageError> open(const std::string& path, Offset base_offset,
                                              size_t max_index_bytes, bool writable);
  TimeIndex(TimeIndex&&) noexcept;
  TimeIndex& operator=(TimeIndex&&) noexcept;
  ~TimeIndex();

  Offset base_offset() const;
  size_t entries() const;
  bool full() const;
  // The last entry, or (-1, base_offset) when empty.
  TimestampOffset last_entry() const;
  // Appends (timestamp, offset) if timestamp > the last entry's timestamp (-1 when empty,
  // so a -1 timestamp is never indexed), else does nothing. `skip_full_check` lets the roll
  // path add the final entry to a full index (Kafka's onBecomeInactiveSegment); otherwise
  // requires !full(), which keeps that last slot free. An offset or a timestamp below the
  // last entry's is an error (kIndexOrder), as in Kafka: callers pass the max timestamp so
  // far and its offset.
  Result<void, StorageError> maybe_append(int64_t timestamp, Offset offset,
                                          bool skip_full_check = false);
  // The n-th entry (Kafka's entry(n), for tools). Requires n < entries().
  TimestampOffset entry(size_t n) const;
  // The entry with the largest timestamp <= target, or (-1, base_offset) if none.
  TimestampOffset lookup(int64_t target) const;
  // Removes entries with offset >= target.
  void truncate_to(Offset target);
  void clear();
  // Kafka's sanity check: length a multiple of 12; the last entry's offset >= base and
  // its timestamp >= the first entry's.
  Result<void, StorageError> sanity_check() const;
  Result<void, StorageError> trim();
  Result<void, StorageError> flush();
  const std::string& path() const;
  Result<void, StorageError> rename(const std::string& new_path);

 private:
  struct Impl;
  explicit TimeIndex(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::storage

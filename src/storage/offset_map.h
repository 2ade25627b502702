// The log cleaner's key -> latest offset map (Kafka's SkimpyOffsetMap): a fixed-size
// open-addressing table of 24-byte slots, a 16-byte MD5 of the key and the 8-byte offset
// of the key's latest record. Its memory is fixed when it is made (the cleaner thread's
// share of log.cleaner.dedupe.buffer.size), so a cleaning maps as much of the dirty range
// as fits and cleans up to there (docs/formats/segments.md, "Compaction").
//
// Two keys with the same MD5 would share a slot: the older record of either could then be
// dropped. Kafka accepts that (2^-64 per pair at the birthday bound); so does Strata.
//
// Memory: the table is an anonymous mapping whose empty slots are zero bytes, so pages
// become resident only as a cleaning writes keys into them (keys hash all over the
// table: a cleaning of more keys than the table has pages makes nearly all of it
// resident), and clear() hands them back to the kernel: an idle cleaner thread holds no
// table memory (log.cleaner.dedupe.buffer.size is reserved address space, not RSS).
//
// Threading: one map per cleaner thread; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "common/bytes.h"
#include "common/result.h"
#include "common/types.h"
#include "storage/errors.h"

namespace strata::storage {

struct KeyHash {
  uint64_t hi = 0;
  uint64_t lo = 0;
  bool operator==(const KeyHash&) const = default;
};

class OffsetMap {
 public:
  static constexpr size_t kHashBytes = 16;
  static constexpr size_t kSlotBytes = kHashBytes + 8;  // Kafka's bytesPerEntry
  // After this many double-hashing probes a lookup walks slot by slot, so it always ends.
  static constexpr size_t kHashedProbesMax = 32;

  // A map of memory_bytes / 24 slots (at least 2). Fails (kIo) only if OpenSSL offers
  // neither MD5 nor SHA-256 (SHA-256's first 16 bytes are used under a FIPS provider).
  static Result<std::unique_ptr<OffsetMap>, StorageError> create(size_t memory_bytes);
  ~OffsetMap();
  OffsetMap(const OffsetMap&) = delete;
  OffsetMap& operator=(const OffsetMap&) = delete;

  size_t slots() const { return slots_; }
  size_t size() const { return size_; }
  double utilization() const { return double(size_) / double(slots_); }

  // Sets the key's latest offset (and latest_offset()). Requires size() < slots() or
  // the key already mapped; the cleaner stops at slots() * load factor.
  void put(Bytes key, Offset offset);
  // The key's offset; nullopt when the key was never put.
  std::optional<Offset> get(Bytes key) const;
  // Kafka's latestOffset: the last offset put or set; -1 after clear().
  Offset latest_offset() const { return latest_; }
  void update_latest_offset(Offset offset) { latest_ = offset; }
  // Empties the map (every slot) and returns its pages to the kernel.
  void clear();

  KeyHash hash(Bytes key) const;

 private:
  struct Slot {  // all zero: empty
    KeyHash hash;
    int64_t offset_plus_one;
  };
  static_assert(sizeof(Slot) == kSlotBytes);
  struct Digest;

  OffsetMap(size_t slots, Slot* table, std::unique_ptr<Digest> digest);
  size_t probe(const KeyHash& h, size_t attempt) const;
  // The slot holding `h`, or the empty slot where it would go; slots_ if neither exists.
  size_t find(const KeyHash& h) const;

  size_t slots_;
  size_t size_ = 0;
  Offset latest_{-1};
  Slot* table_;  // slots_ slots, mmap'd
  bool touched_ = false;  // a slot was written since the last clear()
  std::unique_ptr<Digest> digest_;
};

}  // namespace strata::storage

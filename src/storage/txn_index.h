// Kafka's transaction index, `<base>.txnindex` (docs/formats/txn-index.md): one file per
// segment listing the transactions aborted by markers in that segment, so that a
// read_committed fetch can tell its client which data batches to drop.
//
// Threading: a TxnIndex belongs to its Segment, on the partition's shard.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "common/types.h"
#include "storage/errors.h"
#include "storage/file.h"

namespace strata::storage {

// entry = version int16 (0) | producerId int64 | firstOffset int64 | lastOffset int64 |
//         lastStableOffset int64, big-endian; entries back to back, no header.
struct AbortedTxn {
  ProducerId producer_id;
  Offset first_offset;        // the transaction's first data offset
  Offset last_offset;         // the ABORT marker's offset
  Offset last_stable_offset;  // the LSO right after the marker was written
  int16_t version = 0;
  bool operator==(const AbortedTxn&) const = default;
};

inline constexpr int16_t kAbortedTxnVersion = 0;
inline constexpr size_t kAbortedTxnSize = 34;
static_assert(kAbortedTxnSize == 2 + 8 + 8 + 8 + 8);

std::array<uint8_t, kAbortedTxnSize> encode_aborted_txn(const AbortedTxn& txn);
// `entry` must be exactly kAbortedTxnSize bytes; an unknown version is an error
// (kCorruptIndex).
Result<AbortedTxn, StorageError> decode_aborted_txn(Bytes entry);
// Reads a whole .txnindex file (for tools): kCorruptIndex naming the byte position of the
// bad entry, or of a partial entry at the end; kIo if it cannot be read.
Result<std::vector<AbortedTxn>, StorageError> read_txn_index_file(const std::string& path);

// One segment's .txnindex (Kafka's TransactionIndex). The file is created on the first
// append only, as Kafka does: a segment without aborts has no file. The entries are kept
// in memory too (34 bytes on disk, 40 here, per aborted transaction), so searches by a
// read_committed fetch never touch the disk and cannot fail.
class TxnIndex {
 public:
  // Opens `path` if it exists and reads its entries; else an empty index. A file larger
  // than `max_bytes` (its segment's .log size: every entry needs a marker batch of more
  // than 34 bytes), with a partial or undecodable entry, is not read: the index is then
  // corrupt and sanity_check() says so. Fails only on I/O errors.
  static Result<std::unique_ptr<TxnIndex>, StorageError> open(std::string path, Offset base,
                                                              uint64_t max_bytes);
  // A new, empty index for a new segment; removes a leftover file at `path`.
  static Result<std::unique_ptr<TxnIndex>, StorageError> create(std::string path, Offset base);
  ~TxnIndex();
  TxnIndex(const TxnIndex&) = delete;
  TxnIndex& operator=(const TxnIndex&) = delete;

  const std::string& path() const { return path_; }
  const std::vector<AbortedTxn>& entries() const { return entries_; }
  // The open file; null while the index has none.
  const std::shared_ptr<File>& file() const { return file_; }

  // Appends an entry (creating the file if needed); kIndexOrder unless its last offset
  // is above the last entry's, as Kafka requires.
  Result<void, StorageError> append(const AbortedTxn& txn);
  // Kafka's collectAbortedTxns: appends to `out` the entries with last_offset >= start
  // and first_offset < upper; returns true when an entry's last_stable_offset >= upper
  // (no later segment can hold one that matters: the search is complete).
  bool collect(Offset start, Offset upper, std::vector<AbortedTxn>& out) const;
  // Kafka's sanityCheck, stricter: the file read whole, every entry's last offset at or
  // above the segment's base and below `end` (the segment's next offset), increasing.
  // kCorruptIndex otherwise; the caller recovers the segment, which rebuilds the index.
  Result<void, StorageError> sanity_check(Offset end) const;
  // Kafka's truncateTo: drops the entries whose last offset >= `offset`.
  Result<void, StorageError> truncate_to(Offset offset);
  // Kafka's reset: no entries; an existing file is truncated to 0 bytes (recovery
  // rebuilds the entries).
  Result<void, StorageError> reset();
  Result<void, StorageError> flush();
  // Renames the file, if there is one, to `new_path` (the segment's name plus ".deleted",
  // ".cleaned", ".swap" or nothing); the index keeps that name after.
  Result<void, StorageError> rename(const std::string& new_path);
  // Unlinks the file, if any.
  void remove_file();

 private:
  TxnIndex(std::string path, Offset base) : path_(std::move(path)), base_(base) {}
  Result<void, StorageError> load(uint64_t size, uint64_t max_bytes);

  std::string path_;
  Offset base_;
  std::shared_ptr<File> file_;  // null until the first append when there is no file
  std::vector<AbortedTxn> entries_;
  std::string corrupt_;  // why the file could not be read; empty when it could
};

}  // namespace strata::storage

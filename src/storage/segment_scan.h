// Reading batch headers and whole batches out of a segment file. Internal to storage.
#pragma once

#include <optional>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "storage/errors.h"
#include "storage/file.h"
#include "storage/segment.h"

namespace strata::storage {

// The location of the entry at `position` from its header (v2, or v0/v1: then the
// entry's offset is its last offset). nullopt when fewer bytes than the entry claims
// remain before `file_size`, or the header is impossible (bad size or magic).
Result<std::optional<BatchLocation>, StorageError> read_location(const File& file,
                                                                 uint64_t position,
                                                                 uint64_t file_size);

// Sequential reader of whole entries, in large reads. `next(entry)` sets a view of the
// next entry's bytes (valid until the following call) and returns true, or false at the
// end or at an entry that cannot be whole (its size runs past the file, or exceeds
// max_entry_bytes). (A plain bool result: returning the view inside an optional inside a
// Result measured 2.3x slower on small batches.)
class SequentialReader {
 public:
  // Reads from `start`, which must be where an entry begins.
  SequentialReader(const File& file, uint64_t file_size, uint64_t max_entry_bytes,
                   uint64_t start = 0);
  Result<bool, StorageError> next(Bytes& entry);
  uint64_t position() const { return pos_; }  // file position of the next entry

 private:
  Result<bool, StorageError> fill(size_t want);

  const File& file_;
  uint64_t file_size_;
  uint64_t max_entry_bytes_;
  uint64_t pos_ = 0;               // file position of buf_[begin_]
  std::vector<uint8_t> buf_;
  size_t begin_ = 0, end_ = 0;     // valid bytes in buf_
};

}  // namespace strata::storage

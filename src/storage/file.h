// A file descriptor with the few operations the log needs, errors as values. Shared
// (std::shared_ptr) between a segment and the sync service so an fdatasync in flight
// keeps the descriptor open even if the segment is deleted meanwhile.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "storage/errors.h"

namespace strata::storage {

class File {
 public:
  // Opens `path` read-write, creating it if `create`.
  static Result<std::shared_ptr<File>, StorageError> open(const std::string& path, bool create);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  int fd() const { return fd_; }

  Result<uint64_t, StorageError> size() const;
  // Writes all of `data` at `offset` (retrying short writes).
  Result<void, StorageError> pwrite_all(Bytes data, uint64_t offset);
  // Reads up to out.size() bytes at `offset`; returns the count (short only at EOF).
  Result<size_t, StorageError> pread_some(MutableBytes out, uint64_t offset) const;
  Result<void, StorageError> truncate(uint64_t size);
  // fdatasync: the data and the size are durable when it returns.
  Result<void, StorageError> datasync();

 private:
  explicit File(int fd) : fd_(fd) {}
  int fd_;
};

// fsync of a directory, so renames and creations in it are durable.
Result<void, StorageError> sync_directory(const std::string& dir);
// rename(2) with errors as values.
Result<void, StorageError> rename_file(const std::string& from, const std::string& to);
// The names in a directory (readdir order, "." and ".." included).
Result<std::vector<std::string>, StorageError> list_directory(const std::string& dir);

}  // namespace strata::storage

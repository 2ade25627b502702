// A read-only memory map of (a prefix of) a file, for tools that read whole segments.
#pragma once

#include <cstdint>
#include <string>

#include "common/bytes.h"

namespace strata::tools {

class MappedFile {
 public:
  // Maps at most `max_bytes` of `path`. On failure ok() is false and error() says why.
  MappedFile(const std::string& path, uint64_t max_bytes);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  Bytes bytes() const { return {data_, size_}; }
  uint64_t file_size() const { return file_size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  uint64_t file_size_ = 0;
  std::string error_;
};

}  // namespace strata::tools

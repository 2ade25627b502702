// Shared by the storage tests: temporary directories and ready-made batches.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "record/batch_builder.h"

namespace strata::storage::testing {

class TempDir {
 public:
  TempDir() {
    static int n = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("strata-storage-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string str() const { return path_.string(); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A producer batch of `records` records with values "v<i>" of `value_bytes` bytes.
inline std::vector<uint8_t> make_batch(int records, int64_t timestamp_ms, size_t value_bytes = 10,
                                       record::Codec codec = record::Codec::kNone) {
  record::BatchOptions o;
  o.codec = codec;
  record::BatchBuilder b(o);
  for (int i = 0; i < records; ++i) {
    std::string v = "v" + std::to_string(i);
    v.resize(value_bytes, 'x');
    b.append(timestamp_ms + i, std::nullopt, as_bytes(v));
  }
  return std::move(b.finish()).value();
}

inline std::vector<uint8_t> concat(const std::vector<std::vector<uint8_t>>& parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace strata::storage::testing

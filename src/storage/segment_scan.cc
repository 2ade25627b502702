#include "storage/segment_scan.h"

#include <cstring>

#include "record/batch_format.h"
#include "record/legacy.h"

namespace strata::storage {

using namespace strata::record;

namespace {
constexpr size_t kReadChunk = 1 << 20;
constexpr int32_t kMinEntrySize = 14;  // the smallest v0 message
}  // namespace

Result<std::optional<BatchLocation>, StorageError> read_location(const File& file,
                                                                 uint64_t position,
                                                                 uint64_t file_size) {
  if (position + kMagicPos + 1 > file_size) return std::optional<BatchLocation>{};
  uint8_t h[kHeaderSize];
  const size_t want = size_t(std::min<uint64_t>(kHeaderSize, file_size - position));
  auto got = file.pread_some(MutableBytes(h, want), position);
  if (!got) return fail(got.error());
  if (*got < kMagicPos + 1) return std::optional<BatchLocation>{};
  const int32_t size = int32_t(load_be32(h + kBatchLengthPos));
  const int8_t magic = int8_t(h[kMagicPos]);
  if (size < kMinEntrySize || magic < kMagicV0 || magic > kMagicV2 ||
      position + kLogOverhead + uint64_t(size) > file_size) {
    return std::optional<BatchLocation>{};
  }
  BatchLocation loc;
  loc.position = position;
  loc.size = uint32_t(size) + kLogOverhead;
  const int64_t offset = int64_t(load_be64(h));
  if (magic == kMagicV2) {
    if (*got < kHeaderSize) return std::optional<BatchLocation>{};
    loc.first_offset = Offset(offset);
    loc.last_offset = Offset(offset + int32_t(load_be32(h + kLastOffsetDeltaPos)));
    loc.max_timestamp = int64_t(load_be64(h + kMaxTimestampPos));
  } else {
    // A legacy entry's offset is its (last inner) offset; v1 carries one timestamp.
    loc.first_offset = loc.last_offset = Offset(offset);
    const size_t ts_at = kLogOverhead + kLegacyTimestampPos;
    if (magic == kMagicV1 && *got >= ts_at + 8) loc.max_timestamp = int64_t(load_be64(h + ts_at));
  }
  return std::optional<BatchLocation>{loc};
}

SequentialReader::SequentialReader(const File& file, uint64_t file_size, uint64_t max_entry_bytes,
                                   uint64_t start)
    : file_(file), file_size_(file_size), max_entry_bytes_(max_entry_bytes), pos_(start) {}

// Makes at least `want` bytes available from begin_, reading more of the file; false
// when the file ends first.
Result<bool, StorageError> SequentialReader::fill(size_t want) {
  if (end_ - begin_ >= want) return true;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  const size_t capacity = std::max(want, kReadChunk);
  if (buf_.size() < capacity) buf_.resize(capacity);
  while (end_ < want) {
    const uint64_t file_pos = pos_ + end_;
    if (file_pos >= file_size_) return false;
    const size_t n = size_t(std::min<uint64_t>(buf_.size() - end_, file_size_ - file_pos));
    auto got = file_.pread_some(MutableBytes(buf_.data() + end_, n), file_pos);
    if (!got) return fail(got.error());
    if (*got == 0) return false;
    end_ += *got;
  }
  return true;
}

Result<bool, StorageError> SequentialReader::next(Bytes& entry) {
  auto have = fill(kMagicPos + 1);
  if (!have) return fail(have.error());
  if (!*have) return false;
  const int32_t size = int32_t(load_be32(buf_.data() + begin_ + kBatchLengthPos));
  if (size < kMinEntrySize || uint64_t(size) + kLogOverhead > max_entry_bytes_) return false;
  const size_t total = size_t(size) + kLogOverhead;
  have = fill(total);
  if (!have) return fail(have.error());
  if (!*have) return false;
  entry = Bytes(buf_.data() + begin_, total);
  begin_ += total;
  pos_ += total;
  return true;
}

}  // namespace strata::storage

#include "record/log_scanner.h"

#include "record/batch_format.h"

namespace strata::record {
namespace {
// Smallest legacy message after the log overhead: crc4 magic1 attributes1 key4 value4.
constexpr int32_t kMinEntrySize = 14;
constexpr size_t kHeaderUpToMagic = kMagicPos + 1;
}  // namespace

std::optional<LogEntry> LogScanner::next() {
  if (stop_ != ScanStop::kNone) return std::nullopt;
  const size_t left = data_.size() - pos_;
  if (left == 0) return halt(ScanStop::kEnd);
  if (left < kHeaderUpToMagic) return halt(ScanStop::kPartialEntry);
  const uint8_t* p = data_.data() + pos_;
  const int32_t size = int32_t(load_be32(p + kBatchLengthPos));
  if (size < kMinEntrySize || uint64_t(size) + kLogOverhead > max_entry_bytes_) {
    return halt(ScanStop::kBadSize);
  }
  const size_t total = size_t(size) + kLogOverhead;
  if (total > left) return halt(ScanStop::kPartialEntry);
  const int8_t magic = int8_t(p[kMagicPos]);
  if (magic < kMagicV0 || magic > kMagicV2) return halt(ScanStop::kBadMagic);
  LogEntry e;
  e.position = pos_;
  e.offset = int64_t(load_be64(p));
  e.magic = magic;
  e.bytes = data_.subspan(pos_, total);
  pos_ += total;
  return e;
}

const char* to_string(ScanStop s) {
  switch (s) {
    case ScanStop::kNone: return "scanning";
    case ScanStop::kEnd: return "end";
    case ScanStop::kPartialEntry: return "partial entry at the end";
    case ScanStop::kBadSize: return "entry size out of bounds";
    case ScanStop::kBadMagic: return "unknown magic byte";
  }
  return "unknown";
}

}  // namespace strata::record

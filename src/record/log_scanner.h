// Splits the bytes of a log segment into entries, whatever their format: every v0,
// v1 and v2 entry starts with offset int64 | size int32, and has its magic byte at
// position 16. The scanner frames entries only (it checks sizes, not CRCs); callers
// validate each entry by its magic. A short or impossible entry ends the scan: what
// follows it is the invalid tail, reported by `tail_bytes()` (the "writer died
// mid-append" case recovery truncates).
#pragma once

#include <cstdint>
#include <optional>

#include "common/bytes.h"

namespace strata::record {

struct LogEntry {
  size_t position = 0;  // of the entry's first byte in the scanned buffer
  int64_t offset = 0;   // v2: baseOffset; v0/v1: the message's (or wrapper's last) offset
  int8_t magic = 0;
  Bytes bytes;          // the whole entry, size field + 12 bytes
};

enum class ScanStop : uint8_t {
  kNone,          // still scanning
  kEnd,           // consumed every byte
  kPartialEntry,  // the tail is shorter than its entry claims (torn write)
  kBadSize,       // a size field below the smallest entry or above the limit
  kBadMagic,      // a magic byte other than 0, 1, 2
};

class LogScanner {
 public:
  // `max_entry_bytes` bounds one entry (Kafka: max.message.bytes plus overhead).
  explicit LogScanner(Bytes data, size_t max_entry_bytes = SIZE_MAX)
      : data_(data), max_entry_bytes_(max_entry_bytes) {}

  std::optional<LogEntry> next();
  ScanStop stop() const { return stop_; }
  // Bytes of whole entries returned so far.
  size_t valid_bytes() const { return pos_; }
  size_t tail_bytes() const { return data_.size() - pos_; }

 private:
  std::optional<LogEntry> halt(ScanStop why) {
    stop_ = why;
    return std::nullopt;
  }

  Bytes data_;
  size_t max_entry_bytes_;
  size_t pos_ = 0;
  ScanStop stop_ = ScanStop::kNone;
};

const char* to_string(ScanStop s);

}  // namespace strata::record

// Fuzzes a follower's log (storage::Log's append_replicated, truncate_to and
// truncate_fully_and_start_at) with whatever a leader might send. Whatever the bytes:
// no crash, no undefined behaviour; an append either fails whole (the log end unmoved)
// or stores the batches byte for byte (read back equal) and moves the log end past the
// last one; log start <= high watermark <= log end always; and the log, closed and
// reopened at the end, recovers to the same log start and end.
//
// Input: steps, each a byte that picks the operation (bits 0-1: append; truncate_to,
// then append; truncate_fully_and_start_at, then append; bit 2: recompute each framed
// batch's CRC, so that the checks past the CRC are reached), 8 bytes of an offset for
// the truncations and the high watermark, 2 of the batches' length, then the batches.
// Each input starts from an empty log in a fresh directory.
#include <stdlib.h>

#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "record/batch_format.h"
#include "record/crc32c.h"
#include "storage/log.h"

using namespace strata;
using namespace strata::storage;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_follower_append: %s\n", what.c_str());
  __builtin_trap();
}

constexpr int64_t kNow = 1700000000000;

LogOptions options(Offset start) {
  LogOptions o;
  o.config.segment_bytes = 4096;  // rolls every few batches
  o.config.segment_index_bytes = 4096;  // small index files: fast to create
  o.config.file_delete_delay_ms = 0;
  o.log_start_offset = start;
  o.now_ms = kNow;
  return o;
}

// A fresh log in a fresh directory per input; removed with it.
struct Follower {
  std::string dir;
  std::unique_ptr<Log> log;

  Follower() {
    char tmpl[] = "/tmp/strata-fuzz-follower-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) __builtin_trap();
    dir = tmpl;
    open(Offset(0));
  }
  ~Follower() {
    log.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  void open(Offset start) {
    auto l = Log::open(dir + "/p-0", options(start));
    if (!l) fail("open: " + l.error().message());
    log = std::move(*l);
    log->track_high_watermark();
  }
};

int64_t read_i64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return int64_t(v);
}

uint32_t read_u32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// Each framed v2 batch's CRC set to its bytes' CRC32C.
void fix_crcs(std::vector<uint8_t>& b) {
  size_t pos = 0;
  while (pos + record::kHeaderSize <= b.size()) {
    const int64_t length = int32_t(read_u32(&b[pos + record::kBatchLengthPos]));
    const size_t size = size_t(length) + record::kLogOverhead;
    if (length < int64_t(record::kHeaderSize - record::kLogOverhead) || pos + size > b.size()) return;
    const uint32_t crc =
        record::crc32c(Bytes(b).subspan(pos + record::kCrcStart, size - record::kCrcStart));
    for (int i = 0; i < 4; ++i) b[pos + record::kCrcPos + size_t(i)] = uint8_t(crc >> (24 - 8 * i));
    pos += size;
  }
}

void check_bounds(const Log& log) {
  if (log.log_start_offset() > log.high_watermark() || log.high_watermark() > log.log_end_offset()) {
    fail("log start, high watermark and log end out of order");
  }
}

// One step: a truncation perhaps, then an append of `batches`.
void step(Log& log, uint8_t op, int64_t at, std::vector<uint8_t>& batches) {
  if (op & 4) fix_crcs(batches);
  if ((op & 3) == 1) {
    (void)log.truncate_to(Offset(at), kNow);
  } else if ((op & 3) == 2) {
    (void)log.truncate_fully_and_start_at(Offset(at < 0 ? 0 : at % (int64_t(1) << 40)), kNow);
  }
  check_bounds(log);
  const Offset before = log.log_end_offset();
  auto a = log.append_replicated(batches, kNow);
  if (!a) {
    if (log.log_end_offset() != before) fail("a failed append moved the log end");
  } else if (a->batches > 0) {
    if (log.log_end_offset() != Offset(a->last_offset.value() + 1) || a->first_offset < before) {
      fail("the log end is not past the appended batches");
    }
    auto region = log.read(a->first_offset, batches.size(), true, std::nullopt);
    if (!region || !*region || (*region)->size < batches.size()) fail("the appended batches do not read back");
    std::vector<uint8_t> back(batches.size());
    if (!(*region)->file->pread_some(back, (*region)->position)) fail("pread");
    if (std::memcmp(back.data(), batches.data(), batches.size()) != 0) fail("the batches read back differ");
  }
  log.raise_high_watermark(Offset(at));
  check_bounds(log);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Follower f;
  size_t pos = 0;
  while (pos + 11 <= size) {
    const uint8_t op = data[pos];
    const int64_t at = read_i64(data + pos + 1);
    const size_t len = std::min<size_t>(size_t(data[pos + 9]) << 8 | data[pos + 10], size - pos - 11);
    std::vector<uint8_t> batches(data + pos + 11, data + pos + 11 + len);
    pos += 11 + len;
    step(*f.log, op, at, batches);
  }
  const Offset start = f.log->log_start_offset();
  const Offset end = f.log->log_end_offset();
  if (auto c = f.log->close(); !c) fail("close: " + c.error().message());
  f.log.reset();
  f.open(start);
  if (f.log->log_end_offset() != end || f.log->log_start_offset() != start) {
    fail("reopened at " + std::to_string(f.log->log_start_offset().value()) + "-" +
         std::to_string(f.log->log_end_offset().value()) + ", closed at " + std::to_string(start.value()) + "-" +
         std::to_string(end.value()));
  }
  return 0;
}

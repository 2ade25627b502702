// Shared by the codec files of compression.cc; not part of the record library's API.
// Each codec appends to a BoundedSink; the public functions in compression.cc own the
// caller's vector and put it back as it was when a codec fails.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "record/errors.h"

namespace strata::record::detail {

// Appends a decoder's output to a caller-owned vector without letting the appended part
// pass `limit` bytes. The vector may hold one byte past the limit, a probe: a decoder that
// fills it had more to give, which detects "too large" without trusting any size the input
// declares. Growth is geometric and capped, so the vector's capacity never passes
// `start + limit + 1` (unless the caller's vector was already larger).
class BoundedSink {
 public:
  BoundedSink(std::vector<uint8_t>& out, size_t limit, size_t size_hint);

  size_t produced() const { return produced_; }
  bool over_limit() const { return produced_ > limit_; }
  // Bytes that may still be produced without passing the limit.
  size_t budget() const { return over_limit() ? 0 : limit_ - produced_; }

  // Writable space after the produced bytes, at most `max_bytes`; grows the vector. Empty
  // only once the probe byte is used (over_limit()), so a streaming decoder always has room.
  MutableBytes window(size_t max_bytes = SIZE_MAX);
  // Exactly `n` writable bytes, for a decoder that knows its output size; requires
  // n <= budget().
  MutableBytes window_exact(size_t n);
  // Marks `n` bytes of the last window as written.
  void commit(size_t n);
  // Trims the vector to the produced bytes.
  void finish() { out_.resize(start_ + produced_); }

 private:
  size_t free_bytes() const { return out_.size() - start_ - produced_; }
  void grow_by(size_t n);

  std::vector<uint8_t>& out_;
  const size_t start_;
  const size_t limit_;
  const size_t cap_;  // limit_ + 1 (the probe), saturated
  size_t grow_min_;   // first growth step; later steps double the output
  size_t produced_ = 0;
};

using Status = Result<void, RecordErrc>;

// Codec entry points. compress_* append to `out`; decompress_* append to `sink`. On
// failure they may leave partial output behind: the caller rolls it back.
Status compress_gzip(Bytes in, std::vector<uint8_t>& out, int level);
Status decompress_gzip(Bytes in, BoundedSink& sink);
Status compress_snappy(Bytes in, std::vector<uint8_t>& out);
Status decompress_snappy(Bytes in, BoundedSink& sink);
Status compress_lz4(Bytes in, std::vector<uint8_t>& out, int level);
Status decompress_lz4(Bytes in, BoundedSink& sink);
Status compress_zstd(Bytes in, std::vector<uint8_t>& out, int level);
Status decompress_zstd(Bytes in, BoundedSink& sink);

}  // namespace strata::record::detail

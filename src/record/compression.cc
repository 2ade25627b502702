// The public codec API: dispatch by codec, the output bound, and roll-back of the caller's
// vector on failure. Each codec lives in its own file (compression_<codec>.cc).
#include "record/compression.h"

#include <algorithm>
#include <cstring>

#include "record/compression_internal.h"

namespace strata::record {
namespace detail {

namespace {
// The first growth step is a guess from the input size; later steps double the output,
// so a large output costs O(log n) reallocations and a small one no big zero-fill.
constexpr size_t kGrowMinBytes = 4u << 10;
constexpr size_t kGrowMaxFirstBytes = 1u << 20;
}  // namespace

BoundedSink::BoundedSink(std::vector<uint8_t>& out, size_t limit, size_t size_hint)
    : out_(out),
      start_(out.size()),
      limit_(limit),
      cap_(limit == SIZE_MAX ? SIZE_MAX : limit + 1),
      grow_min_(std::clamp(size_hint > SIZE_MAX / 2 ? SIZE_MAX : 2 * size_hint, kGrowMinBytes,
                           kGrowMaxFirstBytes)) {}

MutableBytes BoundedSink::window(size_t max_bytes) {
  if (free_bytes() == 0) {
    const size_t room = cap_ - produced_;  // produced_ never passes cap_
    grow_by(std::min(std::max(grow_min_, produced_), room));
  }
  return {out_.data() + start_ + produced_, std::min(free_bytes(), max_bytes)};
}

MutableBytes BoundedSink::window_exact(size_t n) {
  assert(n <= budget());
  if (free_bytes() < n) grow_by(n - free_bytes());
  return {out_.data() + start_ + produced_, n};
}

void BoundedSink::commit(size_t n) {
  assert(n <= free_bytes());
  produced_ += n;
  assert(produced_ <= cap_);
}

void BoundedSink::grow_by(size_t n) {
  if (n == 0) return;
  const size_t new_size = out_.size() + n;
  if (new_size > out_.capacity()) {
    // Double the capacity, but never past the probe byte: the bound holds for memory too.
    const size_t max_size = cap_ > SIZE_MAX - start_ ? SIZE_MAX : start_ + cap_;
    out_.reserve(std::max(new_size, std::min(2 * out_.capacity(), max_size)));
  }
  out_.resize(new_size);
}

}  // namespace detail

namespace {

using detail::BoundedSink;
using detail::Status;

Status copy_bounded(Bytes in, BoundedSink& sink) {
  if (in.size() > sink.budget()) return fail(RecordErrc::kDecompressTooLarge);
  MutableBytes w = sink.window_exact(in.size());
  if (!in.empty()) std::memcpy(w.data(), in.data(), in.size());
  sink.commit(in.size());
  return {};
}

Status compress_any(Codec codec, Bytes in, std::vector<uint8_t>& out, int level) {
  switch (codec) {
    case Codec::kNone:
      ByteWriter(out).bytes(in);
      return {};
    case Codec::kGzip:
      return detail::compress_gzip(in, out, level);
    case Codec::kSnappy:
      return detail::compress_snappy(in, out);
    case Codec::kLz4:
      return detail::compress_lz4(in, out, level);
    case Codec::kZstd:
      return detail::compress_zstd(in, out, level);
  }
  return fail(RecordErrc::kUnknownCodec);
}

Status decompress_any(Codec codec, Bytes in, BoundedSink& sink) {
  switch (codec) {
    case Codec::kNone:
      return copy_bounded(in, sink);
    case Codec::kGzip:
      return detail::decompress_gzip(in, sink);
    case Codec::kSnappy:
      return detail::decompress_snappy(in, sink);
    case Codec::kLz4:
      return detail::decompress_lz4(in, sink);
    case Codec::kZstd:
      return detail::decompress_zstd(in, sink);
  }
  return fail(RecordErrc::kUnknownCodec);
}

}  // namespace

// Both functions leave `out` exactly as it was when they fail.
Result<void, RecordErrc> compress(Codec codec, Bytes in, std::vector<uint8_t>& out, int level) {
  const size_t start = out.size();
  Status s = compress_any(codec, in, out, level);
  if (!s.ok()) out.resize(start);
  return s;
}

Result<void, RecordErrc> decompress(Codec codec, Bytes in, std::vector<uint8_t>& out,
                                    const DecompressLimits& limits) {
  const size_t start = out.size();
  BoundedSink sink(out, limits.max_output_bytes, in.size());
  Status s = decompress_any(codec, in, sink);
  if (s.ok()) {
    sink.finish();
  } else {
    out.resize(start);
  }
  return s;
}

}  // namespace strata::record

// snappy: raw blocks, and the xerial framing that Java's SnappyOutputStream and
// kafka-python write:
//
//   stream  := header block*
//   header  := 0x82 'S' 'N' 'A' 'P' 'P' 'Y' 0x00  version:int32  compatible:int32
//   block   := length:int32  raw-snappy-block[length]
//
// All integers are big-endian. Input that does not start with the magic is one raw block.
// A header may reappear between blocks (concatenated streams, which snappy-java also
// reads); it cannot be mistaken for a block length, which would be negative.
#include <snappy.h>

#include <algorithm>
#include <cstring>

#include "record/compression_internal.h"

namespace strata::record::detail {
namespace {

constexpr uint8_t kXerialMagic[] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0x00};
constexpr size_t kXerialHeaderBytes = 16;
static_assert(sizeof(kXerialMagic) + 4 + 4 == kXerialHeaderBytes);
// What the writer puts in the header: the only xerial version there is. The reader skips
// both numbers, as every client does; the block format never changed.
constexpr int32_t kXerialVersion = 1;
constexpr int32_t kXerialCompatibleVersion = 1;
// Uncompressed bytes per block; snappy-java's and kafka-python's default.
constexpr size_t kXerialBlockBytes = 32u << 10;

const char* as_chars(const uint8_t* p) {
  return reinterpret_cast<const char*>(p);
}

bool starts_with_magic(Bytes in) {
  return in.size() >= kXerialHeaderBytes &&
         std::memcmp(in.data(), kXerialMagic, sizeof(kXerialMagic)) == 0;
}

// One raw block. Its declared length is checked against the limit, and the whole block
// validated, before any output is allocated.
Status decompress_raw(Bytes block, BoundedSink& sink) {
  size_t n = 0;
  if (!snappy::GetUncompressedLength(as_chars(block.data()), block.size(), &n)) {
    return fail(RecordErrc::kDecompressFailed);
  }
  if (n > sink.budget()) return fail(RecordErrc::kDecompressTooLarge);
  if (!snappy::IsValidCompressedBuffer(as_chars(block.data()), block.size())) {
    return fail(RecordErrc::kDecompressFailed);
  }
  MutableBytes w = sink.window_exact(n);
  if (!snappy::RawUncompress(as_chars(block.data()), block.size(),
                             reinterpret_cast<char*>(w.data()))) {
    return fail(RecordErrc::kDecompressFailed);
  }
  sink.commit(n);
  return {};
}

Status decompress_xerial(Bytes in, BoundedSink& sink) {
  ByteReader r(in);
  // Each pass consumes at least 4 bytes, so the loop ends.
  while (r.remaining() > 0) {
    if (starts_with_magic(r.rest())) {
      r.skip(kXerialHeaderBytes);
      continue;
    }
    const int32_t length = r.i32();
    if (!r.ok() || !r.fits(length)) return fail(RecordErrc::kDecompressFailed);
    Status s = decompress_raw(r.take(size_t(length)), sink);
    if (!s.ok()) return s;
  }
  return {};
}

}  // namespace

Status compress_snappy(Bytes in, std::vector<uint8_t>& out) {
  ByteWriter w(out);
  w.bytes(Bytes(kXerialMagic));
  w.i32(kXerialVersion);
  w.i32(kXerialCompatibleVersion);
  for (size_t pos = 0; pos < in.size(); pos += kXerialBlockBytes) {
    const Bytes chunk = in.subspan(pos, std::min(kXerialBlockBytes, in.size() - pos));
    const size_t length_at = w.reserve(4);
    const size_t block_at = out.size();
    out.resize(block_at + snappy::MaxCompressedLength(chunk.size()));
    size_t n = 0;
    snappy::RawCompress(as_chars(chunk.data()), chunk.size(),
                        reinterpret_cast<char*>(out.data() + block_at), &n);
    out.resize(block_at + n);
    w.patch_i32(length_at, int32_t(n));  // n <= MaxCompressedLength(32 KiB)
  }
  return {};
}

Status decompress_snappy(Bytes in, BoundedSink& sink) {
  return starts_with_magic(in) ? decompress_xerial(in, sink) : decompress_raw(in, sink);
}

}  // namespace strata::record::detail

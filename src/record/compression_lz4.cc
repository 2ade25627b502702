// lz4 through liblz4's frame API. Kafka uses the LZ4 frame format:
//
//   frame      := magic:u32le(0x184D2204) descriptor block* end-mark:u32le(0) [xxh32:u32le]
//   descriptor := FLG BD [content-size:u64le if FLG.3] [dict-id:u32le if FLG.0] HC
//   HC         := (xxh32(FLG .. the byte before HC, seed 0) >> 8) & 0xFF
//
// Concatenated (and skippable) frames are read as one stream. Our writer matches Java's
// KafkaLZ4BlockOutputStream: 64 KiB independent blocks, no content size, no checksums;
// Java's reader decodes each block on its own and cannot read linked blocks.
#include <lz4frame.h>

#include <cstring>
#include <memory>

#include "record/compression.h"
#include "record/compression_internal.h"

namespace strata::record {
namespace detail {
namespace {

struct DctxFree {
  void operator()(LZ4F_dctx* d) const { LZ4F_freeDecompressionContext(d); }
};

}  // namespace

Status compress_lz4(Bytes in, std::vector<uint8_t>& out, int level) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  prefs.frameInfo.blockMode = LZ4F_blockIndependent;
  prefs.compressionLevel = level < 0 ? 0 : level;  // 0: liblz4's fast default
  const size_t start = out.size();
  const size_t bound = LZ4F_compressFrameBound(in.size(), &prefs);
  out.resize(start + bound);
  const size_t n = LZ4F_compressFrame(out.data() + start, bound, in.data(), in.size(), &prefs);
  if (LZ4F_isError(n)) return fail(RecordErrc::kCompressFailed);
  out.resize(start + n);
  return {};
}

Status decompress_lz4(Bytes in, BoundedSink& sink) {
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
    return fail(RecordErrc::kDecompressFailed);
  }
  const std::unique_ptr<LZ4F_dctx, DctxFree> dctx(raw);
  size_t pos = 0;
  // Each pass consumes input or produces output (else it fails), so the loop is bounded
  // by in.size() + the limit.
  for (;;) {
    const MutableBytes w = sink.window();
    size_t src_n = in.size() - pos;
    size_t dst_n = w.size();
    const size_t hint =
        LZ4F_decompress(dctx.get(), w.data(), &dst_n, in.data() + pos, &src_n, nullptr);
    if (LZ4F_isError(hint)) return fail(RecordErrc::kDecompressFailed);
    pos += src_n;
    sink.commit(dst_n);
    if (sink.over_limit()) return fail(RecordErrc::kDecompressTooLarge);
    const bool input_done = pos == in.size();
    if (hint == 0 && input_done) return {};  // a frame ended with the input
    // Input used up with output room to spare, mid-frame: truncated.
    if (input_done && dst_n < w.size()) return fail(RecordErrc::kDecompressFailed);
    if (src_n == 0 && dst_n == 0) return fail(RecordErrc::kDecompressFailed);
  }
}

}  // namespace detail

// KAFKA-3160: Kafka before 0.10 hashed the frame's magic number into HC too, i.e.
// HC' = (xxh32(magic .. the byte before HC) >> 8) & 0xFF, which liblz4 rejects. If the
// stored HC is the broken one, decode a copy with HC corrected; anything else goes to the
// normal path unchanged, so a correct frame still reads and a damaged one still fails.

namespace {

constexpr uint32_t kLz4FrameMagic = 0x184D2204;
constexpr size_t kLz4MagicBytes = 4;
constexpr uint8_t kFlgContentSize = 0x08;
constexpr uint8_t kFlgDictId = 0x01;

uint32_t load_le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint32_t rotl32(uint32_t x, int r) {
  return (x << r) | (x >> (32 - r));
}

// XXH32 (github.com/Cyan4973/xxHash, xxhash_spec.md), written out because liblz4 does not
// export its copy. Only ever hashes a frame descriptor: at most 18 bytes.
uint32_t xxh32(Bytes in, uint32_t seed) {
  constexpr uint32_t kP1 = 2654435761U, kP2 = 2246822519U, kP3 = 3266489917U, kP4 = 668265263U,
                     kP5 = 374761393U;
  const uint8_t* p = in.data();
  size_t n = in.size();
  uint32_t h = 0;
  if (n >= 16) {
    uint32_t v[4] = {seed + kP1 + kP2, seed + kP2, seed, seed - kP1};
    for (; n >= 16; n -= 16) {
      for (uint32_t& lane : v) {
        lane = rotl32(lane + load_le32(p) * kP2, 13) * kP1;
        p += 4;
      }
    }
    h = rotl32(v[0], 1) + rotl32(v[1], 7) + rotl32(v[2], 12) + rotl32(v[3], 18);
  } else {
    h = seed + kP5;
  }
  h += uint32_t(in.size());
  for (; n >= 4; n -= 4, p += 4) h = rotl32(h + load_le32(p) * kP3, 17) * kP4;
  for (; n > 0; --n, ++p) h = rotl32(h + *p * kP5, 11) * kP1;
  h ^= h >> 15;
  h *= kP2;
  h ^= h >> 13;
  h *= kP3;
  h ^= h >> 16;
  return h;
}

uint8_t header_checksum(Bytes hashed) {
  return uint8_t(xxh32(hashed, 0) >> 8);
}

// Position of HC in a frame that starts `in`, or 0 if `in` does not start with a frame
// descriptor.
size_t header_checksum_pos(Bytes in) {
  if (in.size() < kLz4MagicBytes + 3 || load_le32(in.data()) != kLz4FrameMagic) return 0;
  const uint8_t flg = in[kLz4MagicBytes];
  const size_t pos =
      kLz4MagicBytes + 2 + ((flg & kFlgContentSize) ? 8 : 0) + ((flg & kFlgDictId) ? 4 : 0);
  return pos < in.size() ? pos : 0;
}

}  // namespace

Result<void, RecordErrc> decompress_lz4_legacy_v0(Bytes in, std::vector<uint8_t>& out,
                                                  const DecompressLimits& limits) {
  const size_t hc_pos = header_checksum_pos(in);
  if (hc_pos == 0) return decompress(Codec::kLz4, in, out, limits);
  const uint8_t correct = header_checksum(in.subspan(kLz4MagicBytes, hc_pos - kLz4MagicBytes));
  const uint8_t legacy = header_checksum(in.first(hc_pos));
  if (in[hc_pos] == correct || in[hc_pos] != legacy) {
    return decompress(Codec::kLz4, in, out, limits);
  }
  // One copy of a legacy message (at most message.max.bytes): liblz4 reads contiguous input.
  std::vector<uint8_t> fixed(in.begin(), in.end());
  fixed[hc_pos] = correct;
  return decompress(Codec::kLz4, fixed, out, limits);
}

}  // namespace strata::record

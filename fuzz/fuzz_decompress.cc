// Fuzzes the codecs of record/compression.h. Byte 0 picks the path (low 3 bits: the codec
// 0-4, 5 for the legacy magic-0 lz4 reader, 6-7 unknown codecs) and a compression level
// (high 3 bits). The rest is
//   1. decompressed with a small limit: must fail cleanly or stay within the limit, and a
//      failure must leave the output untouched;
//   2. compressed and decompressed again: must give back exactly the rest.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "record/compression.h"

namespace {

using strata::Bytes;
using strata::record::Codec;
using strata::record::DecompressLimits;
using strata::record::RecordErrc;

constexpr size_t kFuzzLimitBytes = 1u << 20;
constexpr uint8_t kLegacyLz4Path = 5;

void check(bool ok) {
  if (!ok) std::abort();
}

void fuzz_decompress(uint8_t path, Bytes in) {
  std::vector<uint8_t> out;
  const DecompressLimits limits{kFuzzLimitBytes};
  const auto r = path == kLegacyLz4Path ? strata::record::decompress_lz4_legacy_v0(in, out, limits)
                                        : strata::record::decompress(Codec(path), in, out, limits);
  if (r.ok()) {
    check(path <= strata::record::kCodecMax || path == kLegacyLz4Path);
    check(out.size() <= kFuzzLimitBytes);
  } else {
    check(out.empty());
    if (path > kLegacyLz4Path) check(r.error() == RecordErrc::kUnknownCodec);
  }
}

void fuzz_round_trip(Codec codec, int level, Bytes in) {
  std::vector<uint8_t> packed;
  if (!strata::record::compress(codec, in, packed, level).ok()) std::abort();
  std::vector<uint8_t> out = {0xEE};  // output is appended after what is there
  const auto r = strata::record::decompress(codec, packed, out, DecompressLimits{in.size()});
  check(r.ok());
  check(out.size() == in.size() + 1 && out[0] == 0xEE);
  check(std::equal(in.begin(), in.end(), out.begin() + 1));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t path = data[0] & 0x07;
  const int level = (data[0] >> 5) - 1;  // -1 (codec default) .. 6
  const Bytes in(data + 1, size - 1);
  fuzz_decompress(path, in);
  if (path <= strata::record::kCodecMax) fuzz_round_trip(Codec(path), level, in);
  if (path == kLegacyLz4Path) fuzz_round_trip(Codec::kLz4, level, in);
  return 0;
}

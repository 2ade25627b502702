#include "record/compression.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

namespace strata::record {
namespace {

using Status = Result<void, RecordErrc>;

constexpr Codec kAllCodecs[] = {Codec::kNone, Codec::kGzip, Codec::kSnappy, Codec::kLz4,
                                Codec::kZstd};
constexpr Codec kRealCodecs[] = {Codec::kGzip, Codec::kSnappy, Codec::kLz4, Codec::kZstd};

// The error of a failed call; RecordErrc{} (no enumerator) for success.
RecordErrc error_of(const Status& s) {
  return s.ok() ? RecordErrc{} : s.error();
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed = 301) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = uint8_t(rng());
  return v;
}

// Record-like text: compresses well but is not one repeated byte.
std::vector<uint8_t> compressible_bytes(size_t n) {
  std::vector<uint8_t> v;
  v.reserve(n + 64);
  for (int i = 0; v.size() < n; ++i) {
    const std::string line = "key-" + std::to_string(i % 1000) + " value payload;";
    v.insert(v.end(), line.begin(), line.end());
  }
  v.resize(n);
  return v;
}

std::vector<uint8_t> pack(Codec codec, Bytes in, int level = -1) {
  std::vector<uint8_t> out;
  EXPECT_TRUE(compress(codec, in, out, level).ok());
  return out;
}

// Decompresses into a vector expected to stay empty (or hold the output on success).
Status unpack(Codec codec, Bytes in, std::vector<uint8_t>& out, size_t limit = 64u << 20) {
  return decompress(codec, in, out, DecompressLimits{limit});
}

RecordErrc unpack_error(Codec codec, Bytes in, size_t limit = 64u << 20) {
  std::vector<uint8_t> out;
  const Status s = unpack(codec, in, out, limit);
  if (!s.ok()) {
    EXPECT_TRUE(out.empty()) << "a failed call leaves the output as it was";
  }
  return error_of(s);
}

std::vector<uint8_t> concat(Bytes a, Bytes b) {
  std::vector<uint8_t> v(a.begin(), a.end());
  v.insert(v.end(), b.begin(), b.end());
  return v;
}

const std::string kText = "strata reads what kafka-python writes. ";
const std::string kThreeTimes = kText + kText + kText;

// Golden bytes: kafka-python 2.0.2 (kafka.codec) encoding kThreeTimes, Debian bookworm.

// gzip_encode(text)
constexpr uint8_t kGzipPython[] = {
    0x1f, 0x8b, 0x08, 0x00, 0x61, 0x82, 0x0c, 0x6b, 0x02, 0xff, 0x2b, 0x2e, 0x29, 0x4a, 0x2c, 0x49,
    0x54, 0x28, 0x4a, 0x4d, 0x4c, 0x29, 0x56, 0x28, 0xcf, 0x48, 0x2c, 0x51, 0xc8, 0x4e, 0x4c, 0xcb,
    0x4e, 0xd4, 0x2d, 0xa8, 0x2c, 0xc9, 0xc8, 0xcf, 0x53, 0x28, 0x2f, 0xca, 0x2c, 0x49, 0x2d, 0xd6,
    0x53, 0x28, 0xa6, 0xaa, 0x32, 0x00, 0xa5, 0xb7, 0xa6, 0x95, 0x75, 0x00, 0x00, 0x00,
};
// snappy_encode(text): xerial framing, one block.
constexpr uint8_t kSnappyXerialPython[] = {
    0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x00, 0x00, 0x2f, 0x75, 0x98, 0x73, 0x74, 0x72, 0x61, 0x74, 0x61,
    0x20, 0x72, 0x65, 0x61, 0x64, 0x73, 0x20, 0x77, 0x68, 0x61, 0x74, 0x20, 0x6b, 0x61,
    0x66, 0x6b, 0x61, 0x2d, 0x70, 0x79, 0x74, 0x68, 0x6f, 0x6e, 0x20, 0x77, 0x72, 0x69,
    0x74, 0x65, 0x73, 0x2e, 0x20, 0xfe, 0x27, 0x00, 0x36, 0x27, 0x00,
};
// snappy_encode(text, xerial_compatible=False): one raw block.
constexpr uint8_t kSnappyRawPython[] = {
    0x75, 0x98, 0x73, 0x74, 0x72, 0x61, 0x74, 0x61, 0x20, 0x72, 0x65, 0x61, 0x64, 0x73, 0x20, 0x77,
    0x68, 0x61, 0x74, 0x20, 0x6b, 0x61, 0x66, 0x6b, 0x61, 0x2d, 0x70, 0x79, 0x74, 0x68, 0x6f, 0x6e,
    0x20, 0x77, 0x72, 0x69, 0x74, 0x65, 0x73, 0x2e, 0x20, 0xfe, 0x27, 0x00, 0x36, 0x27, 0x00,
};
// lz4_encode(text): FLG 0x68 (independent blocks, content size), BD 0x40.
constexpr uint8_t kLz4Python[] = {
    0x04, 0x22, 0x4d, 0x18, 0x68, 0x40, 0x75, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe7,
    0x32, 0x00, 0x00, 0x00, 0xff, 0x18, 0x73, 0x74, 0x72, 0x61, 0x74, 0x61, 0x20, 0x72, 0x65,
    0x61, 0x64, 0x73, 0x20, 0x77, 0x68, 0x61, 0x74, 0x20, 0x6b, 0x61, 0x66, 0x6b, 0x61, 0x2d,
    0x70, 0x79, 0x74, 0x68, 0x6f, 0x6e, 0x20, 0x77, 0x72, 0x69, 0x74, 0x65, 0x73, 0x2e, 0x20,
    0x27, 0x00, 0x36, 0x50, 0x74, 0x65, 0x73, 0x2e, 0x20, 0x00, 0x00, 0x00, 0x00,
};
// lz4_encode_old_kafka(text): the pre-0.10 header checksum (0x1a), hashed from the magic.
constexpr uint8_t kLz4LegacyV0[] = {
    0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x1a, 0x32, 0x00, 0x00, 0x00, 0xff, 0x18,
    0x73, 0x74, 0x72, 0x61, 0x74, 0x61, 0x20, 0x72, 0x65, 0x61, 0x64, 0x73, 0x20,
    0x77, 0x68, 0x61, 0x74, 0x20, 0x6b, 0x61, 0x66, 0x6b, 0x61, 0x2d, 0x70, 0x79,
    0x74, 0x68, 0x6f, 0x6e, 0x20, 0x77, 0x72, 0x69, 0x74, 0x65, 0x73, 0x2e, 0x20,
    0x27, 0x00, 0x36, 0x50, 0x74, 0x65, 0x73, 0x2e, 0x20, 0x00, 0x00, 0x00, 0x00,
};
// python-lz4 frame with content size and content checksum, HC replaced by the legacy
// hash over 18 bytes (magic + descriptor; 0xa4, the correct one is 0xab), computed with
// libxxhash. Exercises the 16-byte-stripe path of our XXH32.
constexpr uint8_t kLz4LegacyV0ContentSize[] = {
    0x04, 0x22, 0x4d, 0x18, 0x6c, 0x40, 0x75, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa4, 0x32,
    0x00, 0x00, 0x00, 0xff, 0x18, 0x73, 0x74, 0x72, 0x61, 0x74, 0x61, 0x20, 0x72, 0x65, 0x61, 0x64,
    0x73, 0x20, 0x77, 0x68, 0x61, 0x74, 0x20, 0x6b, 0x61, 0x66, 0x6b, 0x61, 0x2d, 0x70, 0x79, 0x74,
    0x68, 0x6f, 0x6e, 0x20, 0x77, 0x72, 0x69, 0x74, 0x65, 0x73, 0x2e, 0x20, 0x27, 0x00, 0x36, 0x50,
    0x74, 0x65, 0x73, 0x2e, 0x20, 0x00, 0x00, 0x00, 0x00, 0xa2, 0xd1, 0xca, 0xe7,
};
// zstd_encode(text): single-segment frame with a content size.
constexpr uint8_t kZstdPython[] = {
    0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x75, 0x7d, 0x01, 0x00, 0x74, 0x02, 0x73, 0x74, 0x72,
    0x61, 0x74, 0x61, 0x20, 0x72, 0x65, 0x61, 0x64, 0x73, 0x20, 0x77, 0x68, 0x61, 0x74,
    0x20, 0x6b, 0x61, 0x66, 0x6b, 0x61, 0x2d, 0x70, 0x79, 0x74, 0x68, 0x6f, 0x6e, 0x20,
    0x77, 0x72, 0x69, 0x74, 0x65, 0x73, 0x2e, 0x20, 0x01, 0x00, 0x5f, 0x85, 0xaa, 0x27,
};
// zstandard.ZstdCompressor(write_content_size=False): no content size, as Java writes.
constexpr uint8_t kZstdNoContentSizePython[] = {
    0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 0x7d, 0x01, 0x00, 0x74, 0x02, 0x73, 0x74, 0x72,
    0x61, 0x74, 0x61, 0x20, 0x72, 0x65, 0x61, 0x64, 0x73, 0x20, 0x77, 0x68, 0x61, 0x74,
    0x20, 0x6b, 0x61, 0x66, 0x6b, 0x61, 0x2d, 0x70, 0x79, 0x74, 0x68, 0x6f, 0x6e, 0x20,
    0x77, 0x72, 0x69, 0x74, 0x65, 0x73, 0x2e, 0x20, 0x01, 0x00, 0x5f, 0x85, 0xaa, 0x27,
};

void expect_reads(Codec codec, Bytes golden, std::string_view want) {
  std::vector<uint8_t> out;
  ASSERT_TRUE(unpack(codec, golden, out).ok()) << int(codec);
  EXPECT_EQ(as_string_view(out), want);
}

// ---- every codec ----

TEST(Compression, RoundTripEachCodec) {
  const std::vector<std::vector<uint8_t>> inputs = {
      {}, {0x2a}, random_bytes(1u << 20), compressible_bytes(1u << 20)};
  for (Codec codec : kAllCodecs) {
    for (const auto& in : inputs) {
      const std::vector<uint8_t> packed = pack(codec, in);
      if (codec != Codec::kNone && in.size() == (1u << 20) && in[0] == 'k') {
        EXPECT_LT(packed.size(), in.size() / 4) << "compressible input shrinks";
      }
      std::vector<uint8_t> out;
      ASSERT_TRUE(unpack(codec, packed, out).ok()) << int(codec) << " size " << in.size();
      EXPECT_EQ(out, in) << int(codec) << " size " << in.size();
    }
  }
}

TEST(Compression, RoundTripLevels) {
  const std::vector<uint8_t> in = compressible_bytes(300000);
  const std::pair<Codec, int> cases[] = {{Codec::kGzip, 1},  {Codec::kGzip, 9},
                                         {Codec::kLz4, 9},   {Codec::kZstd, 1},
                                         {Codec::kZstd, 19}, {Codec::kSnappy, 5}};
  for (auto [codec, level] : cases) {
    std::vector<uint8_t> out;
    ASSERT_TRUE(unpack(codec, pack(codec, in, level), out).ok()) << int(codec) << level;
    EXPECT_EQ(out, in);
  }
}

TEST(Compression, AppendsToOutput) {
  const std::vector<uint8_t> in = compressible_bytes(5000);
  for (Codec codec : kAllCodecs) {
    std::vector<uint8_t> packed = {1, 2, 3};
    ASSERT_TRUE(compress(codec, in, packed).ok());
    std::vector<uint8_t> out = {9, 8};
    ASSERT_TRUE(unpack(codec, Bytes(packed).subspan(3), out).ok());
    EXPECT_EQ(out, concat(std::vector<uint8_t>{9, 8}, in));
  }
}

TEST(Compression, FailureLeavesOutputUntouched) {
  const std::vector<uint8_t> in = compressible_bytes(200000);
  for (Codec codec : kRealCodecs) {
    const std::vector<uint8_t> packed = pack(codec, in);
    const Bytes truncated = Bytes(packed).first(packed.size() - 3);
    std::vector<uint8_t> out = {7, 7, 7};
    EXPECT_EQ(error_of(unpack(codec, truncated, out)), RecordErrc::kDecompressFailed) << int(codec);
    EXPECT_EQ(out, (std::vector<uint8_t>{7, 7, 7}));
  }
}

TEST(Compression, UnknownCodec) {
  const std::vector<uint8_t> in = {1, 2, 3};
  for (uint8_t bits : {5, 6, 7, 200}) {
    std::vector<uint8_t> out = {4};
    EXPECT_EQ(error_of(compress(Codec(bits), in, out)), RecordErrc::kUnknownCodec);
    EXPECT_EQ(error_of(unpack(Codec(bits), in, out)), RecordErrc::kUnknownCodec);
    EXPECT_EQ(out, std::vector<uint8_t>{4});
  }
}

TEST(Compression, OutputExactlyAtLimit) {
  for (size_t n : {size_t(0), size_t(1), size_t(100000)}) {
    const std::vector<uint8_t> in = compressible_bytes(n);
    for (Codec codec : kAllCodecs) {
      const std::vector<uint8_t> packed = pack(codec, in);
      std::vector<uint8_t> out;
      EXPECT_TRUE(unpack(codec, packed, out, n).ok()) << int(codec) << " n " << n;
      EXPECT_EQ(out, in);
      if (n > 0) {
        EXPECT_EQ(unpack_error(codec, packed, n - 1), RecordErrc::kDecompressTooLarge)
            << int(codec) << " n " << n;
      }
    }
  }
}

// A small input that expands far past a small limit fails as soon as the limit is passed,
// and the output vector never grows past it.
void expect_bomb_stopped(Codec codec) {
  const std::vector<uint8_t> zeros(16u << 20, 0);
  const std::vector<uint8_t> packed = pack(codec, zeros);
  ASSERT_LT(packed.size(), zeros.size() / 20);
  constexpr size_t kLimit = 100u << 10;
  std::vector<uint8_t> out;
  EXPECT_EQ(error_of(unpack(codec, packed, out, kLimit)), RecordErrc::kDecompressTooLarge);
  EXPECT_TRUE(out.empty());
  EXPECT_LE(out.capacity(), kLimit + 1);
}

TEST(Compression, DecompressionBombGzip) {
  expect_bomb_stopped(Codec::kGzip);
}
TEST(Compression, DecompressionBombZstd) {
  expect_bomb_stopped(Codec::kZstd);
}
TEST(Compression, DecompressionBombLz4) {
  expect_bomb_stopped(Codec::kLz4);
}
TEST(Compression, DecompressionBombSnappy) {
  expect_bomb_stopped(Codec::kSnappy);
}

// SIZE_MAX means no bound; the probe byte must not overflow it.
TEST(Compression, UnboundedLimit) {
  const std::vector<uint8_t> in = compressible_bytes(70000);
  for (Codec codec : kAllCodecs) {
    std::vector<uint8_t> out;
    ASSERT_TRUE(unpack(codec, pack(codec, in), out, SIZE_MAX).ok()) << int(codec);
    EXPECT_EQ(out, in);
  }
}

TEST(Compression, NoneCopiesWithinLimit) {
  const std::vector<uint8_t> in = random_bytes(1000);
  std::vector<uint8_t> out;
  ASSERT_TRUE(unpack(Codec::kNone, in, out).ok());
  EXPECT_EQ(out, in);
  EXPECT_EQ(unpack_error(Codec::kNone, in, 999), RecordErrc::kDecompressTooLarge);
}

// ---- gzip ----

TEST(Compression, GzipReadsPython) {
  expect_reads(Codec::kGzip, kGzipPython, kThreeTimes);
}

TEST(Compression, GzipConcatenatedMembers) {
  const std::vector<uint8_t> a = pack(Codec::kGzip, as_bytes("first "));
  const std::vector<uint8_t> b = pack(Codec::kGzip, as_bytes("second"));
  expect_reads(Codec::kGzip, concat(a, b), "first second");
}

TEST(Compression, GzipCorruptStream) {
  const std::vector<uint8_t> good = pack(Codec::kGzip, compressible_bytes(10000));
  const size_t n = good.size();
  for (size_t at : {size_t(0), size_t(1), n / 2, n - 8, n - 1}) {  // magic, body, CRC, ISIZE
    std::vector<uint8_t> bad = good;
    bad[at] ^= 0x55;
    EXPECT_EQ(unpack_error(Codec::kGzip, bad), RecordErrc::kDecompressFailed) << "at " << at;
  }
}

TEST(Compression, GzipTruncated) {
  const std::vector<uint8_t> good = pack(Codec::kGzip, compressible_bytes(10000));
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_EQ(unpack_error(Codec::kGzip, Bytes(good).first(n)), RecordErrc::kDecompressFailed)
        << "prefix " << n;
  }
}

TEST(Compression, GzipTrailingGarbage) {
  std::vector<uint8_t> bad = pack(Codec::kGzip, as_bytes("payload"));
  bad.push_back(0);
  EXPECT_EQ(unpack_error(Codec::kGzip, bad), RecordErrc::kDecompressFailed);
}

TEST(Compression, GzipBadLevel) {
  std::vector<uint8_t> out = {5};
  EXPECT_EQ(error_of(compress(Codec::kGzip, as_bytes("x"), out, 42)), RecordErrc::kCompressFailed);
  EXPECT_EQ(out, std::vector<uint8_t>{5});
}

// ---- snappy ----

TEST(Compression, SnappyReadsRawAndXerial) {
  expect_reads(Codec::kSnappy, kSnappyXerialPython, kThreeTimes);
  expect_reads(Codec::kSnappy, kSnappyRawPython, kThreeTimes);
}

// Header as kafka-python and snappy-java write it, then one block per 32 KiB of input.
TEST(Compression, SnappyWritesXerialFraming) {
  const std::vector<uint8_t> in = compressible_bytes(100000);
  const std::vector<uint8_t> packed = pack(Codec::kSnappy, in);
  ASSERT_GE(packed.size(), 16u);
  EXPECT_EQ(std::memcmp(packed.data(), kSnappyXerialPython, 16), 0);
  ByteReader r(Bytes(packed).subspan(16));
  int blocks = 0;
  while (r.remaining() > 0) {
    r.skip(size_t(r.i32()));
    ++blocks;
  }
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(blocks, 4);  // 32 + 32 + 32 + 1.7 KiB
}

TEST(Compression, SnappyXerialHeaderOnlyIsEmpty) {
  std::vector<uint8_t> out;
  ASSERT_TRUE(unpack(Codec::kSnappy, Bytes(kSnappyXerialPython).first(16), out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(Compression, SnappyConcatenatedXerialStreams) {
  expect_reads(Codec::kSnappy, concat(kSnappyXerialPython, kSnappyXerialPython),
               kThreeTimes + kThreeTimes);
}

TEST(Compression, SnappyXerialTruncatedBlock) {
  const Bytes golden(kSnappyXerialPython);
  // Cut inside the length word or inside the block.
  for (size_t n = 17; n < golden.size(); ++n) {
    EXPECT_EQ(unpack_error(Codec::kSnappy, golden.first(n)), RecordErrc::kDecompressFailed)
        << "prefix " << n;
  }
  // Block lengths past the end, negative, and zero.
  for (uint32_t length : {0x30u, 0xffffffffu, 0x80000000u, 0u}) {
    std::vector<uint8_t> bad(golden.begin(), golden.end());
    store_be32(&bad[16], length);
    EXPECT_EQ(unpack_error(Codec::kSnappy, bad), RecordErrc::kDecompressFailed) << length;
  }
}

TEST(Compression, SnappyRawCorrupt) {
  EXPECT_EQ(unpack_error(Codec::kSnappy, {}), RecordErrc::kDecompressFailed);
  std::vector<uint8_t> bad(std::begin(kSnappyRawPython), std::end(kSnappyRawPython));
  bad[0] = 0x76;  // declares one byte more than the ops produce
  EXPECT_EQ(unpack_error(Codec::kSnappy, bad), RecordErrc::kDecompressFailed);
  bad = {0x05, 0x01};  // copy op pointing before the start
  EXPECT_EQ(unpack_error(Codec::kSnappy, bad), RecordErrc::kDecompressFailed);
}

// A raw block whose varint header declares 2^32-1 bytes fails on the declaration alone.
TEST(Compression, SnappyDeclaredLengthPastLimit) {
  const std::vector<uint8_t> bomb = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x00};
  EXPECT_EQ(unpack_error(Codec::kSnappy, bomb, 1u << 20), RecordErrc::kDecompressTooLarge);
}

// ---- lz4 ----

TEST(Compression, Lz4ReadsPython) {
  expect_reads(Codec::kLz4, kLz4Python, kThreeTimes);
}

// What Java's KafkaLZ4BlockInputStream reads: FLG = version 01 + independent blocks, no
// content size or checksums; BD = 64 KiB blocks.
TEST(Compression, Lz4WritesJavaCompatibleFrame) {
  const std::vector<uint8_t> packed = pack(Codec::kLz4, compressible_bytes(200000));
  ASSERT_GE(packed.size(), 7u);
  EXPECT_EQ(std::memcmp(packed.data(), kLz4Python, 4), 0);  // magic
  EXPECT_EQ(packed[4], 0x60);
  EXPECT_EQ(packed[5], 0x40);
}

TEST(Compression, Lz4ConcatenatedFrames) {
  const std::vector<uint8_t> a = pack(Codec::kLz4, as_bytes("first "));
  expect_reads(Codec::kLz4, concat(a, kLz4Python), "first " + kThreeTimes);
}

TEST(Compression, Lz4BadFrame) {
  const Bytes golden(kLz4Python);
  EXPECT_EQ(unpack_error(Codec::kLz4, {}), RecordErrc::kDecompressFailed);
  for (size_t n = 1; n < golden.size(); ++n) {
    EXPECT_EQ(unpack_error(Codec::kLz4, golden.first(n)), RecordErrc::kDecompressFailed)
        << "prefix " << n;
  }
  const size_t corrupt_at[] = {0, 4, 14, 17};  // magic, FLG, HC, block size beyond 64 KiB
  for (size_t at : corrupt_at) {
    std::vector<uint8_t> bad(golden.begin(), golden.end());
    bad[at] ^= 0x80;
    EXPECT_EQ(unpack_error(Codec::kLz4, bad), RecordErrc::kDecompressFailed) << "at " << at;
  }
  std::vector<uint8_t> trailing(golden.begin(), golden.end());
  trailing.push_back(0x04);
  EXPECT_EQ(unpack_error(Codec::kLz4, trailing), RecordErrc::kDecompressFailed);
}

TEST(Compression, Lz4LegacyV0HeaderChecksum) {
  EXPECT_EQ(unpack_error(Codec::kLz4, kLz4LegacyV0), RecordErrc::kDecompressFailed);
  std::vector<uint8_t> out;
  ASSERT_TRUE(decompress_lz4_legacy_v0(kLz4LegacyV0, out).ok());
  EXPECT_EQ(as_string_view(out), kThreeTimes);
}

TEST(Compression, Lz4LegacyV0ContentSize) {
  EXPECT_EQ(unpack_error(Codec::kLz4, kLz4LegacyV0ContentSize), RecordErrc::kDecompressFailed);
  std::vector<uint8_t> out;
  ASSERT_TRUE(decompress_lz4_legacy_v0(kLz4LegacyV0ContentSize, out).ok());
  EXPECT_EQ(as_string_view(out), kThreeTimes);
}

TEST(Compression, Lz4LegacyV0ReadsCorrectFrames) {
  std::vector<uint8_t> out;
  ASSERT_TRUE(decompress_lz4_legacy_v0(kLz4Python, out).ok());
  EXPECT_EQ(as_string_view(out), kThreeTimes);
}

TEST(Compression, Lz4LegacyV0RejectsOtherChecksums) {
  std::vector<uint8_t> bad(std::begin(kLz4LegacyV0), std::end(kLz4LegacyV0));
  bad[6] ^= 0x01;  // neither the correct nor the legacy HC
  std::vector<uint8_t> out = {3};
  EXPECT_EQ(error_of(decompress_lz4_legacy_v0(bad, out)), RecordErrc::kDecompressFailed);
  EXPECT_EQ(out, std::vector<uint8_t>{3});
  for (size_t n = 0; n < sizeof(kLz4LegacyV0); ++n) {
    EXPECT_EQ(error_of(decompress_lz4_legacy_v0(Bytes(kLz4LegacyV0).first(n), out)),
              RecordErrc::kDecompressFailed)
        << "prefix " << n;
  }
  EXPECT_EQ(error_of(decompress_lz4_legacy_v0(kLz4LegacyV0, out, DecompressLimits{10})),
            RecordErrc::kDecompressTooLarge);
}

// ---- zstd ----

TEST(Compression, ZstdReadsPython) {
  expect_reads(Codec::kZstd, kZstdPython, kThreeTimes);
  expect_reads(Codec::kZstd, kZstdNoContentSizePython, kThreeTimes);
}

TEST(Compression, ZstdConcatenatedFrames) {
  const std::vector<uint8_t> skippable = {0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 0xaa, 0xbb};
  expect_reads(Codec::kZstd, concat(concat(kZstdPython, skippable), kZstdNoContentSizePython),
               kThreeTimes + kThreeTimes);
}

TEST(Compression, ZstdTruncated) {
  const std::vector<uint8_t> good = pack(Codec::kZstd, compressible_bytes(100000));
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_EQ(unpack_error(Codec::kZstd, Bytes(good).first(n)), RecordErrc::kDecompressFailed)
        << "prefix " << n;
  }
}

TEST(Compression, ZstdCorrupt) {
  std::vector<uint8_t> bad(std::begin(kZstdPython), std::end(kZstdPython));
  bad[0] ^= 0x01;  // magic
  EXPECT_EQ(unpack_error(Codec::kZstd, bad), RecordErrc::kDecompressFailed);
  bad.assign(std::begin(kZstdPython), std::end(kZstdPython));
  bad[6] |= 0x06;  // block type 3: reserved
  EXPECT_EQ(unpack_error(Codec::kZstd, bad), RecordErrc::kDecompressFailed);
  bad.assign(std::begin(kZstdPython), std::end(kZstdPython));
  bad.push_back(0x28);  // trailing byte: not a frame
  EXPECT_EQ(unpack_error(Codec::kZstd, bad), RecordErrc::kDecompressFailed);
}

}  // namespace
}  // namespace strata::record

#include "record/legacy.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "record/test_util.h"

namespace strata::record {
namespace {

using testing::from_hex;

// Golden entries written by kafka-python 2.0.2's LegacyRecordBatchBuilder (an independent
// implementation). Wrappers were built with offset 0 and patched to a real last offset
// (the offset field is outside the CRC). Timestamps are 1700000000000 + n.
constexpr int64_t kTs = 1700000000000;

// offset 5 key "k1" value "v1"; offset 6 null key, value "hello".
constexpr char kV0Uncompressed[] =
    "00000000000000050000001257e7496e0000000000026b310000000276310000"
    "0000000000060000001387a77ab20000ffffffff0000000568656c6c6f";
// offset 10 ts kTs key "key" value "value"; offset 11 ts kTs+1 null key, null value.
constexpr char kV1Uncompressed[] =
    "000000000000000a0000001e6ad05db801000000018bcfe56800000000036b65"
    "790000000576616c7565000000000000000b00000016b79a1a5801000000018b"
    "cfe56801ffffffffffffffff";
// Wrapper offset 102, CreateTime ts 0; inner 0..2: ("a","one",kTs) ("b","two",kTs+1)
// (null,"three",kTs+2).
constexpr char kGzipV1[] =
    "00000000000000660000006ec5e3f97301010000000000000000ffffffff0000"
    "00581f8b08002c820c6b02ff63608003a9fd2a720b18810cc6eef34f3340228c"
    "894082393f2f15aa022429d53efb4c205c159891045255529e0f55c504c4d2f2"
    "111b53e0aa98fe030190c35a9251949a0a00bed3be1473000000";
// Wrapper offset 41; inner 40 ("x","forty"), 41 (null,"forty-one").
constexpr char kGzipV0[] =
    "000000000000002900000050f18d80d30001ffffffff000000421f8b08002c82"
    "0c6b02ff636000030d2016b9b12e671998c758012458d3f28b4a2a21d20c9a40"
    "2cfecfa7692b03c37f2000f238c1d2baf979a90020c1080943000000";
// xerial-framed. Wrapper offset 8; inner 0 ("s","snappy-0",kTs), 1 ("s","snappy-1",kTs+5).
constexpr char kSnappyV1[] =
    "000000000000000800000072a01cbf9b01020000000000000000ffffffff0000"
    "005c82534e41505059000000000100000001000000485600001901341f736f86"
    "9d01000000018bcfe568011838017300000008736e617070792d300009010122"
    "101fe092d7ec01090001012b00050134307300000008736e617070792d31";
// lz4 frame with content size. Wrapper offset 21; inner 0 (null,"lz4-0",kTs),
// 1 ("k","lz4-1",kTs+9).
constexpr char kLz4V1[] =
    "00000000000000150000006eb32d52e801030000000000000000ffffffff0000"
    "005804224d1868404f00000000000000bd4100000016000100f30d1b0300a79a"
    "01000000018bcfe56800ffffffff000000056c7a342d302600001e00501c2689"
    "eca0090001270010093000a06b000000056c7a342d3100000000";
// Magic-0 lz4 with the pre-0.10 (KAFKA-3160) header checksum 0x1a. Wrapper offset 8;
// inner 7 ("old","lz4-v0-a"), 8 (null,"lz4-v0-b").
constexpr char kLz4V0[] =
    "00000000000000080000005ce53e8f6f0003ffffffff0000004e04224d186040"
    "1a3f00000012000100910700000019b4867ebd0f00f101036f6c64000000086c"
    "7a342d76302d611500f302000008000000164fc80d2b0000ffffffff2200502d"
    "76302d6200000000";

std::string opt_str(const std::optional<Bytes>& b) {
  return b ? std::string(as_string_view(*b)) : std::string("<null>");
}

std::vector<uint8_t> entry(LegacyEntrySpec spec) {
  std::vector<uint8_t> out;
  encode_legacy_entry(spec, out);
  return out;
}

LegacyEntrySpec v1(int64_t offset, std::string_view key, std::string_view value) {
  return {.offset = Offset(offset),
          .magic = kMagicV1,
          .attributes = 0,
          .timestamp = TimestampMs(kTs + offset),
          .key = as_bytes(key),
          .value = as_bytes(value)};
}

// Rewrites the CRC of the entry at the front of `bytes` after a test edits it.
void fix_crc(std::vector<uint8_t>& bytes) {
  const size_t message_size = load_be32(&bytes[8]);
  const Bytes message(bytes.data() + kLogOverhead, message_size);
  store_be32(&bytes[kLogOverhead + kLegacyCrcPos], compute_legacy_crc(message));
}

RecordErrc parse_error(Bytes in) {
  auto m = parse_legacy_entry(in);
  EXPECT_FALSE(m.ok());
  return m.ok() ? RecordErrc{} : m.error();
}

// Parses exactly one wrapper and reads its inner messages.
Result<std::vector<LegacyMessage>, RecordErrc> read_inner(const std::vector<uint8_t>& bytes,
                                                          std::vector<uint8_t>& scratch,
                                                          const DecompressLimits& limits = {}) {
  auto wrapper = parse_legacy_entry(bytes);
  EXPECT_TRUE(wrapper.ok());
  if (!wrapper) return fail(wrapper.error());
  EXPECT_EQ(wrapper->entry.size(), bytes.size());
  EXPECT_TRUE(wrapper->crc_valid);
  EXPECT_TRUE(wrapper->compressed());
  EXPECT_FALSE(wrapper->key.has_value());
  return read_wrapper_inner(*wrapper, scratch, limits);
}

struct Expected {
  int64_t offset;
  const char* key;  // "<null>" for null
  const char* value;
  int64_t timestamp;
};

void expect_messages(const std::vector<LegacyMessage>& got, const std::vector<Expected>& want,
                     int8_t magic) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(got[i].offset.value(), want[i].offset);
    EXPECT_EQ(opt_str(got[i].key), want[i].key);
    EXPECT_EQ(opt_str(got[i].value), want[i].value);
    EXPECT_EQ(got[i].timestamp.value(), want[i].timestamp);
    EXPECT_EQ(got[i].magic, magic);
    EXPECT_EQ(got[i].codec, Codec::kNone);
    EXPECT_TRUE(got[i].crc_valid);
  }
}

TEST(LegacyTest, ReadsV0Uncompressed) {
  const auto bytes = from_hex(kV0Uncompressed);
  Bytes rest(bytes);
  std::vector<LegacyMessage> got;
  while (!rest.empty()) {
    auto m = parse_legacy_entry(rest);
    ASSERT_TRUE(m.ok());
    EXPECT_TRUE(validate_legacy_crc(*m).ok());
    rest = rest.subspan(m->entry.size());
    got.push_back(*m);
  }
  expect_messages(got, {{5, "k1", "v1", -1}, {6, "<null>", "hello", -1}}, kMagicV0);
  EXPECT_EQ(got[0].entry.size(), 30u);
  EXPECT_EQ(got[0].crc, 0x57e7496eu);
  // Views, not copies.
  EXPECT_EQ(got[0].key->data(), bytes.data() + kLogOverhead + kLegacyKeyLengthPosV0 + 4);
}

TEST(LegacyTest, ReadsV1WithTimestamp) {
  const auto bytes = from_hex(kV1Uncompressed);
  auto m = parse_legacy_entry(bytes);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->entry.size(), 42u);
  EXPECT_EQ(m->timestamp_type, TimestampType::kCreateTime);
  expect_messages({*m}, {{10, "key", "value", kTs}}, kMagicV1);

  auto log_append = v1(3, "k", "v");
  log_append.attributes = kLegacyTimestampTypeBit;
  auto m2 = parse_legacy_entry(entry(log_append));
  ASSERT_TRUE(m2.ok());
  EXPECT_EQ(m2->timestamp_type, TimestampType::kLogAppendTime);
}

TEST(LegacyTest, NullKeyAndValue) {
  const auto bytes = from_hex(kV1Uncompressed);
  auto m = parse_legacy_entry(Bytes(bytes).subspan(42));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->entry.size(), kLogOverhead + kLegacyRecordOverheadV1);
  expect_messages({*m}, {{11, "<null>", "<null>", kTs + 1}}, kMagicV1);

  // Empty is not null.
  auto empty = parse_legacy_entry(entry(v1(0, "", "")));
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(empty->key.has_value() && empty->value.has_value());
  EXPECT_TRUE(empty->key->empty() && empty->value->empty());
}

TEST(LegacyTest, EncodeMatchesKafkaPython) {
  const auto golden = from_hex(kV1Uncompressed);
  auto first = v1(10, "key", "value");
  first.timestamp = TimestampMs(kTs);
  auto bytes = entry(first);
  auto second = entry({.offset = Offset(11), .magic = kMagicV1, .timestamp = TimestampMs(kTs + 1)});
  bytes.insert(bytes.end(), second.begin(), second.end());
  EXPECT_EQ(bytes, golden);
  auto v0 = entry(
      {.offset = Offset(5), .magic = kMagicV0, .key = as_bytes("k1"), .value = as_bytes("v1")});
  const auto golden_v0 = from_hex(kV0Uncompressed);
  EXPECT_EQ(v0, std::vector<uint8_t>(golden_v0.begin(), golden_v0.begin() + 30));
}

TEST(LegacyTest, BadCrc) {
  auto bytes = from_hex(kV1Uncompressed);
  bytes[kLogOverhead + kLegacyKeyLengthPosV1 + 4] ^= 0x01;  // a key byte
  auto m = parse_legacy_entry(bytes);
  ASSERT_TRUE(m.ok());  // still readable, so a dump can show it
  EXPECT_FALSE(m->crc_valid);
  auto v = validate_legacy_crc(*m);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error(), RecordErrc::kBadCrc);
}

TEST(LegacyTest, DamagedFieldsReportBadCrc) {
  auto bytes = entry(v1(0, "key", "value"));
  store_be32(&bytes[kLogOverhead + kLegacyKeyLengthPosV1], 1000);  // no fix_crc: damage
  EXPECT_EQ(parse_error(bytes), RecordErrc::kBadCrc);
}

TEST(LegacyTest, TruncatedHeader) {
  const auto bytes = from_hex(kV0Uncompressed);
  for (size_t n = 0; n < kLogOverhead; ++n) {
    EXPECT_EQ(parse_error(Bytes(bytes).first(n)), RecordErrc::kTruncatedHeader) << n;
  }
}

TEST(LegacyTest, MessageSizePastEnd) {
  const auto bytes = from_hex(kV0Uncompressed);
  for (size_t n = kLogOverhead; n < 30; ++n) {
    EXPECT_EQ(parse_error(Bytes(bytes).first(n)), RecordErrc::kBatchLengthPastEnd) << n;
  }
  auto huge = bytes;
  store_be32(&huge[8], 0x7fffffff);
  EXPECT_EQ(parse_error(huge), RecordErrc::kBatchLengthPastEnd);
}

TEST(LegacyTest, MessageSizeBelowMinimum) {
  auto bytes = from_hex(kV0Uncompressed);
  store_be32(&bytes[8], uint32_t(kLegacyRecordOverheadV0 - 1));
  EXPECT_EQ(parse_error(bytes), RecordErrc::kBatchLengthTooSmall);
  store_be32(&bytes[8], uint32_t(-5));
  EXPECT_EQ(parse_error(bytes), RecordErrc::kBatchLengthTooSmall);

  // 14 bytes is a whole v0 message but too few for v1's timestamp.
  auto v1_bytes = entry({.magic = kMagicV0});
  ASSERT_EQ(v1_bytes.size(), kLogOverhead + kLegacyRecordOverheadV0);
  v1_bytes[kLogOverhead + kLegacyMagicPos] = kMagicV1;
  fix_crc(v1_bytes);
  EXPECT_EQ(parse_error(v1_bytes), RecordErrc::kBatchLengthTooSmall);
}

TEST(LegacyTest, KeyLengthPastEnd) {
  auto bytes = entry(v1(0, "key", "value"));
  store_be32(&bytes[kLogOverhead + kLegacyKeyLengthPosV1], 100);
  fix_crc(bytes);
  EXPECT_EQ(parse_error(bytes), RecordErrc::kBadFieldLength);

  auto value = entry(v1(0, "key", "value"));
  store_be32(&value[kLogOverhead + kLegacyKeyLengthPosV1 + 4 + 3], 6);  // one byte too many
  fix_crc(value);
  EXPECT_EQ(parse_error(value), RecordErrc::kBadFieldLength);
}

TEST(LegacyTest, NegativeLengthBelowMinusOne) {
  auto bytes = entry(v1(0, "key", "value"));
  store_be32(&bytes[kLogOverhead + kLegacyKeyLengthPosV1], uint32_t(-2));
  fix_crc(bytes);
  EXPECT_EQ(parse_error(bytes), RecordErrc::kBadFieldLength);

  auto value = entry(v1(0, "key", "value"));
  store_be32(&value[kLogOverhead + kLegacyKeyLengthPosV1 + 4 + 3], uint32_t(-7));
  fix_crc(value);
  EXPECT_EQ(parse_error(value), RecordErrc::kBadFieldLength);
}

TEST(LegacyTest, TrailingBytesInMessage) {
  auto bytes = entry(v1(0, "key", "value"));
  bytes.push_back(0);
  store_be32(&bytes[8], load_be32(&bytes[8]) + 1);
  fix_crc(bytes);
  EXPECT_EQ(parse_error(bytes), RecordErrc::kRecordLengthMismatch);
}

TEST(LegacyTest, BadMagic) {
  for (int8_t magic : {int8_t(2), int8_t(3), int8_t(-1)}) {
    auto bytes = entry(v1(0, "key", "value"));
    bytes[kLogOverhead + kLegacyMagicPos] = uint8_t(magic);
    fix_crc(bytes);
    EXPECT_EQ(parse_error(bytes), RecordErrc::kBadMagic) << int(magic);
  }
}

TEST(LegacyTest, ZstdInLegacyRejected) {
  for (int8_t codec = 4; codec <= 7; ++codec) {
    auto spec = v1(0, "", "x");
    spec.attributes = codec;
    EXPECT_EQ(parse_error(entry(spec)), RecordErrc::kUnknownCodec) << int(codec);
  }
}

TEST(LegacyTest, GzipWrapperV1RelativeOffsets) {
  std::vector<uint8_t> scratch;
  auto inner = read_inner(from_hex(kGzipV1), scratch);
  ASSERT_TRUE(inner.ok());
  expect_messages(
      *inner,
      {{100, "a", "one", kTs}, {101, "b", "two", kTs + 1}, {102, "<null>", "three", kTs + 2}},
      kMagicV1);
  // The entries view scratch and keep their stored (relative) offset field.
  EXPECT_EQ((*inner)[0].entry.data(), scratch.data());
  EXPECT_EQ(load_be64((*inner)[2].entry.data()), 2u);
}

TEST(LegacyTest, GzipWrapperV0AbsoluteOffsets) {
  std::vector<uint8_t> scratch;
  auto inner = read_inner(from_hex(kGzipV0), scratch);
  ASSERT_TRUE(inner.ok());
  expect_messages(*inner, {{40, "x", "forty", -1}, {41, "<null>", "forty-one", -1}}, kMagicV0);
}

TEST(LegacyTest, SnappyWrapper) {
  std::vector<uint8_t> scratch;
  auto inner = read_inner(from_hex(kSnappyV1), scratch);
  ASSERT_TRUE(inner.ok());
  expect_messages(*inner, {{7, "s", "snappy-0", kTs}, {8, "s", "snappy-1", kTs + 5}}, kMagicV1);
}

TEST(LegacyTest, Lz4WrapperV1) {
  std::vector<uint8_t> scratch;
  auto inner = read_inner(from_hex(kLz4V1), scratch);
  ASSERT_TRUE(inner.ok());
  expect_messages(*inner, {{20, "<null>", "lz4-0", kTs}, {21, "k", "lz4-1", kTs + 9}}, kMagicV1);
}

TEST(LegacyTest, Lz4WrapperV0BrokenHeaderChecksum) {
  std::vector<uint8_t> scratch;
  auto inner = read_inner(from_hex(kLz4V0), scratch);
  ASSERT_TRUE(inner.ok());
  expect_messages(*inner, {{7, "old", "lz4-v0-a", -1}, {8, "<null>", "lz4-v0-b", -1}}, kMagicV0);
}

// Builds a v1 wrapper around `inner` entries.
std::vector<uint8_t> wrap(const std::vector<uint8_t>& inner, LegacyWrapperSpec spec) {
  std::vector<uint8_t> out;
  auto ok = encode_legacy_wrapper(spec, inner, out);
  EXPECT_TRUE(ok.ok());
  return out;
}

std::vector<uint8_t> three_v1_entries() {
  std::vector<uint8_t> inner;
  for (int64_t i = 0; i < 3; ++i) encode_legacy_entry(v1(i, "k", "v"), inner);
  return inner;
}

TEST(LegacyTest, WrapperRoundTripEveryCodec) {
  for (Codec codec : {Codec::kGzip, Codec::kSnappy, Codec::kLz4}) {
    for (int8_t magic : {kMagicV0, kMagicV1}) {
      SCOPED_TRACE(int(codec) * 10 + magic);
      std::vector<uint8_t> inner;
      for (int64_t i = 0; i < 3; ++i) {
        auto spec = v1(magic == kMagicV0 ? 50 + i : i, "k", "v");
        spec.magic = magic;
        encode_legacy_entry(spec, inner);
      }
      const auto bytes = wrap(inner, {.offset = Offset(52),
                                      .magic = magic,
                                      .codec = codec,
                                      .timestamp = TimestampMs(magic == kMagicV0 ? -1 : kTs + 2)});
      std::vector<uint8_t> scratch;
      auto got = read_inner(bytes, scratch);
      ASSERT_TRUE(got.ok());
      auto ts = [&](int64_t i) { return magic == kMagicV0 ? -1 : kTs + i; };
      expect_messages(*got, {{50, "k", "v", ts(0)}, {51, "k", "v", ts(1)}, {52, "k", "v", ts(2)}},
                      magic);
    }
  }
}

TEST(LegacyTest, LogAppendTimeWrapperStampsInner) {
  const auto bytes = wrap(three_v1_entries(), {.offset = Offset(9),
                                               .timestamp_type = TimestampType::kLogAppendTime,
                                               .timestamp = TimestampMs(42)});
  std::vector<uint8_t> scratch;
  auto got = read_inner(bytes, scratch);
  ASSERT_TRUE(got.ok());
  expect_messages(*got, {{7, "k", "v", 42}, {8, "k", "v", 42}, {9, "k", "v", 42}}, kMagicV1);
  for (const auto& m : *got) EXPECT_EQ(m.timestamp_type, TimestampType::kLogAppendTime);
}

TEST(LegacyTest, V1WrapperOffsetZeroMeansBaseZero) {
  const auto bytes = wrap(three_v1_entries(), {.offset = Offset(0)});
  std::vector<uint8_t> scratch;
  auto got = read_inner(bytes, scratch);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].offset.value(), 0);
  EXPECT_EQ((*got)[2].offset.value(), 2);
}

TEST(LegacyTest, V1WrapperOffsetBelowLastInner) {
  const auto bytes = wrap(three_v1_entries(), {.offset = Offset(1)});
  std::vector<uint8_t> scratch;
  auto got = read_inner(bytes, scratch);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error(), RecordErrc::kBadWrapper);
}

TEST(LegacyTest, V1InnerOffsetsOverflow) {
  std::vector<uint8_t> inner;
  for (int64_t relative : {std::numeric_limits<int64_t>::max(), int64_t(-1)}) {
    auto spec = v1(0, "k", "v");
    spec.offset = Offset(relative);
    encode_legacy_entry(spec, inner);
  }
  const auto bytes = wrap(inner, {.offset = Offset(std::numeric_limits<int64_t>::max())});
  std::vector<uint8_t> scratch;
  auto got = read_inner(bytes, scratch);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error(), RecordErrc::kBadWrapper);
}

TEST(LegacyTest, NestedCompressionRejected) {
  const auto nested = wrap(three_v1_entries(), {.offset = Offset(2)});
  const auto bytes = wrap(nested, {.offset = Offset(2)});
  std::vector<uint8_t> scratch;
  auto got = read_inner(bytes, scratch);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error(), RecordErrc::kBadWrapper);
}

TEST(LegacyTest, InnerMagicMismatch) {
  std::vector<uint8_t> inner;
  encode_legacy_entry({.offset = Offset(0), .magic = kMagicV0, .value = as_bytes("v0")}, inner);
  std::vector<uint8_t> scratch;
  auto got = read_inner(wrap(inner, {.offset = Offset(0)}), scratch);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error(), RecordErrc::kBadMagic);

  auto v0_wrapper = wrap(three_v1_entries(), {.offset = Offset(2), .magic = kMagicV0});
  auto got0 = read_inner(v0_wrapper, scratch);
  ASSERT_FALSE(got0.ok());
  EXPECT_EQ(got0.error(), RecordErrc::kBadMagic);
}

TEST(LegacyTest, WrapperDecompressionBomb) {
  // 1 MiB of one value compresses to ~1 KiB; the limit is 64 KiB.
  const std::string big(1 << 20, 'x');
  std::vector<uint8_t> inner;
  encode_legacy_entry(v1(0, "k", big), inner);
  for (Codec codec : {Codec::kGzip, Codec::kSnappy, Codec::kLz4}) {
    const auto bytes = wrap(inner, {.offset = Offset(0), .codec = codec});
    EXPECT_LT(bytes.size(), size_t(64 << 10));
    std::vector<uint8_t> scratch;
    auto got = read_inner(bytes, scratch, DecompressLimits{.max_output_bytes = 64 << 10});
    ASSERT_FALSE(got.ok()) << int(codec);
    EXPECT_EQ(got.error(), RecordErrc::kDecompressTooLarge) << int(codec);
    EXPECT_LE(scratch.size(), size_t(64 << 10));
  }
}

TEST(LegacyTest, WrapperWithNullValue) {
  auto spec = v1(0, "", "");
  spec.key.reset();
  spec.value.reset();
  spec.attributes = int8_t(Codec::kGzip);
  auto wrapper = parse_legacy_entry(entry(spec));
  ASSERT_TRUE(wrapper.ok());
  std::vector<uint8_t> scratch;
  auto got = read_wrapper_inner(*wrapper, scratch);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error(), RecordErrc::kBadWrapper);
}

TEST(LegacyTest, EmptyWrapper) {
  std::vector<uint8_t> scratch;
  auto got = read_inner(wrap({}, {.offset = Offset(0)}), scratch);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error(), RecordErrc::kBadWrapper);
}

TEST(LegacyTest, GarbageWrapperValue) {
  auto spec = v1(0, "", "not gzip at all");
  spec.key.reset();
  spec.attributes = int8_t(Codec::kGzip);
  auto wrapper = parse_legacy_entry(entry(spec));
  ASSERT_TRUE(wrapper.ok());
  std::vector<uint8_t> scratch;
  auto got = read_wrapper_inner(*wrapper, scratch);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error(), RecordErrc::kDecompressFailed);
}

TEST(LegacyTest, TruncatedInnerEntryRejected) {
  auto inner = three_v1_entries();
  inner.resize(inner.size() - 3);
  std::vector<uint8_t> scratch;
  auto got = read_inner(wrap(inner, {.offset = Offset(2)}), scratch);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error(), RecordErrc::kBatchLengthPastEnd);
}

TEST(LegacyTest, InnerBadCrcIsReported) {
  auto inner = three_v1_entries();
  inner.back() ^= 0x20;  // last value byte of the last message
  std::vector<uint8_t> scratch;
  auto got = read_inner(wrap(inner, {.offset = Offset(2)}), scratch);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(validate_legacy_crc((*got)[1]).ok());
  EXPECT_EQ(opt_str((*got)[2].value), "V");
  auto bad = validate_legacy_crc((*got)[2]);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), RecordErrc::kBadCrc);
}

}  // namespace
}  // namespace strata::record

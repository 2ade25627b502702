// Named corruption cases for the v2 batch reader, one per way bytes go wrong.
#include "record/validate.h"

#include <gtest/gtest.h>

#include "record/batch_builder.h"
#include "record/crc32c.h"

namespace strata::record {
namespace {

std::vector<uint8_t> good_batch(Codec codec = Codec::kNone, int records = 3) {
  BatchOptions o;
  o.codec = codec;
  BatchBuilder b(o);
  for (int i = 0; i < records; ++i) b.append(100 + i, as_bytes("key"), as_bytes("value"));
  return std::move(b.finish()).value();
}

// Recomputes the CRC after a test edits covered bytes, so the damage is found by
// the record checks rather than by the checksum.
void reseal(std::vector<uint8_t>& b) {
  store_be32(&b[kCrcPos], crc32c(Bytes(b).subspan(kCrcStart)));
}

RecordErrc error_of(const std::vector<uint8_t>& b, ValidateOptions o = {}) {
  std::vector<uint8_t> scratch;
  auto r = validate_batch(b, o, scratch);
  EXPECT_FALSE(r.ok());
  return r.ok() ? RecordErrc{} : r.error();
}

// Offset of the first record's body (after its 1-byte length varint).
constexpr size_t kFirstRecordBody = kHeaderSize + 1;

TEST(Validate, GoodBatchPasses) {
  std::vector<uint8_t> scratch;
  EXPECT_TRUE(validate_batch(good_batch(), {}, scratch).ok());
}

// Compacted topics: every record needs a key, in compressed batches too.
TEST(Validate, RequireKeysRefusesKeylessRecords) {
  ValidateOptions keys;
  keys.require_keys = true;
  std::vector<uint8_t> scratch;
  EXPECT_TRUE(validate_batch(good_batch(), keys, scratch).ok());
  for (Codec codec : {Codec::kNone, Codec::kZstd}) {
    BatchOptions o;
    o.codec = codec;
    BatchBuilder b(o);
    b.append(100, as_bytes("key"), as_bytes("v"));
    b.append(101, std::nullopt, as_bytes("v"));
    auto keyless = std::move(b.finish()).value();
    EXPECT_TRUE(validate_batch(keyless, {}, scratch).ok());
    EXPECT_EQ(error_of(keyless, keys), RecordErrc::kMissingKey);
    EXPECT_EQ(kafka_error_code(RecordErrc::kMissingKey), kKafkaInvalidRecord);
  }
}

TEST(Validate, BadCrc) {
  auto b = good_batch();
  b.back() ^= 0x01;
  EXPECT_EQ(error_of(b), RecordErrc::kBadCrc);
  EXPECT_EQ(kafka_error_code(RecordErrc::kBadCrc), kKafkaCorruptMessage);
}

TEST(Validate, BadCrcInHeaderField) {
  auto b = good_batch();
  b[kProducerIdPos] ^= 0x40;
  EXPECT_EQ(error_of(b), RecordErrc::kBadCrc);
}

TEST(Validate, CrcFieldItselfDamaged) {
  auto b = good_batch();
  b[kCrcPos] ^= 0x80;
  EXPECT_EQ(error_of(b), RecordErrc::kBadCrc);
}

TEST(Validate, TruncatedHeader) {
  auto b = good_batch();
  b.resize(kHeaderSize - 1);
  EXPECT_EQ(error_of(b), RecordErrc::kTruncatedHeader);
  EXPECT_EQ(error_of({}), RecordErrc::kTruncatedHeader);
}

TEST(Validate, LengthPastEnd) {
  auto b = good_batch();
  b.pop_back();
  EXPECT_EQ(error_of(b), RecordErrc::kBatchLengthPastEnd);
}

TEST(Validate, HugeBatchLength) {
  auto b = good_batch();
  store_be32(&b[kBatchLengthPos], 0x7fffffff);
  EXPECT_EQ(error_of(b), RecordErrc::kBatchLengthPastEnd);
}

TEST(Validate, BatchLengthTooSmall) {
  auto b = good_batch();
  store_be32(&b[kBatchLengthPos], 48);
  EXPECT_EQ(error_of(b), RecordErrc::kBatchLengthTooSmall);
  store_be32(&b[kBatchLengthPos], uint32_t(-1));
  EXPECT_EQ(error_of(b), RecordErrc::kBatchLengthTooSmall);
}

TEST(Validate, BadMagic) {
  auto b = good_batch();
  b[kMagicPos] = 3;
  EXPECT_EQ(error_of(b), RecordErrc::kBadMagic);
  b[kMagicPos] = 1;
  EXPECT_EQ(error_of(b), RecordErrc::kBadMagic);
}

TEST(Validate, TrailingBytesAfterBatchAreNotPartOfIt) {
  auto b = good_batch();
  const size_t size = b.size();
  b.insert(b.end(), {1, 2, 3});
  auto framed = frame_batch(b);
  ASSERT_TRUE(framed.ok());
  EXPECT_EQ(framed->size(), size);
}

TEST(Validate, RecordCountTooHigh) {
  auto b = good_batch();
  store_be32(&b[kRecordCountPos], 4);
  store_be32(&b[kLastOffsetDeltaPos], 3);
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kRecordCountMismatch);
  EXPECT_EQ(kafka_error_code(RecordErrc::kRecordCountMismatch), kKafkaInvalidRecord);
}

TEST(Validate, RecordCountTooLow) {
  auto b = good_batch();
  store_be32(&b[kRecordCountPos], 2);
  store_be32(&b[kLastOffsetDeltaPos], 1);
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kTrailingBytes);
}

TEST(Validate, RecordCountNegative) {
  auto b = good_batch();
  store_be32(&b[kRecordCountPos], uint32_t(-5));
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kRecordCountNegative);
}

TEST(Validate, HugeRecordCount) {
  auto b = good_batch();
  store_be32(&b[kRecordCountPos], 0x7fffffff);
  store_be32(&b[kLastOffsetDeltaPos], 0x7ffffffe);
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kRecordCountMismatch);
}

TEST(Validate, HugeRecordCountCompressed) {
  auto b = good_batch(Codec::kZstd);
  store_be32(&b[kRecordCountPos], 0x7fffffff);
  store_be32(&b[kLastOffsetDeltaPos], 0x7ffffffe);
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kRecordCountMismatch);
}

TEST(Validate, LastOffsetDeltaMismatch) {
  auto b = good_batch();
  store_be32(&b[kLastOffsetDeltaPos], 5);
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kLastOffsetDeltaMismatch);
}

TEST(Validate, OffsetDeltaNotSequential) {
  auto b = good_batch();
  // Record 0 body: attributes(1) timestampDelta(1: 0) offsetDelta(1).
  b[kFirstRecordBody + 2] = 0x02;  // zigzag(1): offset delta 1 instead of 0
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kOffsetDeltaNotSequential);
}

TEST(Validate, VarintOverflow) {
  auto b = good_batch(Codec::kNone, 1);
  // Make the record's timestamp delta an 11-byte varlong by growing the record.
  std::vector<uint8_t> bad(b.begin(), b.begin() + long(kHeaderSize));
  const uint8_t record[] = {0x20, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                            0x80, 0x80, 0x80, 0x80, 0x01, 0x00, 0x01, 0x01, 0x00};
  bad.insert(bad.end(), std::begin(record), std::end(record));
  store_be32(&bad[kBatchLengthPos], uint32_t(bad.size() - kLogOverhead));
  reseal(bad);
  EXPECT_EQ(error_of(bad), RecordErrc::kVarintOverflow);
}

TEST(Validate, RecordLengthPastEnd) {
  auto b = good_batch(Codec::kNone, 1);
  b[kHeaderSize] = 0x7e;  // zigzag(63): longer than the batch
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kRecordLengthPastEnd);
}

TEST(Validate, NegativeRecordLength) {
  auto b = good_batch(Codec::kNone, 1);
  b[kHeaderSize] = 0x03;  // zigzag(-2)
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kRecordLengthPastEnd);
}

TEST(Validate, KeyLengthPastRecord) {
  auto b = good_batch(Codec::kNone, 1);
  b[kFirstRecordBody + 3] = 0x40;  // key length 32
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kBadFieldLength);
}

TEST(Validate, KeyLengthBelowMinusOne) {
  auto b = good_batch(Codec::kNone, 1);
  b[kFirstRecordBody + 3] = 0x03;  // key length -2
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kBadFieldLength);
}

TEST(Validate, HugeHeaderCount) {
  BatchBuilder builder({});
  builder.append(0, std::nullopt, std::nullopt);
  auto b = std::move(builder.finish()).value();
  // Record: len attrs ts off key(-1) value(-1) headerCount(0) -> set count to 2^30.
  b.pop_back();
  const uint8_t huge[] = {0x80, 0x80, 0x80, 0x80, 0x08};
  b.insert(b.end(), std::begin(huge), std::end(huge));
  b[kHeaderSize] = uint8_t(zigzag_encode32(int32_t(b.size() - kHeaderSize - 1)));
  store_be32(&b[kBatchLengthPos], uint32_t(b.size() - kLogOverhead));
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kBadFieldLength);
}

TEST(Validate, RecordLengthMismatch) {
  auto b = good_batch(Codec::kNone, 1);
  // Claim one byte more than the fields take, and supply that byte.
  b.push_back(0);
  b[kHeaderSize] = uint8_t(zigzag_encode32(zigzag_decode32(b[kHeaderSize]) + 1));
  store_be32(&b[kBatchLengthPos], uint32_t(b.size() - kLogOverhead));
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kRecordLengthMismatch);
}

TEST(Validate, TrailingBytes) {
  auto b = good_batch();
  b.push_back(0);
  store_be32(&b[kBatchLengthPos], uint32_t(b.size() - kLogOverhead));
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kTrailingBytes);
}

TEST(Validate, UnknownCodec) {
  auto b = good_batch();
  b[kAttributesPos + 1] |= 0x07;
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kUnknownCodec);
  EXPECT_EQ(kafka_error_code(RecordErrc::kUnknownCodec), kKafkaUnsupportedCompressionType);
}

TEST(Validate, EmptyBatchFromProducer) {
  BatchBuilder builder({});
  auto b = std::move(builder.finish()).value();
  EXPECT_EQ(error_of(b), RecordErrc::kEmptyBatch);
  std::vector<uint8_t> scratch;
  EXPECT_TRUE(validate_batch(b, {RecordCheck::kLog, {}}, scratch).ok());
}

TEST(Validate, CorruptCompressedRecords) {
  // The codec's own framing is damaged (lz4 frame magic); damage inside literal bytes is
  // the CRC's to catch, since Kafka's lz4 frames carry no content checksum.
  auto b = good_batch(Codec::kLz4, 50);
  b[kHeaderSize] ^= 0xff;
  reseal(b);
  EXPECT_EQ(error_of(b), RecordErrc::kDecompressFailed);
}

TEST(Validate, DecompressionBomb) {
  BatchOptions o;
  o.codec = Codec::kZstd;
  BatchBuilder builder(o);
  const std::string big(1 << 20, 'a');
  for (int i = 0; i < 8; ++i) builder.append(0, std::nullopt, as_bytes(big));
  auto b = std::move(builder.finish()).value();
  EXPECT_LT(b.size(), 4096u);
  ValidateOptions o2;
  o2.limits.max_output_bytes = 1 << 20;
  EXPECT_EQ(error_of(b, o2), RecordErrc::kDecompressTooLarge);
  std::vector<uint8_t> scratch;
  EXPECT_TRUE(validate_batch(b, {}, scratch).ok());  // within the default limit
}

TEST(Validate, EveryTruncationIsAnErrorNotACrash) {
  for (Codec c : {Codec::kNone, Codec::kGzip, Codec::kSnappy, Codec::kLz4, Codec::kZstd}) {
    const auto b = good_batch(c, 20);
    for (size_t n = 0; n < b.size(); ++n) {
      std::vector<uint8_t> cut(b.begin(), b.begin() + long(n));
      std::vector<uint8_t> scratch;
      EXPECT_FALSE(validate_batch(cut, {}, scratch).ok()) << n;
    }
  }
}

}  // namespace
}  // namespace strata::record

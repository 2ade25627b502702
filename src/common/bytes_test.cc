#include "common/bytes.h"

#include <gtest/gtest.h>

#include <limits>

namespace strata {
namespace {

TEST(Bytes, FixedWidthRoundTrip) {
  std::vector<uint8_t> buf;
  ByteWriter w(buf);
  w.i8(-2);
  w.i16(-300);
  w.i32(0x12345678);
  w.i64(-5);
  w.u32(0xDEADBEEF);
  ByteReader r(buf);
  EXPECT_EQ(r.i8(), -2);
  EXPECT_EQ(r.i16(), -300);
  EXPECT_EQ(r.i32(), 0x12345678);
  EXPECT_EQ(r.i64(), -5);
  EXPECT_EQ(r.u32(), 0xDEADBEEFu);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(Bytes, BigEndianOnTheWire) {
  std::vector<uint8_t> buf;
  ByteWriter(buf).i32(0x01020304);
  EXPECT_EQ(buf, (std::vector<uint8_t>{1, 2, 3, 4}));
}

TEST(Bytes, VarintZigzagMatchesKafka) {
  // Values from Kafka's ByteUtilsTest: zigzag of -1 is 1, of 1 is 2, of 300 is 600 (0xd8 0x04).
  std::vector<uint8_t> buf;
  ByteWriter w(buf);
  w.varint(-1);
  w.varint(1);
  w.varint(300);
  EXPECT_EQ(buf, (std::vector<uint8_t>{0x01, 0x02, 0xd8, 0x04}));
  ByteReader r(buf);
  EXPECT_EQ(r.varint(), -1);
  EXPECT_EQ(r.varint(), 1);
  EXPECT_EQ(r.varint(), 300);
}

TEST(Bytes, VarintExtremes) {
  for (int32_t v : {0, -1, 1, std::numeric_limits<int32_t>::min(),
                    std::numeric_limits<int32_t>::max()}) {
    std::vector<uint8_t> buf;
    ByteWriter(buf).varint(v);
    EXPECT_EQ(buf.size(), varint_size(v));
    ByteReader r(buf);
    EXPECT_EQ(r.varint(), v);
    EXPECT_TRUE(r.ok());
  }
  for (int64_t v : {int64_t(0), std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    std::vector<uint8_t> buf;
    ByteWriter(buf).varlong(v);
    EXPECT_EQ(buf.size(), varlong_size(v));
    ByteReader r(buf);
    EXPECT_EQ(r.varlong(), v);
  }
}

TEST(Bytes, VarintOverflow) {
  const uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  ByteReader r{Bytes(six)};
  (void)r.varint();
  EXPECT_EQ(r.fault(), ReadFault::kVarintOverflow);
}

TEST(Bytes, TruncatedVarint) {
  const uint8_t cut[] = {0x80, 0x80};
  ByteReader r{Bytes(cut)};
  (void)r.varlong();
  EXPECT_EQ(r.fault(), ReadFault::kPastEnd);
}

TEST(Bytes, ReadPastEndIsSticky) {
  const uint8_t three[] = {1, 2, 3};
  ByteReader r{Bytes(three)};
  EXPECT_EQ(r.i32(), 0);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.i8(), 0);  // even though a byte remains
  EXPECT_TRUE(r.take(1).empty());
}

TEST(Bytes, HugeLengthDoesNotFit) {
  const uint8_t one[] = {1};
  ByteReader r{Bytes(one)};
  EXPECT_FALSE(r.fits(int64_t(1) << 40));
  EXPECT_FALSE(r.fits(-1));
  EXPECT_TRUE(r.fits(1));
  EXPECT_TRUE(r.take(size_t(1) << 40).empty());
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace strata

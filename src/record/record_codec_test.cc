#include "record/record_codec.h"

#include <gtest/gtest.h>

#include "record/test_util.h"

namespace strata::record {
namespace {

TEST(RecordCodec, RoundTripWithHeaders) {
  std::vector<uint8_t> buf;
  ByteWriter w(buf);
  const Header hs[] = {{"a", as_bytes("1")}, {"b", std::nullopt}, {"", as_bytes("")}};
  const size_t n = encode_record(w, -5, 3, as_bytes(""), std::nullopt, hs);
  EXPECT_EQ(n, buf.size());
  ByteReader r(buf);
  RecordView v;
  ASSERT_TRUE(decode_record(r, v).ok());
  EXPECT_EQ(v.timestamp_delta, -5);
  EXPECT_EQ(v.offset_delta, 3);
  ASSERT_TRUE(v.key.has_value());
  EXPECT_TRUE(v.key->empty());  // empty is not null
  EXPECT_FALSE(v.value.has_value());
  EXPECT_EQ(v.header_count, 3);
  EXPECT_EQ(v.size, buf.size());
  HeaderCursor hc(v);
  Header h;
  ASSERT_TRUE(hc.next(h));
  EXPECT_EQ(h.key, "a");
  ASSERT_TRUE(hc.next(h));
  EXPECT_EQ(h.key, "b");
  EXPECT_FALSE(h.value.has_value());
  ASSERT_TRUE(hc.next(h));
  EXPECT_EQ(h.key, "");
  ASSERT_TRUE(h.value.has_value());
  EXPECT_FALSE(hc.next(h));
}

TEST(RecordCodec, NegativeHeaderKeyLength) {
  // len=6: attrs 0, ts 0, off 0, key null, value null, 1 header with key length -1.
  const auto b = testing::from_hex("0e0000000101020100");
  ByteReader r{Bytes(b)};
  RecordView v;
  EXPECT_EQ(decode_record(r, v).error(), RecordErrc::kBadFieldLength);
}

TEST(RecordCodec, HeaderValuePastRecord) {
  // One header: key "k", value length 10 but no bytes.
  const auto b = testing::from_hex("12000000010102026b14");
  ByteReader r{Bytes(b)};
  RecordView v;
  EXPECT_EQ(decode_record(r, v).error(), RecordErrc::kBadFieldLength);
}

TEST(RecordCodec, EmptyInput) {
  ByteReader r{Bytes()};
  RecordView v;
  EXPECT_EQ(decode_record(r, v).error(), RecordErrc::kRecordLengthPastEnd);
}

}  // namespace
}  // namespace strata::record

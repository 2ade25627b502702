#include "protocol/message.h"

#include <gtest/gtest.h>

#include "protocol/apis/api_versions.h"
#include "protocol/headers.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

ApiVersionsResponse sample() {
  ApiVersionsResponse r;
  r.api_keys = {{0, 3, 11}, {18, 0, 4}};
  r.throttle_time_ms = 7;
  r.finalized_features_epoch = 5;
  r.supported_features = {{"metadata.version", 1, 20}};
  return r;
}

TEST(Message, ApiVersionsV0Layout) {
  auto r = sample();
  const auto bytes = encode(r, 0);
  // error_code, array count 2, (0,3,11), (18,0,4); v0 has no throttle time.
  const std::vector<uint8_t> want = {0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 11, 0, 18, 0, 0, 0, 4};
  EXPECT_EQ(bytes, want);
}

TEST(Message, ApiVersionsV3CompactWithTaggedFields) {
  auto r = sample();
  auto bytes = encode(r, 3);
  // error 0 | compact array 2+1 | 3 entries each followed by an empty tag section
  // | throttle 7 | tags: 2 fields (0: features, 1: epoch)
  ASSERT_GE(bytes.size(), 3u);
  EXPECT_EQ(bytes[2], 3);  // compact length 2 + 1
  auto back = decode<ApiVersionsResponse>(bytes, 3);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->api_keys.size(), 2u);
  EXPECT_EQ(back->api_keys[1].max_version, 4);
  EXPECT_EQ(back->throttle_time_ms, 7);
  EXPECT_EQ(back->finalized_features_epoch, 5);
  ASSERT_EQ(back->supported_features.size(), 1u);
  EXPECT_EQ(back->supported_features[0].name, "metadata.version");
  EXPECT_EQ(back->supported_features[0].max_version, 20);
  EXPECT_TRUE(back->finalized_features.empty());
}

TEST(Message, DefaultTaggedFieldsAreOmitted) {
  ApiVersionsResponse r;
  auto bytes = encode(r, 3);
  // error 0 (2) | empty compact array (1) | throttle (4) | zero tagged fields (1)
  EXPECT_EQ(bytes.size(), 8u);
  auto back = decode<ApiVersionsResponse>(bytes, 3);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->finalized_features_epoch, -1);
}

TEST(Message, UnknownTaggedFieldsAreSkipped) {
  ApiVersionsRequest q;
  q.client_software_name = "x";
  auto bytes = encode(q, 3);
  // Replace the empty tag section with one unknown tag 9 of 2 bytes.
  bytes.back() = 1;
  bytes.insert(bytes.end(), {9, 2, 0xAA, 0xBB});
  auto back = decode<ApiVersionsRequest>(bytes, 3);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->client_software_name, "x");
}

TEST(Message, HugeArrayCountIsRejected) {
  std::vector<uint8_t> bytes = {0, 0, 0x7f, 0xff, 0xff, 0xff};
  EXPECT_FALSE(decode<ApiVersionsResponse>(bytes, 0));
}

TEST(Message, TruncatedInputIsRejected) {
  auto r = sample();
  const auto full = encode(r, 3);
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + long(n));
    EXPECT_FALSE(decode<ApiVersionsResponse>(cut, 3)) << n;
  }
}

// std::optional of a struct: tagged, it is written only when set; nullable, a marker
// byte (-1 null, 1 present) precedes it; otherwise an unset one goes out as defaults.
struct Point {
  int32_t x = -1;
  template <class V>
  void visit(V& v) {
    v(x, F{{0}});
  }
};
struct WithOptionalStructs {
  static constexpr int16_t kFlexibleFrom = 1;
  std::optional<Point> plain;
  std::optional<Point> nullable;
  std::optional<Point> tagged;
  template <class V>
  void visit(V& v) {
    v(plain, F{{0}});
    v(nullable, F{.versions = {0}, .nullable = {0}});
    v(tagged, F{.versions = {1}, .tag = 0, .tagged = {1}});
  }
};

TEST(Message, OptionalStructUnsetIsDefaultsNullOrOmitted) {
  WithOptionalStructs m;
  auto v0 = encode(m, 0);
  EXPECT_EQ(v0, (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0xff}));  // plain x=-1 | null
  auto back0 = decode<WithOptionalStructs>(v0, 0);
  ASSERT_TRUE(back0);
  ASSERT_TRUE(back0->plain);
  EXPECT_EQ(back0->plain->x, -1);
  EXPECT_FALSE(back0->nullable);

  auto v1 = encode(m, 1);
  // plain x=-1 + its empty tag section | null marker | no tagged fields
  EXPECT_EQ(v1, (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0, 0xff, 0}));
  auto back1 = decode<WithOptionalStructs>(v1, 1);
  ASSERT_TRUE(back1);
  EXPECT_FALSE(back1->tagged);
}

TEST(Message, OptionalStructSetIsWrittenEvenAsDefaults) {
  WithOptionalStructs m;
  m.plain = Point{1};
  m.nullable = Point{2};
  m.tagged = Point{};  // set, though equal to the defaults
  auto v1 = encode(m, 1);
  const std::vector<uint8_t> want = {0, 0, 0, 1, 0,           // plain
                                     1, 0, 0, 0, 2, 0,        // marker 1 | nullable
                                     1, 0, 5,                 // one tag: 0, 5 bytes
                                     0xff, 0xff, 0xff, 0xff, 0};  // x=-1 | tag section
  EXPECT_EQ(v1, want);
  auto back = decode<WithOptionalStructs>(v1, 1);
  ASSERT_TRUE(back);
  ASSERT_TRUE(back->nullable);
  EXPECT_EQ(back->nullable->x, 2);
  ASSERT_TRUE(back->tagged);
  EXPECT_EQ(back->tagged->x, -1);

  std::vector<uint8_t> bad_marker_cut = {0, 0, 0, 1, 1};  // marker says present, no body
  EXPECT_FALSE(decode<WithOptionalStructs>(bad_marker_cut, 0));
}

TEST(Headers, RequestHeaderV1AndV2) {
  std::vector<uint8_t> frame = {0, 18, 0, 3, 0, 0, 0, 42, 0, 3, 'c', 'l', 'i', 0};
  auto h = parse_request_header(frame, 2);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->api_key, 18);
  EXPECT_EQ(h->api_version, 3);
  EXPECT_EQ(h->correlation_id, 42);
  EXPECT_EQ(h->client_id, "cli");
  EXPECT_EQ(h->size, frame.size());
  auto h1 = parse_request_header(frame, 1);
  ASSERT_TRUE(h1.ok());
  EXPECT_EQ(h1->size, frame.size() - 1);
}

TEST(Headers, NullClientIdAndTruncation) {
  std::vector<uint8_t> frame = {0, 3, 0, 1, 0, 0, 0, 1, 0xff, 0xff};
  auto h = parse_request_header(frame, 1);
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE(h->client_id.has_value());
  frame.resize(9);
  EXPECT_FALSE(parse_request_header(frame, 1).ok());
  std::vector<uint8_t> bad = {0, 3, 0, 1, 0, 0, 0, 1, 0, 9, 'a'};
  EXPECT_EQ(parse_request_header(bad, 1).error(), HeaderError::kBadClientId);
}

}  // namespace
}  // namespace strata::protocol

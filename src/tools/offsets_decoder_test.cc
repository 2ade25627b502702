// --offsets-decoder output, checked against the strings Kafka's own DumpLogSegmentsTest
// expects (testOffsetsMessageParser, Kafka 4.0), with records built by src/group's
// encoders and the embedded consumer protocol built byte by byte.
#include "tools/offsets_decoder.h"

#include <gtest/gtest.h>

#include "group/records.h"
#include "tools/consumer_protocol.h"

namespace strata::tools {
namespace {

void put_string(ByteWriter& w, std::string_view s) {
  w.i16(int16_t(s.size()));
  w.bytes(as_bytes(s));
}

// ConsumerProtocol.serializeSubscription(topics [foo], userData null, owned [foo-0],
// generation 0, rack "rack"), in version 3.
std::vector<uint8_t> subscription_foo() {
  std::vector<uint8_t> b;
  ByteWriter w(b);
  w.i16(3);
  w.i32(1);
  put_string(w, "foo");
  w.i32(-1);  // user data: null
  w.i32(1);
  put_string(w, "foo");
  w.i32(1);
  w.i32(0);
  w.i32(0);  // generation
  put_string(w, "rack");
  return b;
}

// ConsumerProtocol.serializeAssignment(assigned [foo-0]), version 3.
std::vector<uint8_t> assignment_foo() {
  std::vector<uint8_t> b;
  ByteWriter w(b);
  w.i16(3);
  w.i32(1);
  put_string(w, "foo");
  w.i32(1);
  w.i32(0);
  w.i32(-1);  // user data: null
  return b;
}

group::GroupValue consumer_group(std::vector<uint8_t> subscription,
                                 std::vector<uint8_t> assignment) {
  group::MemberRecord m{"member",
                        "instance",
                        "client",
                        "host",
                        1000,
                        100,
                        std::move(subscription),
                        std::move(assignment)};
  return group::GroupValue{"consumer", 10, "range", "member", -1, {m}};
}

DecodedOffsetsRecord decode(const std::vector<uint8_t>& key,
                            const std::optional<std::vector<uint8_t>>& value) {
  std::optional<Bytes> v;
  if (value) v = Bytes(*value);
  return decode_offsets_record(key, v, 0);
}

TEST(OffsetsDecoder, ConsumerGroupMetadataDecodesSubscriptionAndAssignment) {
  const auto d = decode(group::encode_key(group::GroupKey{"group"}),
                        group::encode_value(consumer_group(subscription_foo(), assignment_foo())));
  EXPECT_EQ(d.key, R"({"type":"2","data":{"group":"group"}})");
  // Kafka's expectation for value v4; v3 (what we write) has the same fields.
  EXPECT_EQ(
      d.payload,
      R"({"version":"3","data":{"protocolType":"consumer","generation":10,"protocol":"range",)"
      R"("leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member",)"
      R"("groupInstanceId":"instance","clientId":"client","clientHost":"host",)"
      R"("rebalanceTimeout":1000,"sessionTimeout":100,"subscription":{"topics":["foo"],)"
      R"("userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}],)"
      R"("generationId":0,"rackId":"rack"},"assignment":{"assignedPartitions":)"
      R"([{"topic":"foo","partitions":[0]}],"userData":null}}]}})");
}

TEST(OffsetsDecoder, MalformedEmbeddedProtocolStaysBase64) {
  const std::string sub = "Subscription", assign = "Assignment";
  const auto d = decode(group::encode_key(group::GroupKey{"group"}),
                        group::encode_value(consumer_group({sub.begin(), sub.end()},
                                                           {assign.begin(), assign.end()})));
  EXPECT_EQ(
      d.payload,
      R"({"version":"3","data":{"protocolType":"consumer","generation":10,"protocol":"range",)"
      R"("leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member",)"
      R"("groupInstanceId":"instance","clientId":"client","clientHost":"host",)"
      R"("rebalanceTimeout":1000,"sessionTimeout":100,"subscription":"U3Vic2NyaXB0aW9u",)"
      R"("assignment":"QXNzaWdubWVudA=="}]}})");
}

TEST(OffsetsDecoder, NonConsumerProtocolBytesStayBase64) {
  group::GroupValue g = consumer_group(subscription_foo(), {});
  g.protocol_type = "connect";
  g.protocol.reset();
  g.members[0].group_instance_id.reset();
  const auto d = decode(group::encode_key(group::GroupKey{"group"}), group::encode_value(g));
  EXPECT_EQ(d.payload,
            R"({"version":"3","data":{"protocolType":"connect","generation":10,"protocol":null,)"
            R"("leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member",)"
            R"("groupInstanceId":null,"clientId":"client","clientHost":"host",)"
            R"("rebalanceTimeout":1000,"sessionTimeout":100,)"
            R"("subscription":"AAMAAAABAANmb2//////AAAAAQADZm9vAAAAAQAAAAAAAAAAAARyYWNr",)"
            R"("assignment":""}]}})");
}

TEST(OffsetsDecoder, OffsetCommitV3) {
  group::OffsetValue v{5, -1, "", 1700000000000, -1};
  const auto d = decode(group::encode_key(group::OffsetKey{"g", "t", 0}), group::encode_value(v));
  EXPECT_EQ(d.key, R"({"type":"1","data":{"group":"g","topic":"t","partition":0}})");
  EXPECT_EQ(d.payload, R"({"version":"3","data":{"offset":5,"leaderEpoch":-1,"metadata":"",)"
                       R"("commitTimestamp":1700000000000}})");
}

TEST(OffsetsDecoder, OffsetCommitV1HasExpiryAndNoEpoch) {
  group::OffsetValue v{7, 3, "m", 10, 20};
  const auto d = decode(group::encode_key(group::OffsetKey{"g", "t", 2}), group::encode_value(v));
  EXPECT_EQ(d.payload, R"({"version":"1","data":{"offset":7,"metadata":"m",)"
                       R"("commitTimestamp":10,"expireTimestamp":20}})");
}

TEST(OffsetsDecoder, KeyVersionZeroIsPrintedAsTypeZero) {
  auto key = group::encode_key(group::OffsetKey{"g", "t", 0});
  key[1] = 0;  // key v0 has the same layout as v1
  EXPECT_EQ(decode(key, std::nullopt).key,
            R"({"type":"0","data":{"group":"g","topic":"t","partition":0}})");
}

TEST(OffsetsDecoder, TombstoneIsDelete) {
  const auto d = decode(group::encode_key(group::OffsetKey{"g", "t", 0}), std::nullopt);
  EXPECT_EQ(d.payload, "<DELETE>");
  EXPECT_EQ(decode(group::encode_key(group::GroupKey{"g"}), std::nullopt).payload, "<DELETE>");
}

TEST(OffsetsDecoder, UnknownRecordType) {
  const auto d = decode({0x7f, 0xff, 0, 0}, std::vector<uint8_t>{0, 0});
  EXPECT_EQ(d.key, "Unknown record type 32767 at offset 0, skipping.");
  EXPECT_FALSE(d.payload);
}

TEST(OffsetsDecoder, NewProtocolRecordsAreReportedNotDecoded) {
  const auto d = decode({0, 3, 0, 5, 'g', 'r', 'o', 'u', 'p'}, std::vector<uint8_t>{0, 0});
  ASSERT_TRUE(d.key);
  EXPECT_EQ(d.key->rfind("Error at offset 0, skipping. ", 0), 0u) << *d.key;
  EXPECT_FALSE(d.payload);
}

TEST(OffsetsDecoder, TruncatedValueIsAnError) {
  auto value = group::encode_value(group::OffsetValue{5, -1, "", 1, -1});
  value.resize(value.size() - 3);
  const auto d = decode(group::encode_key(group::OffsetKey{"g", "t", 0}), value);
  ASSERT_TRUE(d.key);
  EXPECT_EQ(d.key->rfind("Error at offset 0, skipping. ", 0), 0u) << *d.key;
  EXPECT_FALSE(d.payload);
  EXPECT_EQ(decode({0}, std::nullopt).key,
            "Error at offset 0, skipping. Could not read version from key's buffer.");
}

TEST(OffsetsDecoder, StringsAreEscapedAsJackson) {
  group::OffsetValue v{1, -1, "a\"b\\c\n\x01\xff", 0, -1};
  const auto d = decode(group::encode_key(group::OffsetKey{"g", "t", 0}), group::encode_value(v));
  EXPECT_EQ(d.payload,
            "{\"version\":\"3\",\"data\":{\"offset\":1,\"leaderEpoch\":-1,"
            "\"metadata\":\"a\\\"b\\\\c\\n\\u0001\xEF\xBF\xBD\",\"commitTimestamp\":0}}");
}

TEST(ConsumerProtocol, AssignmentAboveVersion3IsReadAsVersion3) {
  auto bytes = assignment_foo();
  bytes[1] = 9;
  bytes.push_back(0xAB);  // a field of a future version: ignored
  auto a = decode_consumer_assignment(bytes);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->version, 9);
  ASSERT_EQ(a->message.assigned_partitions.size(), 1u);
  EXPECT_EQ(a->message.assigned_partitions[0].topic, "foo");
  EXPECT_EQ(a->message.assigned_partitions[0].partitions, std::vector<int32_t>{0});
}

TEST(ConsumerProtocol, TruncatedAndNegativeVersionsFail) {
  auto bytes = assignment_foo();
  bytes.resize(bytes.size() - 5);
  EXPECT_FALSE(decode_consumer_assignment(bytes));
  EXPECT_FALSE(decode_consumer_assignment(std::vector<uint8_t>{0xff, 0xff, 0, 0, 0, 0}));
  EXPECT_FALSE(decode_consumer_subscription(std::vector<uint8_t>{0}));
}

}  // namespace
}  // namespace strata::tools

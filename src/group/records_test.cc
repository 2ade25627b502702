#include "group/records.h"

#include <gtest/gtest.h>

namespace strata::group {
namespace {

std::vector<uint8_t> bytes(std::initializer_list<int> v) {
  std::vector<uint8_t> out;
  for (int b : v) out.push_back(uint8_t(b));
  return out;
}

TEST(ConsumerOffsetsRecords, OffsetKeyIsVersion1WithGroupTopicPartition) {
  EXPECT_EQ(encode_key(OffsetKey{"g", "t", 1}),
            bytes({0, 1, 0, 1, 'g', 0, 1, 't', 0, 0, 0, 1}));
}

TEST(ConsumerOffsetsRecords, OffsetValueIsVersion3WithLeaderEpoch) {
  OffsetValue v{5, 2, "m", 1000, -1};
  EXPECT_EQ(encode_value(v), bytes({0, 3, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 2, 0, 1, 'm',
                                    0, 0, 0, 0, 0, 0, 0x03, 0xe8}));
}

TEST(ConsumerOffsetsRecords, OffsetValueWithExpiryIsVersion1) {
  OffsetValue v{5, 2, "", 1000, 2000};
  const auto b = encode_value(v);
  EXPECT_EQ(b, bytes({0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xe8,
                      0, 0, 0, 0, 0, 0, 0x07, 0xd0}));
  auto d = decode_offset_value(b);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->leader_epoch, -1);  // not in v1
  EXPECT_EQ(d->expire_timestamp, 2000);
}

TEST(ConsumerOffsetsRecords, GroupKeyIsVersion2) {
  EXPECT_EQ(encode_key(GroupKey{"ab"}), bytes({0, 2, 0, 2, 'a', 'b'}));
  auto k = decode_key(bytes({0, 2, 0, 2, 'a', 'b'}));
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(std::get<GroupKey>(*k).group, "ab");
}

TEST(ConsumerOffsetsRecords, GroupValueRoundTripsWithMembers) {
  GroupValue v;
  v.protocol_type = "consumer";
  v.generation = 7;
  v.protocol = "range";
  v.leader = "m1";
  v.current_state_timestamp = 1234;
  v.members.push_back({"m1", std::string("i1"), "c1", "/127.0.0.1", 300000, 10000, {1, 2}, {3}});
  v.members.push_back({"m2", std::nullopt, "c2", "/127.0.0.1", 300000, 10000, {}, {}});
  const auto b = encode_value(v);
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[1], 3);
  auto d = decode_group_value(b);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->generation, 7);
  EXPECT_EQ(d->protocol, "range");
  EXPECT_EQ(d->leader, "m1");
  EXPECT_EQ(d->current_state_timestamp, 1234);
  ASSERT_EQ(d->members.size(), 2u);
  EXPECT_EQ(d->members[0].group_instance_id, "i1");
  EXPECT_EQ(d->members[0].subscription, bytes({1, 2}));
  EXPECT_EQ(d->members[0].assignment, bytes({3}));
  EXPECT_FALSE(d->members[1].group_instance_id);
}

TEST(ConsumerOffsetsRecords, GroupValueVersion0HasNoTimestampOrRebalanceTimeout) {
  // protocolType "c", generation 1, protocol null, leader null, no members.
  auto d = decode_group_value(bytes({0, 0, 0, 1, 'c', 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}));
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->protocol_type, "c");
  EXPECT_FALSE(d->protocol);
  EXPECT_EQ(d->current_state_timestamp, -1);
}

TEST(ConsumerOffsetsRecords, BadRecordsAreErrorsNotCrashes) {
  EXPECT_FALSE(decode_key(bytes({0})).ok());
  EXPECT_FALSE(decode_key(bytes({0, 1, 0, 5, 'a'})).ok());       // truncated string
  EXPECT_FALSE(decode_key(bytes({0, 9, 0, 0})).ok());            // unknown version
  EXPECT_FALSE(decode_offset_value(bytes({0, 5, 0})).ok());      // unknown version
  EXPECT_FALSE(decode_key(bytes({0, 2, 0, 1, 'a', 'x'})).ok());  // trailing byte
}

TEST(ConsumerOffsetsRecords, PartitionMatchesKafkasJavaStringHash) {
  // Expected values from Java's String.hashCode (UTF-16 code units), abs, mod 50.
  EXPECT_EQ(partition_for_group("test-group", 50), 12);      // hash 627841412
  EXPECT_EQ(partition_for_group("my-group", 50), 12);        // hash -1906497762
  EXPECT_EQ(partition_for_group("console-consumer-12345", 50), 6);
  EXPECT_EQ(partition_for_group("gr\xc3\xbcppe", 50), 12);   // "grüppe", hash -1233264812
  EXPECT_EQ(partition_for_group("\xe6\x97\xa5\xe6\x9c\xac", 50), 47);  // "日本"
  EXPECT_EQ(partition_for_group("\xf0\x9f\x98\x80x", 50), 39);  // surrogate pair + 'x'
  EXPECT_EQ(partition_for_group("", 50), 0);
}

}  // namespace
}  // namespace strata::group

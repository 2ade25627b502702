#include "txn/records.h"

#include <gtest/gtest.h>

namespace strata::txn {
namespace {

using Buf = std::vector<uint8_t>;

Buf bytes(std::initializer_list<int> v) {
  Buf out;
  for (int b : v) out.push_back(uint8_t(b));
  return out;
}

Buf cat(std::initializer_list<Buf> parts) {
  Buf out;
  for (const Buf& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// 1700000000000 ms, big-endian int64.
const Buf kTs = bytes({0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00});

TxnValue ongoing() {
  TxnValue v;
  v.producer_id = 1000;
  v.producer_epoch = 2;
  v.timeout_ms = 60000;
  v.state = TxnState::kOngoing;
  v.partitions = {{"orders", {0, 2}}};
  v.last_update_ms = 1700000000000;
  v.start_ms = 1700000000000;
  return v;
}

// The fixed fields of ongoing() up to the status byte, after the version.
const Buf kOngoingHead = bytes({0, 0, 0, 0, 0, 0, 0x03, 0xe8,  // producerId 1000
                                0, 2,                          // producerEpoch
                                0, 0, 0xea, 0x60,              // timeout 60000
                                1});                           // Ongoing

TEST(TransactionLogRecords, KeyIsVersion0WithInt16LengthString) {
  EXPECT_EQ(encode_txn_key("t1"), bytes({0, 0, 0, 2, 't', '1'}));
  auto k = decode_txn_key(bytes({0, 0, 0, 2, 't', '1'}));
  ASSERT_TRUE(k.ok()) << k.error();
  EXPECT_EQ(*k, "t1");
}

TEST(TransactionLogRecords, ValueIsVersion1Flexible) {
  const Buf expected = cat({bytes({0, 1}), kOngoingHead,
                            bytes({2,                            // 1 topic (compact: n + 1)
                                   7, 'o', 'r', 'd', 'e', 'r', 's',  // compact string
                                   3, 0, 0, 0, 0, 0, 0, 0, 2,    // partitions [0, 2]
                                   0}),                          // topic's tagged fields
                            kTs, kTs,
                            bytes({0})});                        // no tagged fields
  EXPECT_EQ(encode_txn_value(ongoing()), expected);
  auto d = decode_txn_value(expected);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(*d, ongoing());
}

TEST(TransactionLogRecords, TaggedFieldsAreWrittenOnlyWhenNotDefault) {
  TxnValue v = ongoing();
  v.partitions.clear();
  v.state = TxnState::kCompleteCommit;
  v.previous_producer_id = 999;
  v.client_transaction_version = 2;  // next_producer_id stays -1: not written
  const Buf expected = cat({bytes({0, 1, 0, 0, 0, 0, 0, 0, 0x03, 0xe8, 0, 2, 0, 0, 0xea, 0x60,
                                   4,     // CompleteCommit
                                   1}),   // an empty list, not null: the state is not Empty
                            kTs, kTs,
                            bytes({2,                                   // two tagged fields
                                   0, 8, 0, 0, 0, 0, 0, 0, 0x03, 0xe7,  // tag 0: 999
                                   2, 2, 0, 2})});                      // tag 2: 2
  EXPECT_EQ(encode_txn_value(v), expected);
  auto d = decode_txn_value(expected);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(*d, v);
}

TEST(TransactionLogRecords, TaggedFieldsRoundTrip) {
  TxnValue v = ongoing();
  v.previous_producer_id = 7;
  v.next_producer_id = 8;
  v.client_transaction_version = 2;
  v.partitions.push_back({"t", {5}});
  auto d = decode_txn_value(encode_txn_value(v));
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(*d, v);
}

TEST(TransactionLogRecords, EmptyStateWritesNullPartitions) {
  TxnValue v;
  v.producer_id = 5;
  v.producer_epoch = 0;
  v.timeout_ms = 1000;
  v.state = TxnState::kEmpty;
  v.last_update_ms = 1700000000000;
  v.start_ms = -1;
  const Buf expected = cat({bytes({0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0x03, 0xe8,
                                   0,     // Empty
                                   0}),   // null (compact)
                            kTs, bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
                            bytes({0})});
  EXPECT_EQ(encode_txn_value(v), expected);
  auto stored = decode_stored_txn_value(expected);
  ASSERT_TRUE(stored.ok()) << stored.error();
  EXPECT_TRUE(stored->partitions_null);
  EXPECT_EQ(stored->version, 1);
  EXPECT_EQ(stored->value, v);
}

TEST(TransactionLogRecords, UnknownTaggedFieldsAreSkipped) {
  TxnValue v = ongoing();
  Buf b = encode_txn_value(v);
  ASSERT_EQ(b.back(), 0);
  b.back() = 1;                                  // one tagged field:
  for (int x : {9, 3, 0xaa, 0xbb, 0xcc}) b.push_back(uint8_t(x));  // tag 9, 3 bytes
  auto d = decode_txn_value(b);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(*d, v);
}

TEST(TransactionLogRecords, Version0IsReadWithInt32ArraysAndNoTags) {
  const Buf v0 = cat({bytes({0, 0}), kOngoingHead,
                      bytes({0, 0, 0, 1,                         // 1 topic
                             0, 6, 'o', 'r', 'd', 'e', 'r', 's',  // string
                             0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2}),  // [0, 2]
                      kTs, kTs});
  auto d = decode_txn_value(v0);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(*d, ongoing());  // tagged fields keep their defaults
  auto stored = decode_stored_txn_value(v0);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->version, 0);
  EXPECT_FALSE(stored->partitions_null);
}

TEST(TransactionLogRecords, Version0NullPartitions) {
  const Buf v0 = cat({bytes({0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0x03, 0xe8, 0,
                             0xff, 0xff, 0xff, 0xff}),
                      kTs, kTs});
  auto stored = decode_stored_txn_value(v0);
  ASSERT_TRUE(stored.ok()) << stored.error();
  EXPECT_TRUE(stored->partitions_null);
  EXPECT_TRUE(stored->value.partitions.empty());
  EXPECT_EQ(stored->value.state, TxnState::kEmpty);
}

TEST(TransactionLogRecords, TruncatedRecordsAreErrors) {
  const Buf key = encode_txn_key("abc");
  for (size_t n = 0; n < key.size(); ++n) {
    EXPECT_FALSE(decode_txn_key(Bytes(key).first(n)).ok()) << n;
  }
  const Buf value = encode_txn_value(ongoing());
  for (size_t n = 0; n < value.size(); ++n) {
    EXPECT_FALSE(decode_txn_value(Bytes(value).first(n)).ok()) << n;
  }
  auto r = decode_txn_value(Bytes(value).first(20));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "transaction log value v1: truncated");
  EXPECT_EQ(decode_txn_key(bytes({0})).error(), "transaction log key: shorter than its version");
}

TEST(TransactionLogRecords, UnknownVersionsAreErrors) {
  auto k = decode_txn_key(bytes({0, 1, 0, 0}));
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error(), "transaction log key: unknown version 1");
  Buf value = encode_txn_value(ongoing());
  value[1] = 2;
  auto v = decode_txn_value(value);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error(), "transaction log value: unknown version 2");
  value[0] = 0xff;  // -254
  EXPECT_FALSE(decode_txn_value(value).ok());
}

TEST(TransactionLogRecords, TrailingBytesAreErrors) {
  Buf key = encode_txn_key("t1");
  key.push_back(0);
  EXPECT_EQ(decode_txn_key(key).error(), "transaction log key v0: trailing bytes");
  Buf value = encode_txn_value(ongoing());
  value.push_back(0);
  EXPECT_EQ(decode_txn_value(value).error(), "transaction log value v1: trailing bytes");
}

TEST(TransactionLogRecords, BadStateByteIsAnErrorButStoredValueKeepsIt) {
  Buf value = encode_txn_value(ongoing());
  const size_t status_at = 2 + 8 + 2 + 4;
  ASSERT_EQ(value[status_at], 1);
  value[status_at] = 8;
  auto d = decode_txn_value(value);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error(), "transaction log value v1: unknown transaction state 8");
  auto stored = decode_stored_txn_value(value);
  ASSERT_TRUE(stored.ok()) << stored.error();
  EXPECT_EQ(int8_t(stored->value.state), 8);
  value[status_at] = 0xff;
  EXPECT_EQ(decode_txn_value(value).error(),
            "transaction log value v1: unknown transaction state -1");
}

TEST(TransactionLogRecords, HostileLengthsAreErrorsNotAllocations) {
  // v0 with a partition count of 0x7fffffff and nothing after it.
  const Buf v0 = bytes({0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0x03, 0xe8, 1,
                        0x7f, 0xff, 0xff, 0xff});
  EXPECT_FALSE(decode_txn_value(v0).ok());
  // v1 with a compact count of 2^32 - 2 (a varint of 5 bytes).
  const Buf v1 = bytes({0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0x03, 0xe8, 1,
                        0xff, 0xff, 0xff, 0xff, 0x0f});
  EXPECT_FALSE(decode_txn_value(v1).ok());
  // A key whose string length runs past the end.
  EXPECT_FALSE(decode_txn_key(bytes({0, 0, 0x7f, 0xff, 'a'})).ok());
}

TEST(TransactionLogRecords, StateNames) {
  EXPECT_STREQ(state_name(TxnState::kEmpty), "Empty");
  EXPECT_STREQ(state_name(TxnState::kPrepareCommit), "PrepareCommit");
  EXPECT_STREQ(state_name(TxnState::kCompleteAbort), "CompleteAbort");
  EXPECT_STREQ(state_name(TxnState::kPrepareEpochFence), "PrepareEpochFence");
  for (int b = 0; b <= 7; ++b) EXPECT_EQ(state_from_byte(int8_t(b)), TxnState(b));
  EXPECT_FALSE(state_from_byte(8));
  EXPECT_FALSE(state_from_byte(-1));
}

TEST(TransactionLogRecords, PartitionIsTheGroupRule) {
  // Java: "my-txn".hashCode() == -1061187895; "txn-1".hashCode() == 110810510.
  EXPECT_EQ(partition_for_txn("my-txn", 50), 45);
  EXPECT_EQ(partition_for_txn("txn-1", 50), 10);
  EXPECT_EQ(partition_for_txn("polygenelubricants", 50), 0);  // hashCode INT32_MIN
}

}  // namespace
}  // namespace strata::txn

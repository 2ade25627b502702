#include "record/batch_builder.h"

#include <gtest/gtest.h>

#include "record/test_util.h"
#include "record/validate.h"

namespace strata::record {
namespace {

using testing::from_hex;
using testing::str;

// Built by kafka-python 2.0.2 (kafka.record.default_records.DefaultRecordBatchBuilder):
// two records at 1700000000000 and +5 ms; ("k1", "v1", header h1="x") and (null, null).
constexpr std::string_view kKafkaPythonTwoRecords =
    "0000000000000000000000480000000002098978800000000000010000018bcfe568000000018bcfe56805"
    "ffffffffffffffffffffffffffff000000021e000000046b310476310204683102780c000a02010100";

BatchBuilder two_record_builder(BatchOptions o) {
  BatchBuilder b(o);
  const Header h{"h1", as_bytes("x")};
  b.append(1700000000000, as_bytes("k1"), as_bytes("v1"), std::span(&h, 1));
  b.append(1700000000005, std::nullopt, std::nullopt);
  return b;
}

TEST(BatchBuilder, ByteIdenticalToKafkaPython) {
  BatchOptions o;
  o.partition_leader_epoch = LeaderEpoch(0);  // kafka-python writes 0, Java -1
  auto built = two_record_builder(o).finish();
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(*built, from_hex(kKafkaPythonTwoRecords));
}

TEST(BatchBuilder, ReadsBackLazily) {
  auto bytes = two_record_builder({}).finish();
  ASSERT_TRUE(bytes.ok());
  std::vector<uint8_t> scratch;
  auto batch = validate_batch(*bytes, {}, scratch);
  ASSERT_TRUE(batch.ok()) << to_string(batch.error());
  EXPECT_EQ(batch->record_count(), 2);
  EXPECT_EQ(batch->last_offset_delta(), 1);
  EXPECT_EQ(batch->base_timestamp(), 1700000000000);
  EXPECT_EQ(batch->max_timestamp(), 1700000000005);
  EXPECT_EQ(batch->partition_leader_epoch(), kNoLeaderEpoch);
  EXPECT_EQ(batch->producer_id(), kNoProducerId);
  EXPECT_EQ(batch->last_sequence(), kNoSequence);

  auto records = uncompressed_records(*batch, scratch);
  ASSERT_TRUE(records.ok());
  // No copy: record views point into the batch bytes themselves.
  EXPECT_EQ(records->data(), bytes->data() + kHeaderSize);
  RecordCursor cursor(*records, batch->record_count());
  RecordView r;
  ASSERT_TRUE(*cursor.next(r));
  EXPECT_EQ(str(*r.key), "k1");
  EXPECT_EQ(str(*r.value), "v1");
  EXPECT_GE(r.key->data(), bytes->data());
  EXPECT_LT(r.key->data(), bytes->data() + bytes->size());
  HeaderCursor hc(r);
  Header h;
  ASSERT_TRUE(hc.next(h));
  EXPECT_EQ(h.key, "h1");
  EXPECT_EQ(str(*h.value), "x");
  EXPECT_FALSE(hc.next(h));
  ASSERT_TRUE(*cursor.next(r));
  EXPECT_FALSE(r.key.has_value());
  EXPECT_FALSE(r.value.has_value());
  EXPECT_EQ(batch->offset_of(r), Offset(1));
  EXPECT_EQ(batch->timestamp_of(r), 1700000000005);
  EXPECT_FALSE(*cursor.next(r));
}

TEST(BatchBuilder, ProducerFieldsAndFlags) {
  BatchOptions o;
  o.producer_id = ProducerId(4242);
  o.producer_epoch = ProducerEpoch(3);
  o.base_sequence = Sequence(INT32_MAX - 1);
  o.transactional = true;
  auto bytes = two_record_builder(o).finish();
  ASSERT_TRUE(bytes.ok());
  std::vector<uint8_t> scratch;
  auto batch = validate_batch(*bytes, {}, scratch);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch->producer_id(), ProducerId(4242));
  EXPECT_EQ(batch->producer_epoch(), ProducerEpoch(3));
  EXPECT_TRUE(batch->is_transactional());
  EXPECT_FALSE(batch->is_control());
  EXPECT_EQ(batch->last_sequence(), Sequence(INT32_MAX));
}

TEST(BatchBuilder, SequenceWrapsPastIntMax) {
  BatchOptions o;
  o.producer_id = ProducerId(1);
  o.producer_epoch = ProducerEpoch(0);
  o.base_sequence = Sequence(INT32_MAX);
  auto bytes = two_record_builder(o).finish();
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(BatchView(*bytes).last_sequence(), Sequence(0));
}

TEST(BatchBuilder, EachCodecRoundTrips) {
  for (Codec c : {Codec::kGzip, Codec::kSnappy, Codec::kLz4, Codec::kZstd}) {
    BatchOptions o;
    o.codec = c;
    BatchBuilder b(o);
    for (int i = 0; i < 500; ++i) {
      std::string v = "value-" + std::to_string(i) + std::string(90, 'x');
      b.append(1000 + i, std::nullopt, as_bytes(v));
    }
    auto bytes = b.finish();
    ASSERT_TRUE(bytes.ok()) << codec_name(c);
    std::vector<uint8_t> scratch;
    auto batch = validate_batch(*bytes, {}, scratch);
    ASSERT_TRUE(batch.ok()) << codec_name(c) << ": " << to_string(batch.error());
    EXPECT_EQ(batch->codec(), c);
    EXPECT_LT(bytes->size(), 500u * 90 / 4) << codec_name(c);
    auto records = uncompressed_records(*batch, scratch);
    ASSERT_TRUE(records.ok());
    RecordCursor cursor(*records, batch->record_count());
    RecordView r;
    int n = 0;
    while (*cursor.next(r)) {
      EXPECT_EQ(str(*r.value), "value-" + std::to_string(n) + std::string(90, 'x'));
      EXPECT_EQ(batch->timestamp_of(r), 1000 + n);
      ++n;
    }
    EXPECT_EQ(n, 500);
  }
}

TEST(BatchBuilder, GapsAndDeleteHorizon) {
  BatchOptions o;
  o.delete_horizon_ms = 5000;
  BatchBuilder b(o);
  b.append_at(2, 4000, as_bytes("a"), as_bytes("1"));
  b.append_at(7, 4500, as_bytes("b"), std::nullopt);
  b.set_last_offset_delta(9);
  auto bytes = b.finish();
  ASSERT_TRUE(bytes.ok());
  std::vector<uint8_t> scratch;
  ValidateOptions strict;  // a producer may not send gaps
  EXPECT_FALSE(validate_batch(*bytes, strict, scratch).ok());
  ValidateOptions log{RecordCheck::kLog, {}};
  auto batch = validate_batch(*bytes, log, scratch);
  ASSERT_TRUE(batch.ok()) << to_string(batch.error());
  EXPECT_EQ(batch->delete_horizon_ms(), std::optional<int64_t>(5000));
  EXPECT_EQ(batch->last_offset_delta(), 9);
  RecordCursor cursor(*uncompressed_records(*batch, scratch), 2);
  RecordView r;
  ASSERT_TRUE(*cursor.next(r));
  EXPECT_EQ(batch->timestamp_of(r), 4000);
  EXPECT_EQ(r.offset_delta, 2);
}

}  // namespace
}  // namespace strata::record

#include "record/control.h"

#include <gtest/gtest.h>

#include "record/test_util.h"
#include "record/validate.h"

namespace strata::record {
namespace {

TEST(Control, EndTxnBatchRoundTrip) {
  ControlBatchOptions o;
  o.base_offset = Offset(42);
  o.producer_id = ProducerId(7);
  o.producer_epoch = ProducerEpoch(2);
  o.timestamp_ms = 1234;
  const auto bytes = build_end_txn_batch({ControlType::kCommit, 5}, o);
  std::vector<uint8_t> scratch;
  auto batch = validate_batch(bytes, {}, scratch);
  ASSERT_TRUE(batch.ok());
  EXPECT_TRUE(batch->is_control());
  EXPECT_TRUE(batch->is_transactional());
  EXPECT_EQ(batch->base_sequence(), kNoSequence);
  RecordCursor cursor(*uncompressed_records(*batch, scratch), batch->record_count());
  RecordView r;
  ASSERT_TRUE(*cursor.next(r));
  auto key = parse_control_key(r.key);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->type, 1);
  auto marker = parse_end_txn_marker(*key, r.value);
  ASSERT_TRUE(marker.ok());
  EXPECT_EQ(marker->type, ControlType::kCommit);
  EXPECT_EQ(marker->coordinator_epoch, 5);
  EXPECT_STREQ(control_type_name(key->type), "COMMIT");
}

TEST(Control, KeyLayout) {
  // version 0, type ABORT.
  const auto key = testing::from_hex("00000000");
  auto k = parse_control_key(Bytes(key));
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->type, 0);
  EXPECT_STREQ(control_type_name(k->type), "ABORT");
}

TEST(Control, ShortKey) {
  const auto key = testing::from_hex("0000");
  EXPECT_EQ(parse_control_key(Bytes(key)).error(), RecordErrc::kBadControlRecord);
  EXPECT_EQ(parse_control_key(std::nullopt).error(), RecordErrc::kBadControlRecord);
}

TEST(Control, NegativeVersion) {
  const auto key = testing::from_hex("ffff0001");
  EXPECT_FALSE(parse_control_key(Bytes(key)).ok());
}

TEST(Control, UnknownTypeIsNotAMarker) {
  const auto key = testing::from_hex("00000007");
  auto k = parse_control_key(Bytes(key));
  ASSERT_TRUE(k.ok());
  EXPECT_STREQ(control_type_name(k->type), "UNKNOWN");
  const auto value = testing::from_hex("000000000001");
  EXPECT_FALSE(parse_end_txn_marker(*k, Bytes(value)).ok());
}

TEST(Control, ShortMarkerValue) {
  ControlKey k{0, 1};
  const auto value = testing::from_hex("00000001");
  EXPECT_EQ(parse_end_txn_marker(k, Bytes(value)).error(), RecordErrc::kBadControlRecord);
  EXPECT_EQ(parse_end_txn_marker(k, std::nullopt).error(), RecordErrc::kBadControlRecord);
}

}  // namespace
}  // namespace strata::record

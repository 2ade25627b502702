#include "record/stamp.h"

#include <gtest/gtest.h>

#include "record/batch_builder.h"
#include "record/validate.h"

namespace strata::record {
namespace {

std::vector<uint8_t> batch_of(int records, Codec codec = Codec::kNone) {
  BatchOptions o;
  o.codec = codec;
  BatchBuilder b(o);
  for (int i = 0; i < records; ++i) b.append(10 + i, std::nullopt, as_bytes("v"));
  return std::move(b.finish()).value();
}

TEST(Stamp, OffsetsWithoutTouchingTheCrc) {
  for (Codec c : {Codec::kNone, Codec::kZstd}) {
    auto b = batch_of(5, c);
    const auto before = b;
    stamp_batch(b, Offset(123456789012), LeaderEpoch(7));
    // Only the two stamped fields changed; the CRC is the producer's.
    EXPECT_TRUE(std::equal(b.begin() + long(kMagicPos), b.end(), before.begin() + long(kMagicPos)));
    std::vector<uint8_t> scratch;
    auto v = validate_batch(b, {}, scratch);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->base_offset(), Offset(123456789012));
    EXPECT_EQ(v->partition_leader_epoch(), LeaderEpoch(7));
    EXPECT_EQ(v->last_offset(), Offset(123456789016));
    EXPECT_EQ(v->crc(), BatchView(before).crc());
  }
}

TEST(Stamp, LogAppendTimeRechecksums) {
  auto b = batch_of(3);
  const uint32_t crc_before = BatchView(b).crc();
  set_log_append_time(b, TimestampMs(999999));
  std::vector<uint8_t> scratch;
  auto v = validate_batch(b, {}, scratch);
  ASSERT_TRUE(v.ok());
  EXPECT_NE(v->crc(), crc_before);
  EXPECT_EQ(v->timestamp_type(), TimestampType::kLogAppendTime);
  EXPECT_EQ(v->max_timestamp(), 999999);
  RecordCursor cursor(*uncompressed_records(*v, scratch), v->record_count());
  RecordView r;
  while (*cursor.next(r)) EXPECT_EQ(v->timestamp_of(r), 999999);
}

}  // namespace
}  // namespace strata::record

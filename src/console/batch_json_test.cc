#include "console/batch_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "record/control.h"
#include "record/validate.h"

namespace strata::console {
namespace {

using namespace strata::record;

Bytes bytes_of(const std::string& s) { return Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

std::vector<uint8_t> batch(int64_t base, int count, Codec codec = Codec::kNone) {
  BatchOptions o;
  o.base_offset = Offset(base);
  o.codec = codec;
  o.producer_id = ProducerId(7);
  o.producer_epoch = ProducerEpoch(1);
  o.base_sequence = Sequence(int32_t(base));
  BatchBuilder b(o);
  static const std::string key = "k", value = "{\"n\": 1}", trace = "abc";
  std::vector<Header> headers{{"trace", bytes_of(trace)}};
  for (int i = 0; i < count; ++i) b.append(1000 + i, bytes_of(key), bytes_of(value), headers);
  return *b.finish();
}

TEST(BatchJson, ListsBatchesWithGapsAndCrcStatus) {
  std::vector<uint8_t> log = batch(0, 3);
  auto second = batch(5, 2, Codec::kZstd);  // offsets 3 and 4 compacted away
  log.insert(log.end(), second.begin(), second.end());
  auto j = batch_list(log, 0);
  ASSERT_EQ(j["batches"].size(), 2u);
  EXPECT_EQ(j["end"], "end");
  EXPECT_EQ(j["batches"][0]["gap"], 0);
  EXPECT_EQ(j["batches"][1]["gap"], 2);
  EXPECT_EQ(j["batches"][1]["codec"], "zstd");
  EXPECT_EQ(j["batches"][1]["last_sequence"], 6);
  EXPECT_TRUE(j["batches"][0]["crc_valid"].get<bool>());
  log[log.size() - 1] ^= 0xff;  // the last batch's bytes no longer match its CRC
  EXPECT_FALSE(batch_list(log, 0)["batches"][1]["crc_valid"].get<bool>());
}

TEST(BatchJson, ACutTailEndsTheListAsPartial) {
  std::vector<uint8_t> log = batch(0, 2);
  auto second = batch(2, 2);
  log.insert(log.end(), second.begin(), second.begin() + 30);
  auto j = batch_list(log, 0);
  EXPECT_EQ(j["batches"].size(), 1u);
  EXPECT_EQ(j["end"], "partial");
}

TEST(BatchJson, DetailOpensRecordsAndTheByteMap) {
  auto bytes = batch(10, 2, Codec::kLz4);
  auto view = frame_batch(bytes);
  ASSERT_TRUE(view);
  auto j = batch_detail(*view, 0);
  ASSERT_EQ(j["records"].size(), 2u);
  EXPECT_EQ(j["records"][1]["offset"], 11);
  EXPECT_EQ(j["records"][0]["value"]["text"], "{\"n\": 1}");
  EXPECT_EQ(j["records"][0]["headers"][0]["key"], "trace");
  EXPECT_NE(j["explain"].get<std::string>().find("baseOffset"), std::string::npos);
}

TEST(BatchJson, ControlRecordsNameTheirMarker) {
  ControlBatchOptions o;
  o.base_offset = Offset(4);
  o.producer_id = ProducerId(7);
  auto bytes = build_end_txn_batch({ControlType::kAbort, 3}, o);
  auto j = batch_list(bytes, 0);
  EXPECT_EQ(j["batches"][0]["marker"]["type"], "ABORT");
  EXPECT_EQ(j["batches"][0]["marker"]["coordinator_epoch"], 3);
  auto skipped = record_list(bytes, {.from = 0, .limit = 10});
  EXPECT_EQ(skipped["records"].size(), 0u);
  EXPECT_EQ(skipped["next"], 5);  // past the marker
  EXPECT_EQ(record_list(bytes, {.from = 0, .limit = 10, .controls = true})["records"].size(), 1u);
}

TEST(BatchJson, RecordListStartsAtTheOffsetAndStopsAtTheLimit) {
  std::vector<uint8_t> log = batch(0, 5);
  auto j = record_list(log, {.from = 2, .limit = 2});
  ASSERT_EQ(j["records"].size(), 2u);
  EXPECT_EQ(j["records"][0]["offset"], 2);
  EXPECT_EQ(j["records"][1]["offset"], 3);
  EXPECT_EQ(j["next"], 4);  // where the next page starts: nothing skipped
  EXPECT_TRUE(j["full"].get<bool>());
}

TEST(BatchJson, AFilterExaminesEveryRecordAndNextPassesThemAll) {
  BatchOptions o;
  BatchBuilder b(o);
  for (int i = 0; i < 1000; ++i) {
    const std::string v = i == 987 ? "needle" : "hay " + std::to_string(i);
    b.append(i, std::nullopt, bytes_of(v));
  }
  auto log = *b.finish();
  auto j = record_list(log, {.from = 0, .limit = 50, .filter = "needle"});
  ASSERT_EQ(j["records"].size(), 1u);
  EXPECT_EQ(j["records"][0]["offset"], 987);
  EXPECT_EQ(j["next"], 1000);
  EXPECT_FALSE(j["full"].get<bool>());
}

TEST(BatchJson, TheAnswerIsBoundedInBytes) {
  BatchOptions o;
  BatchBuilder b(o);
  const std::string big(60 * 1024, 'x');
  for (int i = 0; i < 200; ++i) b.append(i, std::nullopt, bytes_of(big));
  auto log = *b.finish();
  auto j = record_list(log, {.from = 0, .limit = 500});
  EXPECT_LT(j["records"].size(), 200u);
  EXPECT_GE(j["records"].size() * big.size(), kAnswerBytesMax);
  EXPECT_TRUE(j["full"].get<bool>());
}

TEST(BatchJson, BinaryBytesHaveNoText) {
  const std::string bad("\xff\xfe", 2), overlong("\xc0\xaf", 2), euro("\xe2\x82\xac", 3);
  EXPECT_TRUE(bytes_json(bytes_of(bad))["text"].is_null());
  EXPECT_TRUE(bytes_json(bytes_of(overlong))["text"].is_null());
  EXPECT_EQ(bytes_json(bytes_of(euro))["text"], euro);
  EXPECT_EQ(bytes_json(bytes_of(bad))["base64"], "//4=");
  EXPECT_TRUE(bytes_json(std::nullopt).is_null());
}

}  // namespace
}  // namespace strata::console

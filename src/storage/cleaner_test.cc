// The cleaner's parts and rules: the offset map, configs, grouping, delete horizons,
// offset gaps, byte-for-byte copies, codecs, keyless records, a full map, producers'
// last batches.
#include <gtest/gtest.h>

#include <fstream>

#include "record/batch_format.h"
#include "storage/cleaner_test_util.h"

namespace strata::storage {
namespace {

using testing::BatchSpec;
using testing::clean_log;
using testing::force_roll;
using testing::kCleanNow;
using testing::kDeleteRetentionMs;
using testing::keyed_batch;
using testing::make_map;
using testing::open_compacted;
using testing::read_contents;
using testing::Rec;
using TempDir = testing::ScratchDir;

void append(Log& log, const std::vector<Rec>& recs, const BatchSpec& spec = {}) {
  auto b = keyed_batch(recs, spec);
  auto r = log.append(b, LeaderEpoch(0), kCleanNow);
  ASSERT_TRUE(r.ok()) << r.error().message();
}

TEST(OffsetMap, PutGetOverwriteClear) {
  auto map = make_map(24 * 100);
  EXPECT_EQ(map->slots(), 100u);
  EXPECT_EQ(map->latest_offset(), Offset(-1));
  EXPECT_FALSE(map->get(as_bytes("a")).has_value());
  map->put(as_bytes("a"), Offset(5));
  map->put(as_bytes("b"), Offset(6));
  map->put(as_bytes("a"), Offset(7));
  EXPECT_EQ(map->size(), 2u);
  EXPECT_EQ(map->get(as_bytes("a")), Offset(7));
  EXPECT_EQ(map->get(as_bytes("b")), Offset(6));
  EXPECT_EQ(map->latest_offset(), Offset(7));
  EXPECT_DOUBLE_EQ(map->utilization(), 0.02);
  map->clear();
  EXPECT_EQ(map->size(), 0u);
  EXPECT_FALSE(map->get(as_bytes("a")).has_value());
  EXPECT_EQ(map->latest_offset(), Offset(-1));
}

TEST(OffsetMap, FillsEverySlotAndStillAnswers) {
  auto map = make_map(24 * 64);
  for (int i = 0; i < 64; ++i) map->put(as_bytes("key" + std::to_string(i)), Offset(i));
  EXPECT_EQ(map->size(), 64u);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(map->get(as_bytes("key" + std::to_string(i))), Offset(i));
  EXPECT_FALSE(map->get(as_bytes("absent")).has_value());  // a full table still ends
}

TEST(OffsetMap, HashIsMd5) {
  auto map = make_map(24 * 4);
  // MD5("") = d41d8cd98f00b204e9800998ecf8427e
  const KeyHash h = map->hash(Bytes{});
  EXPECT_EQ(h.hi, 0xd41d8cd98f00b204ull);
  EXPECT_EQ(h.lo, 0xe9800998ecf8427eull);
}

TEST(CleanerConfigs, KafkaNamesAndBounds) {
  LogConfig c;
  EXPECT_DOUBLE_EQ(c.min_cleanable_dirty_ratio, 0.5);
  EXPECT_EQ(c.delete_retention_ms, 86400000);
  EXPECT_EQ(c.max_compaction_lag_ms, INT64_MAX);
  ASSERT_TRUE(c.apply({{"min.cleanable.dirty.ratio", "0.25"},
                       {"min.compaction.lag.ms", "10"},
                       {"max.compaction.lag.ms", "20"},
                       {"delete.retention.ms", "30"},
                       {"cleanup.policy", "compact,delete"}})
                  .ok());
  EXPECT_DOUBLE_EQ(c.min_cleanable_dirty_ratio, 0.25);
  EXPECT_EQ(c.min_compaction_lag_ms, 10);
  EXPECT_EQ(c.max_compaction_lag_ms, 20);
  EXPECT_EQ(c.delete_retention_ms, 30);
  EXPECT_TRUE(c.compact() && c.deletes());
  EXPECT_FALSE(c.apply({{"min.cleanable.dirty.ratio", "1.5"}}).ok());
  EXPECT_FALSE(c.apply({{"min.cleanable.dirty.ratio", "x"}}).ok());
  EXPECT_FALSE(c.apply({{"max.compaction.lag.ms", "0"}}).ok());
  EXPECT_FALSE(c.apply({{"delete.retention.ms", "-1"}}).ok());
  CleanerConfig cc;
  cc.threads = 2;
  EXPECT_EQ(cc.map_bytes_per_thread(), 67108864u);
}

TEST(GroupSegments, BySizeIndexBytesAndOffsetRange) {
  std::vector<CleanInput> in(5);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i].base = Offset(int64_t(i) * 100);
    in[i].size = 400;
    in[i].offset_index_bytes = 16;
    in[i].time_index_bytes = 24;
  }
  std::vector<const CleanInput*> ptrs;
  for (const auto& i : in) ptrs.push_back(&i);
  auto sizes = [](const auto& groups) {
    std::vector<size_t> out;
    for (const auto& g : groups) out.push_back(g.size());
    return out;
  };
  EXPECT_EQ(sizes(group_segments(ptrs, 1000, 1000, Offset(500))), (std::vector<size_t>{2, 2, 1}));
  EXPECT_EQ(sizes(group_segments(ptrs, 4000, 48, Offset(500))), (std::vector<size_t>{2, 2, 1}));
  EXPECT_EQ(sizes(group_segments(ptrs, 4000, 4000, Offset(500))), (std::vector<size_t>{5}));
  // A segment that may hold offsets not relative to the group's base (its successor's
  // base - 1 is the bound) starts a new group.
  in[2].base = Offset(int64_t(INT32_MAX) + 50);
  in[3].base = Offset(int64_t(INT32_MAX) + 150);
  in[4].base = Offset(int64_t(INT32_MAX) + 250);
  EXPECT_EQ(sizes(group_segments(ptrs, 4000, 4000, Offset(int64_t(INT32_MAX) + 350))),
            (std::vector<size_t>{1, 1, 3}));
}

// Three versions of k1 ending in a tombstone, two of k2: a cleaning keeps k2's last value
// and the tombstone, stamped with the delete horizon; the tombstone goes once it passes.
TEST(Cleaner, DeleteHorizonStampedThenTombstoneExpires) {
  TempDir dir;
  auto log = open_compacted(dir.str());
  append(*log, {{"k1", "a", kCleanNow + 1}, {"k2", "b", kCleanNow + 2}});
  append(*log, {{"k1", "c", kCleanNow + 3}});
  append(*log, {{"k2", "d", kCleanNow + 4}, {"k1", std::nullopt, kCleanNow + 5}});
  force_roll(*log, kCleanNow);
  auto map = make_map();
  const int64_t t0 = kCleanNow + 1000;
  auto outcome = clean_log(*log, *map, t0);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->first_dirty, Offset(5));
  auto c = read_contents(*log);
  ASSERT_EQ(c.records.size(), 3u);  // k2=d, the tombstone, the roll record
  EXPECT_EQ(c.records.at(3), (Rec{"k2", "d", kCleanNow + 4}));
  EXPECT_EQ(c.records.at(4), (Rec{"k1", std::nullopt, kCleanNow + 5}));
  EXPECT_EQ(c.horizon_of.at(4), t0 + kDeleteRetentionMs);
  const auto& b = c.batches.front();
  EXPECT_EQ(b.base, 3);
  EXPECT_EQ(b.last, 4);
  EXPECT_TRUE(b.attributes & record::kDeleteHorizonBit);
  EXPECT_EQ(b.base_timestamp, t0 + kDeleteRetentionMs);
  // Cleaning again before the horizon keeps the tombstone (and its horizon).
  ASSERT_TRUE(clean_log(*log, *map, t0 + kDeleteRetentionMs - 1, Offset(0)));
  c = read_contents(*log);
  EXPECT_TRUE(c.records.contains(4));
  EXPECT_EQ(c.horizon_of.at(4), t0 + kDeleteRetentionMs);
  ASSERT_TRUE(clean_log(*log, *map, t0 + kDeleteRetentionMs, Offset(0)));
  c = read_contents(*log);
  EXPECT_FALSE(c.records.contains(4));
  EXPECT_EQ(c.records.at(3), (Rec{"k2", "d", kCleanNow + 4}));
}

// A batch keeps its offset range when records go: gaps show, reads skip them.
TEST(Cleaner, OffsetGapsAndReadsAcrossThem) {
  TempDir dir;
  auto log = open_compacted(dir.str());
  append(*log, {{"a", "1", kCleanNow},
                {"b", "1", kCleanNow + 1},
                {"c", "1", kCleanNow + 2},
                {"d", "1", kCleanNow + 3},
                {"e", "1", kCleanNow + 4}});
  append(*log, {{"a", "2", kCleanNow + 5},
                {"b", "2", kCleanNow + 6},
                {"d", "2", kCleanNow + 7},
                {"e", "2", kCleanNow + 8}});
  force_roll(*log, kCleanNow);
  auto map = make_map();
  ASSERT_TRUE(clean_log(*log, *map, kCleanNow));
  auto c = read_contents(*log);
  ASSERT_GE(c.batches.size(), 2u);
  EXPECT_EQ(c.batches[0].base, 0);
  EXPECT_EQ(c.batches[0].last, 4);  // lastOffsetDelta kept
  EXPECT_EQ(c.batches[0].records, 1);
  EXPECT_EQ(c.records.at(2), (Rec{"c", "1", kCleanNow + 2}));
  EXPECT_FALSE(c.records.contains(0));
  auto r = log->read(Offset(1), 1 << 20, true, std::nullopt);
  ASSERT_TRUE(r.ok() && *r);
  auto ts = log->offset_for_timestamp(kCleanNow + 3);
  ASSERT_TRUE(ts.ok() && *ts);
  EXPECT_EQ((*ts)->first, Offset(5));  // the first offset at or after that time that remains
}

TEST(Cleaner, BatchWhoseRecordsAllStayIsCopiedByteForByte) {
  TempDir dir;
  auto log = open_compacted(dir.str());
  append(*log, {{"x", "1", kCleanNow}});
  append(*log, {{"y", "1", kCleanNow}, {"z", "1", kCleanNow}});
  append(*log, {{"x", "2", kCleanNow}});
  force_roll(*log, kCleanNow);
  auto before = log->read(Offset(1), 1 << 20, true, Offset(3));
  ASSERT_TRUE(before.ok() && *before);
  std::vector<uint8_t> a((*before)->size);
  ASSERT_TRUE((*before)->file->pread_some(a, (*before)->position).ok());
  auto map = make_map();
  ASSERT_TRUE(clean_log(*log, *map, kCleanNow));
  auto after = log->read(Offset(0), 1 << 20, true, Offset(3));
  ASSERT_TRUE(after.ok() && *after);
  std::vector<uint8_t> b((*after)->size);
  ASSERT_TRUE((*after)->file->pread_some(b, (*after)->position).ok());
  EXPECT_EQ(a, b);  // offset 0 is gone; the y/z batch is the first, unchanged
}

TEST(Cleaner, RewrittenBatchKeepsCodecAndProducerFields) {
  TempDir dir;
  auto log = open_compacted(dir.str());
  BatchSpec spec;
  spec.codec = record::Codec::kZstd;
  spec.producer_id = ProducerId(7);
  spec.epoch = ProducerEpoch(3);
  spec.base_sequence = Sequence(0);
  append(*log, {{"p", "1", kCleanNow}, {"q", "1", kCleanNow + 1}, {"r", "1", kCleanNow + 2}}, spec);
  spec.base_sequence = Sequence(3);
  append(*log, {{"q", "2", kCleanNow + 3}}, spec);
  force_roll(*log, kCleanNow);
  auto map = make_map();
  ASSERT_TRUE(clean_log(*log, *map, kCleanNow));
  auto region = log->read(Offset(0), 1 << 20, true, Offset(3));
  ASSERT_TRUE(region.ok() && *region);
  std::vector<uint8_t> bytes((*region)->size);
  ASSERT_TRUE((*region)->file->pread_some(bytes, (*region)->position).ok());
  auto v = record::frame_batch(bytes);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->codec(), record::Codec::kZstd);
  EXPECT_EQ(v->producer_id(), ProducerId(7));
  EXPECT_EQ(v->producer_epoch(), ProducerEpoch(3));
  EXPECT_EQ(v->base_sequence(), Sequence(0));
  EXPECT_EQ(v->last_offset_delta(), 2);
  EXPECT_EQ(v->record_count(), 2);
  EXPECT_EQ(v->crc(), v->computed_crc());
  EXPECT_FALSE(v->delete_horizon_ms().has_value());  // no tombstone, no horizon
}

TEST(Cleaner, KeylessRecordsGo) {
  TempDir dir;
  auto log = open_compacted(dir.str());
  append(*log, {{std::nullopt, "lost", kCleanNow}, {"k", "kept", kCleanNow}});
  force_roll(*log, kCleanNow);
  auto map = make_map();
  auto outcome = clean_log(*log, *map, kCleanNow);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->stats.keyless_records_removed, 1u);
  auto c = read_contents(*log);
  EXPECT_FALSE(c.records.contains(0));
  EXPECT_TRUE(c.records.contains(1));
}

}  // namespace
}  // namespace strata::storage

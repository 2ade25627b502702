// The cleaner and producers: aborted transactions' records, markers that wait for their
// delete horizon, the txn index of a cleaned segment, a producer's last batch kept empty
// (and its sequence after a reload), and an offset map too small for the dirty range.
#include <gtest/gtest.h>

#include <filesystem>

#include "storage/cleaner_test_util.h"

namespace strata::storage {
namespace {

using testing::BatchSpec;
using testing::clean_log;
using testing::kCleanNow;
using testing::kDeleteRetentionMs;
using testing::keyed_batch;
using testing::make_map;
using testing::open_compacted;
using testing::read_contents;
using testing::Rec;
using TempDir = testing::ScratchDir;

constexpr ProducerId kPid(200);

Result<AppendResult, StorageError> append(Log& log, const std::vector<Rec>& recs,
                                          const BatchSpec& spec = {}) {
  auto b = keyed_batch(recs, spec);
  return log.append(b, LeaderEpoch(0), kCleanNow);
}

BatchSpec txn_spec(int32_t seq) {
  BatchSpec s;
  s.producer_id = kPid;
  s.epoch = ProducerEpoch(0);
  s.base_sequence = Sequence(seq);
  s.transactional = true;
  return s;
}

void end_txn(Log& log, bool commit) {
  ASSERT_TRUE(
      log.append_marker(TxnMarker{kPid, ProducerEpoch(0), 0, commit}, LeaderEpoch(0), kCleanNow)
          .ok());
}

std::vector<int64_t> batch_bases(const testing::LogContents& c) {
  std::vector<int64_t> out;
  for (const auto& b : c.batches) out.push_back(b.base);
  return out;
}

// Offsets: 0 aborted data, 1 ABORT, 2 committed data (overwritten by 4), 3 COMMIT,
// 4 plain, 5 committed data, 6 COMMIT, 7 the roll record.
TEST(CleanerTxn, AbortedRecordsGoAndMarkersWaitForTheirHorizon) {
  TempDir dir;
  auto log = open_compacted(dir.str());
  ASSERT_TRUE(append(*log, {{"t", "a", kCleanNow}}, txn_spec(0)).ok());
  end_txn(*log, false);
  ASSERT_TRUE(append(*log, {{"u", "b", kCleanNow}}, txn_spec(1)).ok());
  end_txn(*log, true);
  ASSERT_TRUE(append(*log, {{"u", "c", kCleanNow}}).ok());
  ASSERT_TRUE(append(*log, {{"w", "d", kCleanNow}}, txn_spec(2)).ok());
  end_txn(*log, true);
  testing::force_roll(*log, kCleanNow);
  auto map = make_map();

  // 1: the aborted and the overwritten data go; every marker stays (batches of each
  // transaction were seen), the ABORT with its txn index entry.
  ASSERT_TRUE(clean_log(*log, *map, kCleanNow));
  auto c = read_contents(*log);
  EXPECT_EQ(batch_bases(c), (std::vector<int64_t>{1, 3, 4, 5, 6, 7}));
  EXPECT_EQ(c.records.size(), 3u);
  const auto aborted = log->aborted_transactions(Offset(0), Offset(8));
  ASSERT_EQ(aborted.size(), 1u);
  EXPECT_EQ(aborted[0].first_offset, Offset(0));
  EXPECT_EQ(aborted[0].last_offset, Offset(1));

  // 2: markers whose transactions have no batch left get the delete horizon.
  const int64_t t2 = kCleanNow + 5000;
  ASSERT_TRUE(clean_log(*log, *map, t2, Offset(0)));
  c = read_contents(*log);
  EXPECT_EQ(batch_bases(c), (std::vector<int64_t>{1, 3, 4, 5, 6, 7}));
  EXPECT_EQ(c.batches[0].delete_horizon, t2 + kDeleteRetentionMs);
  EXPECT_EQ(c.batches[1].delete_horizon, t2 + kDeleteRetentionMs);
  EXPECT_FALSE(c.batches[4].delete_horizon.has_value());  // its transaction's data remains
  EXPECT_TRUE(log->aborted_transactions(Offset(0), Offset(8)).empty());

  // 3: past the horizon they go.
  ASSERT_TRUE(clean_log(*log, *map, t2 + kDeleteRetentionMs - 1, Offset(0)));
  EXPECT_EQ(batch_bases(read_contents(*log)), (std::vector<int64_t>{1, 3, 4, 5, 6, 7}));
  ASSERT_TRUE(clean_log(*log, *map, t2 + kDeleteRetentionMs, Offset(0)));
  c = read_contents(*log);
  EXPECT_EQ(batch_bases(c), (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(c.records.at(4), (Rec{"u", "c", kCleanNow}));
  EXPECT_EQ(c.records.at(5), (Rec{"w", "d", kCleanNow}));

  // The producer state rebuilt from the cleaned log has no open transaction.
  log.reset();
  for (const auto& name : testing::files_with(dir.str(), ".snapshot")) {
    std::filesystem::remove(dir.str() + "/" + name);
  }
  log = open_compacted(dir.str(), testing::compact_config(), false);
  EXPECT_FALSE(log->first_unstable_offset().has_value());
  EXPECT_TRUE(append(*log, {{"x", "e", kCleanNow}}, txn_spec(3)).ok());
}

// An open transaction holds the cleaning back at its segment.
TEST(CleanerTxn, OpenTransactionBoundsTheCleanableRange) {
  TempDir dir;
  auto log = open_compacted(dir.str());
  ASSERT_TRUE(append(*log, {{"a", "1", kCleanNow}}).ok());
  const Offset held_segment = log->log_end_offset();  // the roll record starts it
  testing::force_roll(*log, kCleanNow);
  const Offset open_at = log->log_end_offset();
  ASSERT_TRUE(append(*log, {{"a", "2", kCleanNow}}, txn_spec(0)).ok());
  testing::force_roll(*log, kCleanNow);
  ASSERT_TRUE(append(*log, {{"a", "3", kCleanNow}}).ok());
  testing::force_roll(*log, kCleanNow);
  const CleanableStats s = log->cleanable(std::nullopt, kCleanNow);
  EXPECT_EQ(s.first_uncleanable, held_segment);
  auto map = make_map();
  auto outcome = clean_log(*log, *map, kCleanNow);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->first_dirty, held_segment);
  const auto c = read_contents(*log);
  EXPECT_TRUE(c.records.contains(0));  // only the open transaction's own record follows it
  EXPECT_TRUE(c.records.contains(open_at.value()));
}

// A producer's last batch stays, emptied, so its sequence survives compaction and a reload.
TEST(CleanerTxn, ProducersLastBatchIsKeptEmpty) {
  TempDir dir;
  auto log = open_compacted(dir.str());
  BatchSpec p;
  p.producer_id = ProducerId(5);
  p.epoch = ProducerEpoch(2);
  p.base_sequence = Sequence(0);
  ASSERT_TRUE(append(*log, {{"a", "1", kCleanNow}, {"b", "1", kCleanNow}}, p).ok());
  ASSERT_TRUE(append(*log, {{"a", "2", kCleanNow}, {"b", "2", kCleanNow}}).ok());
  testing::force_roll(*log, kCleanNow);
  auto map = make_map();
  ASSERT_TRUE(clean_log(*log, *map, kCleanNow));
  auto c = read_contents(*log);
  ASSERT_FALSE(c.batches.empty());
  EXPECT_EQ(c.batches[0].base, 0);
  EXPECT_EQ(c.batches[0].last, 1);
  EXPECT_EQ(c.batches[0].records, 0);
  EXPECT_EQ(c.batches[0].producer_id, ProducerId(5));
  EXPECT_FALSE(c.records.contains(0));

  log.reset();  // a crash, and no snapshot: the state comes from the cleaned segments
  for (const auto& name : testing::files_with(dir.str(), ".snapshot")) {
    std::filesystem::remove(dir.str() + "/" + name);
  }
  log = open_compacted(dir.str(), testing::compact_config(), false);
  auto retry = append(*log, {{"a", "1", kCleanNow}, {"b", "1", kCleanNow}}, p);
  ASSERT_TRUE(retry.ok());
  EXPECT_TRUE(retry->duplicate);
  p.base_sequence = Sequence(5);
  EXPECT_EQ(append(*log, {{"c", "1", kCleanNow}}, p).error().code,
            StorageErrc::kOutOfOrderSequence);
  p.base_sequence = Sequence(2);
  EXPECT_TRUE(append(*log, {{"c", "1", kCleanNow}}, p).ok());
}

// A map of 9 usable slots: each cleaning covers the dirty range up to where it filled.
TEST(CleanerTxn, FullMapCleansWhatFits) {
  TempDir dir;
  auto log = open_compacted(dir.str());
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(append(*log, {{"k" + std::to_string(i % 5), std::to_string(i), kCleanNow}}).ok());
  }
  std::vector<Rec> us;
  for (int i = 0; i < 20; ++i) us.push_back({"u" + std::to_string(i), "x", kCleanNow});
  ASSERT_TRUE(append(*log, us).ok());  // offsets 50..69 in one batch
  testing::force_roll(*log, kCleanNow);
  auto map = make_map(OffsetMap::kSlotBytes * 10);
  auto outcome = clean_log(*log, *map, kCleanNow);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->first_dirty, Offset(54));  // k0-k4 and u0-u3 fit; u4 did not
  EXPECT_NEAR(outcome->stats.map_utilization, 0.9, 1e-9);
  auto c = read_contents(*log);
  for (int64_t o = 0; o < 45; ++o) EXPECT_FALSE(c.records.contains(o)) << o;
  for (int64_t o = 45; o <= 70; ++o) EXPECT_TRUE(c.records.contains(o)) << o;
  outcome = clean_log(*log, *map, kCleanNow, outcome->first_dirty);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->first_dirty, Offset(63));
  EXPECT_EQ(read_contents(*log).records.size(), 26u);
}

}  // namespace
}  // namespace strata::storage

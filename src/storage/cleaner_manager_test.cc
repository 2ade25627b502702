// Choosing what to clean: Kafka's dirty ratio, min.compaction.lag.ms,
// max.compaction.lag.ms; and LogManager's bookkeeping: grab_filthiest, done_cleaning,
// cleaner-offset-checkpoint across a restart, the state the broker shows.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "storage/cleaner_test_util.h"
#include "storage/log_manager.h"

namespace strata::storage {
namespace {

using testing::clean_log;
using testing::kCleanNow;
using testing::keyed_batch;
using testing::make_map;
using testing::open_compacted;
using TempDir = testing::ScratchDir;

void put(Log& log, const std::string& key, int64_t ts) {
  auto b = keyed_batch({{key, std::string(100, 'v'), ts}});
  ASSERT_TRUE(log.append(b, LeaderEpoch(0), ts).ok());
}

// Two segments of overwrites, then an active one.
std::unique_ptr<Log> dirty_log(const std::string& dir,
                               LogConfig config = testing::compact_config()) {
  auto log = open_compacted(dir, config);
  for (int i = 0; i < 30; ++i) put(*log, "k" + std::to_string(i % 3), kCleanNow);
  testing::force_roll(*log, kCleanNow);
  return log;
}

TEST(CleanerChoice, DirtyRatioBeforeAndAfterACleaning) {
  TempDir dir;
  auto log = dirty_log(dir.str());
  CleanableStats s = log->cleanable(std::nullopt, kCleanNow);
  EXPECT_EQ(s.first_dirty, Offset(0));
  EXPECT_EQ(s.first_uncleanable, log->segment_bases().back());
  EXPECT_EQ(s.clean_bytes, 0u);
  EXPECT_GT(s.cleanable_bytes, 0u);
  EXPECT_DOUBLE_EQ(s.dirty_ratio, 1.0);
  EXPECT_TRUE(s.should_clean);
  auto map = make_map();
  auto outcome = clean_log(*log, *map, kCleanNow);
  ASSERT_TRUE(outcome);
  EXPECT_LT(outcome->bytes_after, outcome->bytes_before);
  s = log->cleanable(outcome->first_dirty, kCleanNow);
  EXPECT_EQ(s.cleanable_bytes, 0u);
  EXPECT_DOUBLE_EQ(s.dirty_ratio, 0.0);
  EXPECT_FALSE(s.should_clean);
  auto none = log->prepare_clean(outcome->first_dirty, kCleanNow);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  // A checkpoint outside the log restarts at the log start (Kafka's reset).
  s = log->cleanable(Offset(1000000), kCleanNow);
  EXPECT_TRUE(s.checkpoint_reset);
  EXPECT_EQ(s.first_dirty, Offset(0));
}

TEST(CleanerChoice, MinCompactionLagHoldsRecentSegmentsBack) {
  TempDir dir;
  LogConfig config = testing::compact_config();
  config.min_compaction_lag_ms = 60000;
  auto log = dirty_log(dir.str(), config);
  auto early = log->prepare_clean(std::nullopt, kCleanNow + 1000);
  ASSERT_TRUE(early.ok());
  EXPECT_FALSE(early->has_value());
  auto later = log->prepare_clean(std::nullopt, kCleanNow + 61000);
  ASSERT_TRUE(later.ok());
  EXPECT_TRUE(later->has_value());
}

TEST(CleanerChoice, MaxCompactionLagForcesACleaning) {
  TempDir dir;
  LogConfig config = testing::compact_config();
  config.min_cleanable_dirty_ratio = 1.0;  // the ratio alone never qualifies
  auto log = dirty_log(dir.str(), config);
  EXPECT_FALSE(log->cleanable(std::nullopt, kCleanNow).should_clean);
  config.max_compaction_lag_ms = 1000;
  log->set_config(config);
  const CleanableStats s = log->cleanable(std::nullopt, kCleanNow + 5000);
  EXPECT_GT(s.compaction_delay_ms, 0);
  EXPECT_TRUE(s.should_clean);
  config.cleanup_policy = "delete";
  log->set_config(config);
  EXPECT_FALSE(log->cleanable(std::nullopt, kCleanNow + 5000).should_clean);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::unique_ptr<LogManager> open_manager(const std::string& dir) {
  LogManagerOptions o;
  o.log_dir = dir;
  o.now_ms = kCleanNow;
  o.config_for = [](const std::string&) { return testing::compact_config(); };
  auto m = LogManager::open(o);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message());
  return m.ok() ? std::move(*m) : nullptr;
}

TEST(CleanerManager, GrabCleanCheckpointAndReload) {
  TempDir dir;
  const TopicPartition tp{"compacted", PartitionId(0)};
  const TopicPartition quiet{"quiet", PartitionId(0)};
  auto manager = open_manager(dir.str());
  auto log = manager->create(tp, testing::compact_config(), kCleanNow);
  ASSERT_TRUE(log.ok());
  for (int i = 0; i < 30; ++i) put(**log, "k" + std::to_string(i % 3), kCleanNow);
  testing::force_roll(**log, kCleanNow);
  ASSERT_TRUE(manager->create(quiet, testing::compact_config(), kCleanNow).ok());
  EXPECT_FALSE(manager->grab_filthiest().has_value());  // nothing refreshed yet
  manager->refresh_cleanable(tp, **log, kCleanNow);
  manager->refresh_cleanable(quiet, *manager->get(quiet), kCleanNow);
  EXPECT_EQ(manager->grab_filthiest(), tp);
  EXPECT_FALSE(manager->grab_filthiest().has_value());  // in progress; the other is empty
  EXPECT_TRUE(manager->cleaner_state(tp)->in_progress);

  auto map = make_map();
  auto outcome = clean_log(**log, *map, kCleanNow, manager->cleaner_checkpoint(tp));
  ASSERT_TRUE(outcome);
  ASSERT_TRUE(manager->done_cleaning(tp, *outcome, kCleanNow + 7).ok());
  const auto state = manager->cleaner_state(tp);
  ASSERT_TRUE(state);
  EXPECT_FALSE(state->in_progress);
  EXPECT_EQ(state->last_clean_ms, kCleanNow + 7);
  EXPECT_EQ(state->cleanings, 1u);
  EXPECT_GT(state->bytes_cleaned, state->bytes_written);
  EXPECT_EQ(state->first_dirty, outcome->first_dirty);
  EXPECT_EQ(slurp(dir.str() + "/cleaner-offset-checkpoint"),
            "0\n1\ncompacted 0 " + std::to_string(outcome->first_dirty.value()) + "\n");
  manager->refresh_cleanable(tp, **log, kCleanNow);
  EXPECT_DOUBLE_EQ(manager->cleaner_state(tp)->cleanable.dirty_ratio, 0.0);
  EXPECT_FALSE(manager->grab_filthiest().has_value());

  ASSERT_TRUE(manager->shutdown().ok());
  manager.reset();
  manager = open_manager(dir.str());
  EXPECT_EQ(manager->cleaner_checkpoint(tp), outcome->first_dirty);
  EXPECT_FALSE(manager->cleaner_checkpoint(quiet).has_value());
  ASSERT_TRUE(manager->remove(tp).ok());
  EXPECT_EQ(slurp(dir.str() + "/cleaner-offset-checkpoint"), "0\n0\n");
}

TEST(CleanerManager, AbortEndsTheCleaningAndKeepsTheCheckpoint) {
  TempDir dir;
  const TopicPartition tp{"c", PartitionId(3)};
  auto manager = open_manager(dir.str());
  auto log = manager->create(tp, testing::compact_config(), kCleanNow);
  ASSERT_TRUE(log.ok());
  for (int i = 0; i < 30; ++i) put(**log, "k" + std::to_string(i % 3), kCleanNow);
  testing::force_roll(**log, kCleanNow);
  manager->refresh_cleanable(tp, **log, kCleanNow);
  ASSERT_EQ(manager->grab_filthiest(), tp);
  manager->abort_cleaning(tp);
  EXPECT_FALSE(manager->cleaner_state(tp)->in_progress);
  EXPECT_FALSE(manager->cleaner_checkpoint(tp).has_value());
  EXPECT_EQ(manager->grab_filthiest(), tp);
}

}  // namespace
}  // namespace strata::storage

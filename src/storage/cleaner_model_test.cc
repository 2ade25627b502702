// The cleaner against a model: random workloads (overwrites, tombstones, keyless records,
// idempotent and transactional producers, commits and aborts, every codec) cleaned round
// after round, with time passing delete horizons, reopened cleanly and after a crash;
// a cleaning on its own thread while the "shard" appends; retention and close meanwhile.
//
// Seeds: STRATA_TEST_SEED=<n> repeats a run.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include "storage/cleaner_test_util.h"
#include "storage/cleaner_workload.h"

namespace strata::storage {
namespace {

using testing::clean_log;
using testing::kCleanNow;
using testing::kDeleteRetentionMs;
using testing::LogContents;
using testing::make_map;
using testing::Model;
using testing::open_compacted;
using testing::read_contents;
using testing::Rec;
using TempDir = testing::ScratchDir;
using testing::Workload;

constexpr int kSeeds = 3;
constexpr int kRounds = 8;
constexpr int kStepsPerRound = 80;

uint64_t base_seed() {
  if (const char* s = std::getenv("STRATA_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return std::random_device{}();
}

// Tombstones a cleaning keeps below its end carry their batch's delete horizon.
void expect_horizons(const LogContents& c, int64_t end) {
  for (const auto& [offset, rec] : c.records) {
    if (offset < end && !rec.value) {
      EXPECT_TRUE(c.horizon_of.at(offset).has_value()) << offset;
    }
  }
}

void expect_reopens_same(std::unique_ptr<Log>& log, const std::string& dir, bool clean) {
  const LogContents before = read_contents(*log);
  if (clean) {
    ASSERT_TRUE(log->close().ok());
  }
  log.reset();
  log = open_compacted(dir, testing::compact_config(), clean);
  ASSERT_TRUE(log);
  EXPECT_EQ(read_contents(*log).records, before.records);
}

void run_model(uint64_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  TempDir dir;
  auto log = open_compacted(dir.str());
  Model model;
  Workload w(*log, model, seed);
  std::mt19937_64 rng(seed);
  auto map = make_map();
  std::optional<Offset> checkpoint;
  int64_t now = kCleanNow;
  size_t removed = 0;
  for (int round = 0; round < kRounds; ++round) {
    w.run(kStepsPerRound, now);
    if (round % 2 == 1) w.end_all(now);
    w.roll(now);
    now += int64_t(rng() % uint64_t(kDeleteRetentionMs));
    const LogContents before = read_contents(*log);
    auto outcome = clean_log(*log, *map, now, checkpoint);
    if (!outcome) continue;  // an open transaction holds everything back
    const LogContents after = read_contents(*log);
    EXPECT_EQ(after.records, model.expected(before, outcome->first_dirty.value(), now));
    expect_horizons(after, outcome->first_dirty.value());
    removed += before.records.size() - after.records.size();
    if (std::getenv("STRATA_CLEANER_VERBOSE")) {
      std::printf("round %d: end %ld, %zu -> %zu records, %zu groups, %zu aborted\n", round,
                  long(outcome->first_dirty.value()), before.records.size(), after.records.size(),
                  outcome->groups_swapped, model.aborted.size());
    }
    checkpoint = outcome->first_dirty;
    if (round % 3 == 2) {
      expect_reopens_same(log, dir.str(), round % 2 == 0);
      if (!log) return;
      w.set_log(*log);
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(removed, 0u);
  EXPECT_FALSE(model.aborted.empty());
  // Two full cleanings a delete.retention.ms apart leave no tombstone below their end.
  w.end_all(now);
  w.roll(now);
  for (int i = 0; i < 2; ++i) {
    now += kDeleteRetentionMs + 1;
    const LogContents before = read_contents(*log);
    auto outcome = clean_log(*log, *map, now, std::nullopt);
    ASSERT_TRUE(outcome);
    const LogContents after = read_contents(*log);
    EXPECT_EQ(after.records, model.expected(before, outcome->first_dirty.value(), now));
    if (i == 1) {
      for (const auto& [offset, rec] : after.records) {
        if (offset < outcome->first_dirty.value()) {
          EXPECT_TRUE(rec.value.has_value()) << offset;
        }
      }
    }
  }
}

TEST(CleanerModel, RandomWorkloadsMatchTheModel) {
  const uint64_t seed = base_seed();
  for (int i = 0; i < kSeeds; ++i) run_model(seed + uint64_t(i));
}

// The shard appends (and rolls) while run_clean runs on another thread.
TEST(CleanerModel, AppendsContinueWhileTheCleanerThreadRuns) {
  const uint64_t seed = base_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  TempDir dir;
  auto log = open_compacted(dir.str());
  Model model;
  Workload w(*log, model, seed);
  w.run(300, kCleanNow);
  w.end_all(kCleanNow);
  w.roll(kCleanNow);
  const LogContents before = read_contents(*log);
  const int64_t end_at_prepare = log->log_end_offset().value();
  auto task = log->prepare_clean(std::nullopt, kCleanNow);
  ASSERT_TRUE(task.ok() && *task);
  auto map = make_map();
  std::optional<Result<CleanResult, StorageError>> result;
  std::thread cleaner([&] { result.emplace(run_clean(**task, *map, CleanerConfig{}, kCleanNow)); });
  w.run(400, kCleanNow + 1);  // rolls several segments meanwhile
  cleaner.join();
  ASSERT_TRUE(result->ok()) << result->error().message();
  auto outcome = log->finish_clean(std::move(**result), kCleanNow);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message();
  EXPECT_GT(outcome->groups_swapped, 0u);
  std::map<int64_t, Rec> expected = model.expected(before, outcome->first_dirty.value(), kCleanNow);
  for (const auto& [offset, rec] : model.records) {
    if (offset >= end_at_prepare) expected[offset] = rec;
  }
  EXPECT_EQ(read_contents(*log).records, expected);
  expect_reopens_same(log, dir.str(), false);
}

// DeleteRecords (or retention) removes segments between prepare and finish: the groups
// that lost one are discarded, the others swapped in.
TEST(CleanerModel, SegmentsDeletedMeanwhileDiscardTheirGroups) {
  TempDir dir;
  LogConfig config = testing::compact_config();
  config.segment_bytes = 1024;  // many segments, several groups of 4 KiB
  config.cleanup_policy = "compact,delete";
  config.segment_ms = INT64_MAX;
  auto log = open_compacted(dir.str(), config);
  Model model;
  Workload w(*log, model, 42);
  config.segment_bytes = 4096;  // the cleaned segments' size: groups of about four
  w.run(300, kCleanNow);
  w.end_all(kCleanNow);
  w.roll(kCleanNow);
  log->set_config(config);
  const LogContents before = read_contents(*log);
  auto task = log->prepare_clean(std::nullopt, kCleanNow);
  ASSERT_TRUE(task.ok() && *task);
  auto map = make_map();
  auto result = run_clean(**task, *map, CleanerConfig{}, kCleanNow);
  ASSERT_TRUE(result.ok());
  ASSERT_GE(result->groups.size(), 2u);
  const Offset start = log->segment_bases()[2];
  ASSERT_TRUE(log->advance_log_start_offset(start, kCleanNow).ok());
  auto outcome = log->finish_clean(std::move(*result), kCleanNow);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message();
  EXPECT_EQ(outcome->groups_discarded, 1u);
  EXPECT_GT(outcome->groups_swapped, 0u);
  const auto expected = model.expected(before, outcome->first_dirty.value(), kCleanNow);
  const LogContents after = read_contents(*log);
  for (const auto& [offset, rec] : after.records) EXPECT_EQ(before.records.at(offset), rec);
  for (const auto& [offset, rec] : expected) {
    if (offset >= start.value()) {
      EXPECT_TRUE(after.records.contains(offset)) << offset;
    }
  }
  EXPECT_TRUE(testing::files_with(dir.str(), ".cleaned").empty());
}

TEST(CleanerModel, CloseDiscardsTheCleaningAndItsFiles) {
  TempDir dir;
  auto log = open_compacted(dir.str());
  Model model;
  Workload w(*log, model, 7);
  w.run(200, kCleanNow);
  w.end_all(kCleanNow);
  w.roll(kCleanNow);
  const LogContents before = read_contents(*log);
  auto task = log->prepare_clean(std::nullopt, kCleanNow);
  ASSERT_TRUE(task.ok() && *task);
  auto map = make_map();
  auto result = run_clean(**task, *map, CleanerConfig{}, kCleanNow);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(testing::files_with(dir.str(), ".log.cleaned").empty());
  ASSERT_TRUE(log->close().ok());
  auto outcome = log->finish_clean(std::move(*result), kCleanNow);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code, StorageErrc::kClosed);
  EXPECT_TRUE(testing::files_with(dir.str(), ".cleaned").empty());
  EXPECT_EQ(read_contents(*log).records, before.records);
  // A result dropped without finish_clean leaves nothing either.
  log = open_compacted(dir.str());
  task = log->prepare_clean(std::nullopt, kCleanNow);
  ASSERT_TRUE(task.ok() && *task);
  { auto dropped = run_clean(**task, *map, CleanerConfig{}, kCleanNow); }
  EXPECT_TRUE(testing::files_with(dir.str(), ".cleaned").empty());
  // So does a cleaning told to stop.
  std::atomic<bool> stop{true};
  auto stopped = run_clean(**task, *map, CleanerConfig{}, kCleanNow, &stop);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().code, StorageErrc::kClosed);
  EXPECT_TRUE(testing::files_with(dir.str(), ".cleaned").empty());
}

}  // namespace
}  // namespace strata::storage

// Crashes during a cleaning. The swap protocol (Log::finish_clean) is a sequence of
// renames; for every prefix of it the files are left as a crash would leave them and the
// log is reopened after an "unclean shutdown". Then a child process that cleans is
// SIGKILLed at random moments. Each time the reopened log must hold no `.cleaned` or
// `.swap` file, take appends, and read back records that lie between the two complete
// states: everything a finished cleaning keeps is there, and nothing is there that was
// not there before (per offset, byte-equal content).
//
// Seeds: STRATA_TEST_SEED=<n> repeats the kill timings' choices.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

#include "storage/cleaner_test_util.h"
#include "storage/cleaner_workload.h"
#include "storage/index_format.h"

namespace strata::storage {
namespace {

namespace fs = std::filesystem;
using testing::kCleanNow;
using testing::LogContents;
using testing::Rec;
using TempDir = testing::ScratchDir;

constexpr int kWorkloadSteps = 120;
constexpr int kKillIterations = 16;
constexpr int kKillDelayUsMax = 40000;
const char* const kSegmentSuffixes[] = {kLogSuffix, kIndexSuffix, kTimeIndexSuffix,
                                        kTxnIndexSuffix};

// A compacted log with several segments, closed, and what a cleaning of it leaves.
struct Scenario {
  TempDir source;
  LogContents before;
  LogContents after;

  Scenario() {
    // Written in 1 KiB segments, cleaned into groups of about four (4 KiB).
    LogConfig small = testing::compact_config();
    small.segment_bytes = 1024;
    auto log = testing::open_compacted(source.str(), small);
    testing::Model model;
    testing::Workload w(*log, model, 1234);
    w.run(kWorkloadSteps, kCleanNow);
    w.end_all(kCleanNow);
    w.roll(kCleanNow);
    before = testing::read_contents(*log);
    EXPECT_TRUE(log->close().ok());
    TempDir oracle;
    copy_to(oracle);
    auto cleaned = testing::open_compacted(oracle.str());
    auto map = testing::make_map();
    EXPECT_TRUE(testing::clean_log(*cleaned, *map, kCleanNow));
    after = testing::read_contents(*cleaned);
    EXPECT_LT(after.records.size(), before.records.size());
  }
  void copy_to(const TempDir& dir) const {
    fs::remove_all(dir.str());
    fs::copy(source.str(), dir.str(), fs::copy_options::recursive);
  }
};

// Reopens `dir` as after a crash and checks it against the scenario (and, if given, that
// it holds exactly `exact`).
void expect_recovers(const Scenario& s, const std::string& dir, const std::string& what,
                     const std::map<int64_t, Rec>* exact = nullptr) {
  SCOPED_TRACE(what);
  auto log = testing::open_compacted(dir, testing::compact_config(), false);
  ASSERT_TRUE(log);
  EXPECT_TRUE(testing::files_with(dir, ".cleaned").empty());
  EXPECT_TRUE(testing::files_with(dir, ".swap").empty());
  const LogContents got = testing::read_contents(*log);
  for (const auto& [offset, rec] : got.records) {
    auto it = s.before.records.find(offset);
    ASSERT_TRUE(it != s.before.records.end()) << "offset " << offset << " was never there";
    EXPECT_EQ(it->second, rec) << offset;
  }
  for (const auto& [offset, rec] : s.after.records) {
    EXPECT_TRUE(got.records.contains(offset)) << "offset " << offset << " lost";
  }
  if (exact) {
    EXPECT_EQ(got.records, *exact);
  }
  auto b = testing::keyed_batch({{"after-crash", "x", kCleanNow}});
  auto r = log->append(b, LeaderEpoch(0), kCleanNow);
  ASSERT_TRUE(r.ok()) << r.error().message();
  auto map = testing::make_map();
  (void)testing::clean_log(*log, *map, kCleanNow, std::nullopt);  // and cleans again
}

std::string seg_path(const std::string& dir, Offset base, const char* suffix) {
  return dir + "/" + segment_file_name(base, suffix);
}

// Log::swap_in's renames for every group, in order, one file at a time.
std::vector<std::pair<std::string, std::string>> swap_renames(const std::string& dir,
                                                              const CleanResult& result) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const CleanedGroup& g : result.groups) {
    const Offset base = g.segment->base_offset();
    for (const char* ext : kSegmentSuffixes) {
      const std::string p = seg_path(dir, base, ext);
      if (fs::exists(p + kCleanedSuffix)) out.emplace_back(p + kCleanedSuffix, p + kSwapSuffix);
    }
    for (const auto& replaced : g.replaces) {
      for (const char* ext : kSegmentSuffixes) {
        const std::string p = seg_path(dir, replaced.first, ext);
        if (fs::exists(p)) out.emplace_back(p, p + kDeletedSuffix);
      }
      const std::string snapshot = seg_path(dir, replaced.first, kSnapshotSuffix);
      if (replaced.first != base && fs::exists(snapshot)) {
        out.emplace_back(snapshot, snapshot + kDeletedSuffix);
      }
    }
    for (const char* ext : kSegmentSuffixes) {
      const std::string p = seg_path(dir, base, ext);
      if (fs::exists(p + kCleanedSuffix)) out.emplace_back(p + kSwapSuffix, p);
    }
  }
  return out;
}

// Every prefix of the swap's renames, as a crash would leave the directory.
TEST(CleanerCrash, EveryStepOfTheSwapRecovers) {
  const Scenario s;
  ASSERT_FALSE(::testing::Test::HasFailure());
  size_t steps = 1;
  for (size_t k = 0; k <= steps; ++k) {
    TempDir dir;
    s.copy_to(dir);
    auto log = testing::open_compacted(dir.str());
    auto task = log->prepare_clean(std::nullopt, kCleanNow);
    ASSERT_TRUE(task.ok() && *task);
    auto map = testing::make_map();
    auto result = run_clean(**task, *map, CleanerConfig{}, kCleanNow);
    ASSERT_TRUE(result.ok());
    const auto renames = swap_renames(dir.str(), *result);
    steps = renames.size();
    for (CleanedGroup& g : result->groups) g.segment.reset();  // the crash keeps the files
    log.reset();                                               // no close: a crash
    for (size_t i = 0; i < k; ++i) fs::rename(renames[i].first, renames[i].second);
    const auto* exact = k == 0 ? &s.before.records : k == steps ? &s.after.records : nullptr;
    expect_recovers(s, dir.str(),
                    "crash after rename " + std::to_string(k) + " of " + std::to_string(steps),
                    exact);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(steps, 8u);
  if (std::getenv("STRATA_CLEANER_VERBOSE")) std::printf("%zu renames in the swap\n", steps);
}

uint64_t seed() {
  if (const char* v = std::getenv("STRATA_TEST_SEED")) return std::strtoull(v, nullptr, 10);
  return std::random_device{}();
}

[[noreturn]] void child_clean(const std::string& dir) {
  auto log = Log::open(dir, [] {
    LogOptions o;
    o.config = testing::compact_config();
    o.clean_shutdown = true;
    o.now_ms = kCleanNow;
    return o;
  }());
  if (!log) ::_exit(101);
  auto map = OffsetMap::create(1 << 20);
  if (!map) ::_exit(102);
  for (;;) {  // clean until killed (later rounds find little to do)
    auto task = (*log)->prepare_clean(std::nullopt, kCleanNow);
    if (!task || !*task) ::_exit(103);
    auto result = run_clean(**task, **map, CleanerConfig{}, kCleanNow);
    if (!result) ::_exit(104);
    if (!(*log)->finish_clean(std::move(*result), kCleanNow)) ::_exit(105);
  }
}

// A child that cleans, killed by SIGKILL at a random moment.
TEST(CleanerCrash, KilledCleanerRecovers) {
  const Scenario s;
  ASSERT_FALSE(::testing::Test::HasFailure());
  const uint64_t base = seed();
  SCOPED_TRACE("seed " + std::to_string(base));
  std::mt19937_64 rng(base);
  for (int i = 0; i < kKillIterations; ++i) {
    TempDir dir;
    s.copy_to(dir);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) child_clean(dir.str());
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % kKillDelayUsMax));
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    expect_recovers(s, dir.str(), "kill " + std::to_string(i));
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace strata::storage

// Corruption tests, named cases on whole segments and their files: damaged or missing
// indexes, a damaged or emptied middle segment (the segments after it are deleted) and
// damage below the recovery point (trusted, as in Kafka). The oracle, the checks and
// the fixture are in corruption_test_util.h.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "storage/corruption_test_util.h"

namespace strata::storage::corruption_test {
namespace {

TEST_F(Corruption, PartialIndexEntryAfterACleanShutdownIsRebuilt) {
  std::mt19937_64 rng(seed_);
  for (const char* suffix : {kIndexSuffix, kTimeIndexSuffix}) {
    for (size_t segment : {size_t(0), closed_->segments.size() - 1}) {
      SCOPED_TRACE(std::string(suffix) + " of segment " + std::to_string(segment));
      auto dir = copy_of(*closed_);
      const fs::path path =
          fs::path(dir->str()) / segment_file_name(Offset(closed_->segments[segment].base), suffix);
      auto bytes = read_file(path);
      bytes.push_back(0x11);  // one byte past the last whole entry
      write_file(path, bytes);
      recover_and_check(dir->str(), *closed_, expect_log(*closed_, segment, std::nullopt), true, 0,
                        rng);
      if (HasFatalFailure()) return;
    }
  }
}

// Kafka's LogLoader rebuilds a segment's missing index ("Could not find offset index
// file corresponding to log file ..., recovering segment and rebuilding index files").
TEST_F(Corruption, MissingIndexOfAMiddleSegmentIsRebuilt) {
  std::mt19937_64 rng(seed_);
  for (const char* suffix : {kIndexSuffix, kTimeIndexSuffix}) {
    SCOPED_TRACE(suffix);
    auto dir = copy_of(*closed_);
    fs::remove(fs::path(dir->str()) / segment_file_name(Offset(closed_->segments[1].base), suffix));
    recover_and_check(dir->str(), *closed_, expect_log(*closed_, 1, std::nullopt), false, 0, rng);
    if (HasFatalFailure()) return;
  }
}

TEST_F(Corruption, DamagedMiddleSegmentDeletesTheSegmentsAfterIt) {
  std::mt19937_64 rng(seed_);
  for (const Pristine* p : {closed_.get(), crashed_.get()}) {
    const size_t segment = 2;
    const PristineSegment& s = p->segments[segment];
    auto image = s.bytes;
    image[s.batches[s.batches.size() / 2].position + record::kRecordsPos] ^= 0x01;
    const Expected e = expect_log(*p, segment, image);
    ASSERT_EQ(e.segments_deleted, p->segments.size() - segment - 1);
    run_log_damage(*p, segment, image, rng);
    if (HasFatalFailure()) return;
  }
}

TEST_F(Corruption, MiddleSegmentTruncatedToNothing) {
  std::mt19937_64 rng(seed_);
  run_log_damage(*closed_, 1, {}, rng);
}

// A segment wholly below the recovery point is trusted, as in Kafka: the damage is not
// looked for, the log end does not move and nothing is deleted.
TEST_F(Corruption, DamageBelowTheRecoveryPointIsNotRecovered) {
  const Pristine& p = *closed_;
  auto dir = copy_of(p);
  const PristineSegment& s = p.segments[1];
  auto image = s.bytes;
  image[s.batches.front().position + record::kRecordsPos] ^= 0x01;
  write_file(log_path(*dir, p, 1), image);
  const Expected pristine = expect_log(p, 1, std::nullopt);
  auto log = open_log(dir->str(), false, pristine.log_end);
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->log_end_offset().value(), pristine.log_end);
  EXPECT_EQ(log->recovery_report().segments_deleted, 0u);
  EXPECT_EQ(log->segment_count(), p.segments.size());
}

}  // namespace
}  // namespace strata::storage::corruption_test

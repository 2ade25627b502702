// Corruption tests, named cases on the batches of the last segment: torn tails, CRC
// mismatches, bytes the CRC does not cover (leader epoch, baseOffset), an impossible
// batch length, a duplicate batch and zeros after the end. The oracle, the checks and
// the fixture are in corruption_test_util.h.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "storage/corruption_test_util.h"

namespace strata::storage::corruption_test {
namespace {

TEST_F(Corruption, TruncatedInsideTheLastBatchHeader) {
  std::mt19937_64 rng(seed_);
  const PristineSegment& s = crashed_->segments.back();
  auto image = s.bytes;
  image.resize(s.batches.back().position + 30);
  run_log_damage(*crashed_, crashed_->segments.size() - 1, image, rng);
}

TEST_F(Corruption, TruncatedInsideRecords) {
  std::mt19937_64 rng(seed_);
  const PristineSegment& s = closed_->segments.back();
  auto image = s.bytes;
  const PristineBatch& b = s.batches[s.batches.size() / 2];
  image.resize(b.position + b.size - 1);
  run_log_damage(*closed_, closed_->segments.size() - 1, image, rng);
}

TEST_F(Corruption, ChecksumMismatchInTheFirstBatchEmptiesTheSegment) {
  std::mt19937_64 rng(seed_);
  const PristineSegment& s = crashed_->segments.back();
  auto image = s.bytes;
  image[record::kRecordsPos + 2] ^= 0x10;
  run_log_damage(*crashed_, crashed_->segments.size() - 1, image, rng);
}

TEST_F(Corruption, FlippedCrcField) {
  std::mt19937_64 rng(seed_);
  const PristineSegment& s = closed_->segments.back();
  auto image = s.bytes;
  image[s.batches[1].position + record::kCrcPos + 3] ^= 0x01;
  run_log_damage(*closed_, closed_->segments.size() - 1, image, rng);
}

TEST_F(Corruption, FlippedLeaderEpochIsNotCorruption) {
  std::mt19937_64 rng(seed_);
  const PristineSegment& s = crashed_->segments.back();
  auto image = s.bytes;
  image[s.batches[1].position + record::kPartitionLeaderEpochPos + 3] ^= 0x40;
  const Expected e = expect_log(*crashed_, crashed_->segments.size() - 1, image);
  EXPECT_EQ(e.segments_deleted, 0u);
  EXPECT_EQ(e.files.back().size(), s.bytes.size());  // the oracle keeps everything
  run_log_damage(*crashed_, crashed_->segments.size() - 1, image, rng);
}

TEST_F(Corruption, BatchLengthPastTheEndIsATornTail) {
  std::mt19937_64 rng(seed_);
  const PristineSegment& s = crashed_->segments.back();
  auto image = s.bytes;
  store_be32(&image[s.batches.back().position + record::kBatchLengthPos], 0x00100000);
  run_log_damage(*crashed_, crashed_->segments.size() - 1, image, rng);
}

TEST_F(Corruption, DuplicateOfAnEarlierBatchAfterTheEndIsCut) {
  std::mt19937_64 rng(seed_);
  const PristineSegment& s = crashed_->segments.back();
  auto image = s.bytes;
  const PristineBatch& b = s.batches.front();  // valid CRC, offsets going backwards
  image.insert(image.end(), s.bytes.begin() + long(b.position),
               s.bytes.begin() + long(b.position + b.size));
  run_log_damage(*crashed_, crashed_->segments.size() - 1, image, rng);
}

TEST_F(Corruption, ZerosAfterTheEndAreCut) {
  // What a filesystem can leave when the size was updated but the data never written.
  std::mt19937_64 rng(seed_);
  auto image = closed_->segments.back().bytes;
  image.resize(image.size() + 4096, 0);
  run_log_damage(*closed_, closed_->segments.size() - 1, image, rng);
}

TEST_F(Corruption, LoweredBaseOffsetCutsTheSegment) {
  std::mt19937_64 rng(seed_);
  const PristineSegment& s = closed_->segments.back();
  auto image = s.bytes;
  const PristineBatch& b = s.batches[2];
  store_be64(&image[b.position], uint64_t(b.base - 1));
  run_log_damage(*closed_, closed_->segments.size() - 1, image, rng);
}

TEST_F(Corruption, RaisedBaseOffsetOfTheLastBatchLeavesAGap) {
  std::mt19937_64 rng(seed_);
  const PristineSegment& s = closed_->segments.back();
  auto image = s.bytes;
  const PristineBatch& b = s.batches.back();
  store_be64(&image[b.position], uint64_t(b.base + 1000));
  const Expected e = expect_log(*closed_, closed_->segments.size() - 1, image);
  EXPECT_TRUE(e.base_changed);
  run_log_damage(*closed_, closed_->segments.size() - 1, image, rng);
}

}  // namespace
}  // namespace strata::storage::corruption_test

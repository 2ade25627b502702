// The time index against Kafka's TimeIndex behaviour: maybeAppend's skips and errors,
// the slot kept for the roll, lookups, truncation, sanity checks and the exact bytes.
#include "storage/time_index.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

namespace strata::storage {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxBytes = 12 * 5;  // 5 slots, 4 usable before the roll

class TimeIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("strata-tidx-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "00000000000000000100.timeindex").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  TimeIndex open(bool writable = true, size_t max_bytes = kMaxBytes) {
    auto idx = TimeIndex::open(path_, Offset(100), max_bytes, writable);
    EXPECT_TRUE(idx.ok()) << (idx.ok() ? "" : idx.error().message());
    return std::move(idx.value());
  }
  void write_file(const std::vector<uint8_t>& bytes) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  std::vector<uint8_t> read_file() const {
    std::ifstream in(path_, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  uint64_t file_size() const { return fs::file_size(path_); }

  fs::path dir_;
  std::string path_;
};

void expect_entry(const TimestampOffset& got, int64_t timestamp, int64_t offset) {
  EXPECT_EQ(got.timestamp, timestamp);
  EXPECT_EQ(got.offset.value(), offset);
}

TEST_F(TimeIndexTest, SkipsNonIncreasingTimestamps) {
  TimeIndex idx = open();
  expect_entry(idx.last_entry(), -1, 100);
  ASSERT_TRUE(idx.maybe_append(-1, Offset(100)).ok());  // NO_TIMESTAMP is never indexed
  EXPECT_EQ(idx.entries(), 0u);
  ASSERT_TRUE(idx.maybe_append(1000, Offset(105)).ok());
  ASSERT_TRUE(idx.maybe_append(1000, Offset(110)).ok());  // same timestamp: skipped
  ASSERT_TRUE(idx.maybe_append(1000, Offset(105)).ok());  // the same entry again: skipped
  EXPECT_EQ(idx.entries(), 1u);
  auto lower = idx.maybe_append(999, Offset(120));  // Kafka: IllegalStateException
  ASSERT_FALSE(lower.ok());
  EXPECT_EQ(lower.error().code, StorageErrc::kIndexOrder);
  EXPECT_EQ(lower.error().detail,
            "Attempt to append a timestamp (999) to slot 1 no larger than the last timestamp "
            "appended (1000) to " +
                fs::absolute(path_).string());
  ASSERT_TRUE(idx.maybe_append(1001, Offset(120)).ok());
  EXPECT_EQ(idx.entries(), 2u);
  expect_entry(idx.last_entry(), 1001, 120);
}

TEST_F(TimeIndexTest, OffsetBelowLastRejected) {
  TimeIndex idx = open();
  ASSERT_TRUE(idx.maybe_append(1000, Offset(110)).ok());
  auto r = idx.maybe_append(2000, Offset(109));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kIndexOrder);
  EXPECT_EQ(r.error().detail,
            "Attempt to append an offset (109) to slot 1 no larger than the last offset appended "
            "(110) to " +
                fs::absolute(path_).string());
  ASSERT_TRUE(idx.maybe_append(2000, Offset(110)).ok());  // an equal offset is allowed
  EXPECT_EQ(idx.entries(), 2u);
  EXPECT_EQ(idx.maybe_append(3000, Offset(99)).error().code, StorageErrc::kIndexOrder);
}

TEST_F(TimeIndexTest, RelativeOffsetOverflow) {
  TimeIndex idx = open();
  auto r = idx.maybe_append(5, Offset(99));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kOffsetOverflow);
  EXPECT_EQ(idx.maybe_append(5, Offset(100 + int64_t(INT32_MAX) + 1)).error().code,
            StorageErrc::kOffsetOverflow);
  EXPECT_TRUE(idx.maybe_append(5, Offset(100 + int64_t(INT32_MAX))).ok());
}

TEST_F(TimeIndexTest, SkipFullCheck) {
  TimeIndex idx = open();
  for (int i = 0; i < 4; ++i) {
    EXPECT_FALSE(idx.full());
    ASSERT_TRUE(idx.maybe_append(1000 + i, Offset(100 + i)).ok());
  }
  EXPECT_TRUE(idx.full());  // one slot of five is kept for the roll
  auto r = idx.maybe_append(2000, Offset(200));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kIndexFull);
  EXPECT_EQ(r.error().detail, "Attempt to append to a full time index (size = 4).");
  ASSERT_TRUE(idx.maybe_append(2000, Offset(200), true).ok());  // the roll's entry
  EXPECT_EQ(idx.entries(), 5u);
  ASSERT_TRUE(idx.maybe_append(2000, Offset(200), true).ok());  // re-offered: skipped
  // No slot is left at all now: even the roll path cannot append.
  EXPECT_EQ(idx.maybe_append(3000, Offset(300), true).error().code, StorageErrc::kIndexFull);
  EXPECT_EQ(idx.entries(), 5u);
  ASSERT_TRUE(idx.trim().ok());
  EXPECT_EQ(file_size(), 60u);
}

TEST_F(TimeIndexTest, Lookup) {
  TimeIndex idx = open();
  expect_entry(idx.lookup(5000), -1, 100);  // empty: (NO_TIMESTAMP, base)
  ASSERT_TRUE(idx.maybe_append(1000, Offset(103)).ok());
  ASSERT_TRUE(idx.maybe_append(2000, Offset(110)).ok());
  ASSERT_TRUE(idx.maybe_append(3000, Offset(110)).ok());
  ASSERT_TRUE(idx.maybe_append(4000, Offset(130)).ok());
  expect_entry(idx.entry(2), 3000, 110);
  expect_entry(idx.lookup(INT64_MIN), -1, 100);
  expect_entry(idx.lookup(999), -1, 100);
  expect_entry(idx.lookup(1000), 1000, 103);
  expect_entry(idx.lookup(1999), 1000, 103);
  expect_entry(idx.lookup(2000), 2000, 110);
  expect_entry(idx.lookup(2500), 2000, 110);
  expect_entry(idx.lookup(3000), 3000, 110);
  expect_entry(idx.lookup(4000), 4000, 130);
  expect_entry(idx.lookup(INT64_MAX), 4000, 130);
}

TEST_F(TimeIndexTest, LookupAcrossTheWarmSection) {
  TimeIndex idx = open(true, 2000 * 12);
  for (int i = 0; i < 1999; ++i) ASSERT_TRUE(idx.maybe_append(10 * i, Offset(100 + i)).ok());
  for (int i = 0; i < 1999; ++i) {
    expect_entry(idx.lookup(10 * i), 10 * i, 100 + i);
    expect_entry(idx.lookup(10 * i + 9), 10 * i, 100 + i);
  }
}

TEST_F(TimeIndexTest, TruncateTo) {
  TimeIndex idx = open();
  ASSERT_TRUE(idx.maybe_append(1000, Offset(110)).ok());
  ASSERT_TRUE(idx.maybe_append(2000, Offset(120)).ok());
  ASSERT_TRUE(idx.maybe_append(3000, Offset(130)).ok());
  idx.truncate_to(Offset(131));
  EXPECT_EQ(idx.entries(), 3u);
  idx.truncate_to(Offset(125));
  EXPECT_EQ(idx.entries(), 2u);
  expect_entry(idx.last_entry(), 2000, 120);
  idx.truncate_to(Offset(120));
  EXPECT_EQ(idx.entries(), 1u);
  ASSERT_TRUE(idx.maybe_append(1500, Offset(115)).ok());  // the new last entry rules
  idx.truncate_to(Offset(100));
  EXPECT_EQ(idx.entries(), 0u);
  expect_entry(idx.last_entry(), -1, 100);
  ASSERT_TRUE(idx.maybe_append(5, Offset(101)).ok());
  idx.clear();
  EXPECT_EQ(idx.entries(), 0u);
}

TEST_F(TimeIndexTest, PreallocatedThenTrimmedAndReopened) {
  {
    TimeIndex idx = open(true, 65);  // rounded down to 60
    EXPECT_EQ(file_size(), 60u);
    ASSERT_TRUE(idx.maybe_append(1000, Offset(101)).ok());
    ASSERT_TRUE(idx.maybe_append(2000, Offset(102)).ok());
    ASSERT_TRUE(idx.trim().ok());
    EXPECT_EQ(file_size(), 24u);
    expect_entry(idx.lookup(1500), 1000, 101);  // readable after the remap
  }
  TimeIndex ro = open(false);
  EXPECT_EQ(ro.entries(), 2u);
  EXPECT_TRUE(ro.sanity_check().ok());
  expect_entry(ro.last_entry(), 2000, 102);
  TimeIndex rw = open(true);
  EXPECT_EQ(file_size(), 60u);
  ASSERT_TRUE(rw.maybe_append(3000, Offset(103)).ok());
}

// A crashed preallocated file reopens with every slot counted; its zero tail fails
// Kafka's timestamp check, which is how recovery learns to rebuild it.
TEST_F(TimeIndexTest, ReopenPreallocatedFileFailsSanityCheck) {
  {
    TimeIndex idx = open();
    ASSERT_TRUE(idx.maybe_append(1000, Offset(101)).ok());
  }
  TimeIndex again = open();
  EXPECT_EQ(again.entries(), 5u);
  auto r = again.sanity_check();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kCorruptIndex);
  EXPECT_EQ(r.error().detail, "Corrupt time index found, time index file (" +
                                  fs::absolute(path_).string() +
                                  ") has non-zero size but the last timestamp is 0 which is "
                                  "less than the first timestamp 1000");
}

TEST_F(TimeIndexTest, SanityCheckCatchesBadLastOffset) {
  // (5, rel 0) then (6, rel -1): the last offset 99 is below the base.
  write_file({0, 0, 0, 0, 0, 0, 0, 5, 0,    0,    0,    0,  //
              0, 0, 0, 0, 0, 0, 0, 6, 0xff, 0xff, 0xff, 0xff});
  TimeIndex idx = open(false);
  auto r = idx.sanity_check();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().detail, "Corrupt time index found, time index file (" +
                                  fs::absolute(path_).string() +
                                  ") has non-zero size but the last offset is 99 which is less "
                                  "than the first offset 100");
}

TEST_F(TimeIndexTest, SanityCheckCatchesBadLength) {
  write_file({0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0});  // 14 bytes
  TimeIndex idx = open(false);
  EXPECT_EQ(idx.entries(), 1u);
  auto r = idx.sanity_check();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().detail, "Time index file " + fs::absolute(path_).string() +
                                  " is corrupt, found 14 bytes which is neither positive nor a "
                                  "multiple of 12.");
}

TEST_F(TimeIndexTest, EmptyFile) {
  write_file({});
  {
    TimeIndex ro = open(false);
    EXPECT_EQ(ro.entries(), 0u);
    EXPECT_TRUE(ro.full());
    expect_entry(ro.lookup(100), -1, 100);
    EXPECT_TRUE(ro.sanity_check().ok());
    EXPECT_TRUE(ro.flush().ok());
    EXPECT_EQ(ro.maybe_append(5, Offset(101), true).error().code, StorageErrc::kIndexFull);
  }
  TimeIndex rw = open(true);
  EXPECT_EQ(file_size(), kMaxBytes);
  ASSERT_TRUE(rw.maybe_append(5, Offset(101)).ok());
}

TEST_F(TimeIndexTest, Rename) {
  TimeIndex idx = open();
  ASSERT_TRUE(idx.maybe_append(1000, Offset(101)).ok());
  const std::string renamed = path_ + ".deleted";
  ASSERT_TRUE(idx.rename(renamed).ok());
  EXPECT_EQ(idx.path(), renamed);
  EXPECT_FALSE(fs::exists(path_));
  ASSERT_TRUE(idx.maybe_append(2000, Offset(102)).ok());
  ASSERT_TRUE(idx.trim().ok());
  EXPECT_EQ(fs::file_size(renamed), 24u);
  expect_entry(idx.lookup(2500), 2000, 102);
}

// The bytes Kafka's tools read: timestamp int64 BE, relativeOffset int32 BE.
TEST_F(TimeIndexTest, ByteLayoutIsKafkas) {
  TimeIndex idx = open();
  ASSERT_TRUE(idx.maybe_append(0x0102030405060708, Offset(100)).ok());
  ASSERT_TRUE(idx.maybe_append(0x7fffffffffffffff, Offset(100 + 0x0a0b0c0d)).ok());
  ASSERT_TRUE(idx.trim().ok());
  const std::vector<uint8_t> expected = {
      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x00, 0x00, 0x00,  //
      0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0a, 0x0b, 0x0c, 0x0d,
  };
  EXPECT_EQ(read_file(), expected);
}

}  // namespace
}  // namespace strata::storage

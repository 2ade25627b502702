// The offset index against Kafka's OffsetIndex behaviour: lookups at every boundary,
// preallocation and trim, reopen rules, append errors, truncation, sanity checks, and the
// exact bytes Kafka's tools read.
#include "storage/offset_index.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

namespace strata::storage {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxBytes = 80;  // 10 entries

class OffsetIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("strata-oidx-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "00000000000000000100.index").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  OffsetIndex open(bool writable = true, size_t max_bytes = kMaxBytes) {
    auto idx = OffsetIndex::open(path_, Offset(100), max_bytes, writable);
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

void expect_entry(const OffsetPosition& got, int64_t offset, uint32_t position) {
  EXPECT_EQ(got.offset.value(), offset);
  EXPECT_EQ(got.position, position);
}

TEST_F(OffsetIndexTest, AppendAndLookupEveryBoundary) {
  OffsetIndex idx = open();
  ASSERT_TRUE(idx.append(Offset(103), 0).ok());
  ASSERT_TRUE(idx.append(Offset(110), 500).ok());
  ASSERT_TRUE(idx.append(Offset(120), 1000).ok());
  EXPECT_EQ(idx.entries(), 3u);
  expect_entry(idx.last_entry(), 120, 1000);
  expect_entry(idx.entry(0), 103, 0);
  expect_entry(idx.entry(1), 110, 500);

  expect_entry(idx.lookup(Offset(0)), 100, 0);    // far below: (base, 0)
  expect_entry(idx.lookup(Offset(102)), 100, 0);  // just below the first entry
  expect_entry(idx.lookup(Offset(103)), 103, 0);
  expect_entry(idx.lookup(Offset(109)), 103, 0);
  expect_entry(idx.lookup(Offset(110)), 110, 500);
  expect_entry(idx.lookup(Offset(119)), 110, 500);
  expect_entry(idx.lookup(Offset(120)), 120, 1000);
  expect_entry(idx.lookup(Offset(121)), 120, 1000);
  expect_entry(idx.lookup(Offset(INT64_MAX)), 120, 1000);
}

TEST_F(OffsetIndexTest, LookupAcrossTheWarmSection) {
  // 8192 bytes of entries are "warm"; more entries make lookups take both branches.
  OffsetIndex idx = open(true, 3000 * 8);
  for (int i = 0; i < 3000; ++i)
    ASSERT_TRUE(idx.append(Offset(100 + 2 * i), uint32_t(10 * i)).ok());
  for (int i = 0; i < 3000; ++i) {
    expect_entry(idx.lookup(Offset(100 + 2 * i)), 100 + 2 * i, uint32_t(10 * i));
    expect_entry(idx.lookup(Offset(101 + 2 * i)), 100 + 2 * i, uint32_t(10 * i));
  }
  expect_entry(idx.lookup(Offset(99)), 100, 0);
  EXPECT_TRUE(idx.full());
}

TEST_F(OffsetIndexTest, EmptyIndexLookup) {
  OffsetIndex idx = open();
  EXPECT_EQ(idx.entries(), 0u);
  expect_entry(idx.lookup(Offset(500)), 100, 0);
  expect_entry(idx.last_entry(), 100, 0);
}

TEST_F(OffsetIndexTest, PreallocatedThenTrimmed) {
  OffsetIndex idx = open(true, 85);  // rounded down to 80
  EXPECT_EQ(file_size(), 80u);
  ASSERT_TRUE(idx.append(Offset(100), 0).ok());
  ASSERT_TRUE(idx.append(Offset(105), 64).ok());
  EXPECT_EQ(file_size(), 80u);
  ASSERT_TRUE(idx.trim().ok());
  EXPECT_EQ(file_size(), 2u * 8);
  // Still readable after the remap.
  expect_entry(idx.lookup(Offset(107)), 105, 64);
  EXPECT_TRUE(idx.full());
  EXPECT_EQ(idx.append(Offset(110), 128).error().code, StorageErrc::kIndexFull);
  ASSERT_TRUE(idx.trim().ok());  // already trimmed: no-op
  EXPECT_EQ(file_size(), 16u);
}

TEST_F(OffsetIndexTest, TrimEmptyIndexLeavesEmptyFile) {
  OffsetIndex idx = open();
  ASSERT_TRUE(idx.trim().ok());
  EXPECT_EQ(file_size(), 0u);
  expect_entry(idx.lookup(Offset(150)), 100, 0);
  ASSERT_TRUE(idx.flush().ok());
  EXPECT_TRUE(idx.sanity_check().ok());
}

TEST_F(OffsetIndexTest, ReopenExistingTrimmedFile) {
  {
    OffsetIndex idx = open();
    ASSERT_TRUE(idx.append(Offset(101), 10).ok());
    ASSERT_TRUE(idx.append(Offset(102), 20).ok());
    ASSERT_TRUE(idx.trim().ok());
  }
  {
    OffsetIndex ro = open(false);
    EXPECT_EQ(ro.entries(), 2u);
    EXPECT_EQ(file_size(), 16u);  // read-only open never resizes
    EXPECT_TRUE(ro.full());
    expect_entry(ro.lookup(Offset(150)), 102, 20);
    EXPECT_TRUE(ro.sanity_check().ok());
  }
  OffsetIndex rw = open(true);  // the active segment: resized for appends
  EXPECT_EQ(rw.entries(), 2u);
  EXPECT_EQ(file_size(), kMaxBytes);
  EXPECT_FALSE(rw.full());
  ASSERT_TRUE(rw.append(Offset(103), 30).ok());
  expect_entry(rw.lookup(Offset(150)), 103, 30);
}

// Kafka's rule: an existing file's entries are all its whole slots, so a preallocated
// file left by a crash reopens full of zero entries (recovery then rebuilds it).
TEST_F(OffsetIndexTest, ReopenPreallocatedFileCountsAllSlots) {
  {
    OffsetIndex idx = open();
    ASSERT_TRUE(idx.append(Offset(101), 10).ok());
  }  // no trim: a crash
  OffsetIndex again = open();
  EXPECT_EQ(again.entries(), kMaxBytes / 8);
  EXPECT_TRUE(again.full());
  expect_entry(again.last_entry(), 100, 0);  // a zero slot
  EXPECT_TRUE(again.sanity_check().ok());    // and Kafka's check passes it, too
}

TEST_F(OffsetIndexTest, AppendOutOfOrderRejected) {
  OffsetIndex idx = open();
  ASSERT_TRUE(idx.append(Offset(105), 100).ok());
  auto same = idx.append(Offset(105), 200);
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.error().code, StorageErrc::kIndexOrder);
  EXPECT_EQ(same.error().detail,
            "Attempt to append an offset 105 to position 1 no larger than the last offset "
            "appended (105) to " +
                fs::absolute(path_).string());
  EXPECT_EQ(idx.append(Offset(104), 200).error().code, StorageErrc::kIndexOrder);
  EXPECT_EQ(idx.append(Offset(106), 99).error().code, StorageErrc::kIndexOrder);  // position
  EXPECT_EQ(idx.entries(), 1u);
  EXPECT_TRUE(idx.append(Offset(106), 100).ok());  // an equal position is fine
}

TEST_F(OffsetIndexTest, RelativeOffsetOverflow) {
  OffsetIndex idx = open();
  auto below = idx.append(Offset(99), 0);
  ASSERT_FALSE(below.ok());
  EXPECT_EQ(below.error().code, StorageErrc::kOffsetOverflow);
  EXPECT_EQ(below.error().detail,
            "Integer overflow for offset: 99 (" + fs::absolute(path_).string() + ")");
  const int64_t too_far = 100 + int64_t(INT32_MAX) + 1;
  EXPECT_EQ(idx.append(Offset(too_far), 0).error().code, StorageErrc::kOffsetOverflow);
  ASSERT_TRUE(idx.append(Offset(too_far - 1), 0).ok());
  expect_entry(idx.lookup(Offset(INT64_MAX)), too_far - 1, 0);
  EXPECT_EQ(idx.append(Offset(too_far + 5), 1u << 31).error().code, StorageErrc::kOffsetOverflow);
}

TEST_F(OffsetIndexTest, FullIndex) {
  OffsetIndex idx = open();
  for (int i = 0; i < 10; ++i) {
    EXPECT_FALSE(idx.full());
    ASSERT_TRUE(idx.append(Offset(100 + i), uint32_t(i)).ok());
  }
  EXPECT_TRUE(idx.full());
  auto r = idx.append(Offset(200), 100);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kIndexFull);
  EXPECT_EQ(r.error().detail, "Attempt to append to a full index (size = 10).");
}

TEST_F(OffsetIndexTest, InvalidMaxIndexSize) {
  auto idx = OffsetIndex::open(path_, Offset(100), 7, true);
  ASSERT_FALSE(idx.ok());
  EXPECT_EQ(idx.error().code, StorageErrc::kIo);
  EXPECT_EQ(idx.error().sys_errno, EINVAL);
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(OffsetIndexTest, TruncateTo) {
  OffsetIndex idx = open();
  for (int64_t o : {110, 120, 130, 140}) ASSERT_TRUE(idx.append(Offset(o), uint32_t(o)).ok());
  idx.truncate_to(Offset(150));  // above the last: no effect
  EXPECT_EQ(idx.entries(), 4u);
  idx.truncate_to(Offset(135));  // between: keeps entries below
  EXPECT_EQ(idx.entries(), 3u);
  expect_entry(idx.last_entry(), 130, 130);
  idx.truncate_to(Offset(120));  // exact: drops it
  EXPECT_EQ(idx.entries(), 1u);
  expect_entry(idx.last_entry(), 110, 110);
  ASSERT_TRUE(idx.append(Offset(115), 115).ok());  // appends go on after the cut
  expect_entry(idx.lookup(Offset(119)), 115, 115);
  idx.truncate_to(Offset(105));  // below the first: everything
  EXPECT_EQ(idx.entries(), 0u);
  expect_entry(idx.last_entry(), 100, 0);
  ASSERT_TRUE(idx.append(Offset(101), 0).ok());
  idx.clear();
  EXPECT_EQ(idx.entries(), 0u);
}

TEST_F(OffsetIndexTest, SanityCheckCatchesBadLength) {
  write_file({0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0});  // 13 bytes: 1 whole entry
  for (bool writable : {false, true}) {
    OffsetIndex idx = open(writable);
    EXPECT_EQ(idx.entries(), 1u);
    expect_entry(idx.last_entry(), 101, 0);
    auto r = idx.sanity_check();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, StorageErrc::kCorruptIndex);
    EXPECT_EQ(r.error().detail, "Index file " + fs::absolute(path_).string() +
                                    " is corrupt, found 13 bytes which is neither positive nor "
                                    "a multiple of 8.");
    if (writable) {
      ASSERT_TRUE(idx.trim().ok());  // a trim sets a valid length
      EXPECT_TRUE(idx.sanity_check().ok());
    }
  }
}

TEST_F(OffsetIndexTest, SanityCheckCatchesBadLastOffset) {
  // Relative offsets 5 then -3: the last offset (97) is below the base (100).
  write_file({0, 0, 0, 5, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfd, 0, 0, 0, 9});
  OffsetIndex idx = open(false);
  EXPECT_EQ(idx.entries(), 2u);
  auto r = idx.sanity_check();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kCorruptIndex);
  EXPECT_EQ(r.error().detail, "Corrupt index found, index file (" + fs::absolute(path_).string() +
                                  ") has non-zero size but the last offset is 97 which is less "
                                  "than the base offset 100.");
  // Lookups on garbage answer without crashing.
  (void)idx.lookup(Offset(98));
  (void)idx.lookup(Offset(200));
}

TEST_F(OffsetIndexTest, GarbageFileNeverCrashes) {
  std::vector<uint8_t> junk(8 * 37 + 5);
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = uint8_t(i * 151 + 7);
  write_file(junk);
  OffsetIndex idx = open(false);
  EXPECT_EQ(idx.entries(), 37u);
  for (int64_t t = -5; t < 400; t += 3) (void)idx.lookup(Offset(t));
  idx.truncate_to(Offset(150));
  EXPECT_FALSE(idx.sanity_check().ok());
  EXPECT_EQ(idx.append(Offset(1000), 0).error().code, StorageErrc::kIndexFull);  // read-only
}

TEST_F(OffsetIndexTest, Rename) {
  OffsetIndex idx = open();
  ASSERT_TRUE(idx.append(Offset(101), 7).ok());
  const std::string renamed = path_ + ".deleted";
  ASSERT_TRUE(idx.rename(renamed).ok());
  EXPECT_EQ(idx.path(), renamed);
  EXPECT_FALSE(fs::exists(path_));
  EXPECT_TRUE(fs::exists(renamed));
  ASSERT_TRUE(idx.append(Offset(102), 9).ok());  // the mapping stays valid
  expect_entry(idx.lookup(Offset(103)), 102, 9);
  ASSERT_TRUE(idx.trim().ok());  // and resizing uses the new name
  EXPECT_EQ(fs::file_size(renamed), 16u);
  auto bad = idx.rename((dir_ / "missing-dir" / "x.index").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, StorageErrc::kIo);
  EXPECT_EQ(idx.path(), renamed);
}

TEST_F(OffsetIndexTest, EmptyFile) {
  write_file({});
  {
    OffsetIndex ro = open(false);  // no mapping of 0 bytes
    EXPECT_EQ(ro.entries(), 0u);
    EXPECT_TRUE(ro.full());
    expect_entry(ro.lookup(Offset(105)), 100, 0);
    EXPECT_TRUE(ro.sanity_check().ok());
    EXPECT_TRUE(ro.flush().ok());
    EXPECT_TRUE(ro.trim().ok());
    EXPECT_EQ(ro.append(Offset(101), 0).error().code, StorageErrc::kIndexFull);
  }
  OffsetIndex rw = open(true);
  EXPECT_EQ(rw.entries(), 0u);
  EXPECT_EQ(file_size(), kMaxBytes);
  ASSERT_TRUE(rw.append(Offset(101), 0).ok());
}

TEST_F(OffsetIndexTest, ReadOnlyOpenOfMissingFileFails) {
  auto idx = OffsetIndex::open(path_, Offset(100), kMaxBytes, false);
  ASSERT_FALSE(idx.ok());
  EXPECT_EQ(idx.error().code, StorageErrc::kIo);
  EXPECT_EQ(idx.error().sys_errno, ENOENT);
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(OffsetIndexTest, MoveKeepsTheMapping) {
  OffsetIndex a = open();
  ASSERT_TRUE(a.append(Offset(101), 7).ok());
  OffsetIndex b = std::move(a);
  expect_entry(b.lookup(Offset(101)), 101, 7);
  OffsetIndex c = open(false);
  c = std::move(b);
  ASSERT_TRUE(c.append(Offset(102), 8).ok());
  ASSERT_TRUE(c.flush().ok());
  expect_entry(c.last_entry(), 102, 8);
}

// The bytes Kafka's tools read: relativeOffset int32 BE, position int32 BE, nothing else.
TEST_F(OffsetIndexTest, ByteLayoutIsKafkas) {
  OffsetIndex idx = open();
  ASSERT_TRUE(idx.append(Offset(100), 0).ok());
  ASSERT_TRUE(idx.append(Offset(100 + 0x01020304), 0x0a0b0c0d).ok());
  ASSERT_TRUE(idx.append(Offset(100 + int64_t(INT32_MAX)), 0x7fffffff).ok());
  ASSERT_TRUE(idx.flush().ok());
  ASSERT_TRUE(idx.trim().ok());
  const std::vector<uint8_t> expected = {
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  //
      0x01, 0x02, 0x03, 0x04, 0x0a, 0x0b, 0x0c, 0x0d,  //
      0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff,
  };
  EXPECT_EQ(read_file(), expected);
}

}  // namespace
}  // namespace strata::storage

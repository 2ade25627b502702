// Indexes on a full file system: an index is a sparse file written through a mapping, so
// a page the file system cannot back would be a SIGBUS on the first write to it. Appends
// must fail with an error instead, and work again once space is freed. The test mounts
// its own small tmpfs (the fault runs' disk-full nemesis does the same), so it needs root;
// elsewhere it is skipped with the reason.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "storage/offset_index.h"
#include "storage/time_index.h"

namespace strata::storage {
namespace {

namespace fs = std::filesystem;

constexpr size_t kIndexBytes = 1 << 20;  // far more than the file system holds

class IndexDiskFullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-idx-full-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=256k") != 0) {
      const std::string why = std::strerror(errno);
      fs::remove_all(dir_);
      GTEST_SKIP() << "cannot mount a tmpfs here (" << why << "): needs root";
    }
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    fs::remove_all(dir_);
  }

  // Writes zeros into a filler file until the file system says ENOSPC.
  void fill() {
    std::ofstream out(dir_ / "filler", std::ios::binary);
    const std::vector<char> block(4096, 0);
    while (out.write(block.data(), std::streamsize(block.size())) && out.flush()) {
    }
  }
  void unfill() { fs::remove(dir_ / "filler"); }

  fs::path dir_;
  bool mounted_ = false;
};

// Appends entries at offsets 0, 10, 20, ... through `append` until one is refused, which
// must be with ENOSPC, and within enough entries to cross every page the index could
// have prefaulted before the fill. Returns the offset of the refused entry, or -1.
template <class Append>
int64_t append_until_refused(Append append) {
  int64_t offset = 0;
  for (int i = 0; i < 40000; ++i, offset += 10) {
    auto r = append(offset);
    if (!r) {
      EXPECT_EQ(r.error().sys_errno, ENOSPC) << r.error().message();
      return offset;
    }
  }
  return -1;
}

TEST_F(IndexDiskFullTest, OffsetIndexAppendFailsInsteadOfCrashing) {
  auto idx = OffsetIndex::open((dir_ / "00000000000000000000.index").string(), Offset(0),
                               kIndexBytes, true);
  ASSERT_TRUE(idx.ok()) << idx.error().message();
  fill();
  const int64_t offset =
      append_until_refused([&](int64_t o) { return idx->append(Offset(o), uint32_t(o * 100)); });
  ASSERT_GE(offset, 0) << "a full tmpfs took every index entry";
  const size_t kept = idx->entries();
  unfill();
  ASSERT_TRUE(idx->append(Offset(offset), uint32_t(offset * 100)).ok());
  EXPECT_EQ(idx->entries(), kept + 1);
}

TEST_F(IndexDiskFullTest, TimeIndexAppendFailsInsteadOfCrashing) {
  auto idx = TimeIndex::open((dir_ / "00000000000000000000.timeindex").string(), Offset(0),
                             kIndexBytes, true);
  ASSERT_TRUE(idx.ok()) << idx.error().message();
  fill();
  const int64_t offset =
      append_until_refused([&](int64_t o) { return idx->maybe_append(1000 + o, Offset(o)); });
  ASSERT_GE(offset, 0) << "a full tmpfs took every time index entry";
  unfill();
  EXPECT_TRUE(idx->maybe_append(1000 + offset, Offset(offset)).ok());
}

}  // namespace
}  // namespace strata::storage

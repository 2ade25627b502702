#include "storage/errors.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

namespace strata::storage {
namespace {

std::string reported;
void record(const StorageError& e) { reported = e.message(); }

// The disk failure channel: io_error reports the disk's own failures to the handler (a
// broker halts there), and nothing else.
TEST(DiskFailureChannel, ReportsTheDisksOwnFailuresOnly) {
  set_disk_failure_handler(record);
  for (int err : {EIO, EROFS, ENOSPC, EDQUOT}) {
    reported.clear();
    errno = err;
    StorageError e = io_error("pwrite /data/queue-0/00000000000000000000.log");
    EXPECT_EQ(e.sys_errno, err);
    EXPECT_EQ(reported, e.message()) << err;
  }
  for (int err : {ENOENT, EEXIST, EINVAL, EMFILE}) {
    reported.clear();
    errno = err;
    io_error("open /data/x");
    EXPECT_TRUE(reported.empty()) << err;
  }
  set_disk_failure_handler(nullptr);
  errno = EIO;
  reported.clear();
  io_error("fdatasync /data/x");
  EXPECT_TRUE(reported.empty());
}

}  // namespace
}  // namespace strata::storage

#include "storage/errors.h"

#include <atomic>
#include <cerrno>
#include <cstring>

namespace strata::storage {

namespace {
std::atomic<DiskFailureHandler> disk_failure_handler{nullptr};
}  // namespace

void set_disk_failure_handler(DiskFailureHandler handler) { disk_failure_handler.store(handler); }

bool is_disk_failure(int sys_errno) {
  return sys_errno == EIO || sys_errno == EROFS || sys_errno == ENOSPC || sys_errno == EDQUOT;
}

StorageError io_error(std::string what) {
  StorageError e{StorageErrc::kIo, errno, std::move(what)};
  if (is_disk_failure(e.sys_errno)) {
    if (DiskFailureHandler handler = disk_failure_handler.load()) handler(e);
  }
  return e;
}

StorageError storage_error(StorageErrc code, std::string detail) {
  return {code, 0, std::move(detail)};
}

std::string StorageError::message() const {
  if (code == StorageErrc::kIo) return detail + ": " + std::strerror(sys_errno);
  return detail;
}

}  // namespace strata::storage

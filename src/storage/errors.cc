#include "storage/errors.h"

#include <cerrno>
#include <cstring>

namespace strata::storage {

StorageError io_error(std::string what) { return {StorageErrc::kIo, errno, std::move(what)}; }

StorageError storage_error(StorageErrc code, std::string detail) {
  return {code, 0, std::move(detail)};
}

std::string StorageError::message() const {
  if (code == StorageErrc::kIo) return detail + ": " + std::strerror(sys_errno);
  return detail;
}

}  // namespace strata::storage

#include "storage/index_format.h"

#include <cstdio>

namespace strata::storage {

std::string segment_file_name(Offset base, const char* suffix) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%020lld", static_cast<long long>(base.value()));
  return std::string(digits) + suffix;
}

}  // namespace strata::storage

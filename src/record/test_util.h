// Helpers shared by the record tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/bytes.h"

namespace strata::record::testing {

inline std::vector<uint8_t> from_hex(std::string_view hex) {
  std::vector<uint8_t> out;
  auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(uint8_t(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  return out;
}

inline std::string str(Bytes b) { return std::string(as_string_view(b)); }

}  // namespace strata::record::testing

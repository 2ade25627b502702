// Java's String.hashCode over a UTF-8 id, and Kafka's rule for the partition of an
// internal topic that holds a group or a transactional id. Shared by the group and
// transaction coordinators: both must place an id exactly where Kafka would.
#pragma once

#include <cstdint>
#include <string_view>

namespace strata {

// Java's String.hashCode of `utf8`: h = 31*h + unit over its UTF-16 code units, in 32-bit
// two's complement. A code point above U+FFFF counts as its two surrogate units. Ids are
// expected to be valid UTF-8 (Kafka's are Java strings); for other bytes the result is
// fixed but not Java's (a lead byte without its continuation bytes counts as one unit
// of its own value; continuation bytes are not checked).
inline int32_t java_string_hash(std::string_view utf8) {
  uint32_t h = 0;
  auto add = [&h](uint32_t unit) { h = h * 31 + unit; };
  auto cont = [&utf8](size_t i) { return uint32_t(uint8_t(utf8[i])) & 0x3Fu; };
  for (size_t i = 0; i < utf8.size();) {
    const uint8_t c = uint8_t(utf8[i]);
    uint32_t cp = c;
    size_t n = 1;
    if (c >= 0xF0 && i + 3 < utf8.size()) {
      n = 4;
      cp = (c & 0x07u) << 18 | cont(i + 1) << 12 | cont(i + 2) << 6 | cont(i + 3);
    } else if (c >= 0xE0 && i + 2 < utf8.size()) {
      n = 3;
      cp = (c & 0x0Fu) << 12 | cont(i + 1) << 6 | cont(i + 2);
    } else if (c >= 0xC0 && i + 1 < utf8.size()) {
      n = 2;
      cp = (c & 0x1Fu) << 6 | cont(i + 1);
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      add(0xD800 + (cp >> 10));
      add(0xDC00 + (cp & 0x3FF));
    } else {
      add(cp);
    }
    i += n;
  }
  return int32_t(h);
}

// Kafka's Utils.abs(id.hashCode) % partitions (Utils.abs maps INT32_MIN to 0, where
// Java's Math.abs would leave it negative). Requires partitions > 0.
inline int32_t coordinator_partition(std::string_view id, int32_t partitions) {
  const int32_t hash = java_string_hash(id);
  const int32_t abs = hash == INT32_MIN ? 0 : (hash < 0 ? -hash : hash);
  return abs % partitions;
}

}  // namespace strata

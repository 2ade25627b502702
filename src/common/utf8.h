// Well-formed UTF-8, as Java's strict decoder and JSON want it: no overlong forms, no
// surrogates (U+D800-U+DFFF), nothing past U+10FFFF, no sequence cut short.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace strata {

inline bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const uint8_t c = uint8_t(s[i]);
    size_t extra = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      extra = 1, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3, cp = c & 0x07;
    } else {
      return false;  // a continuation byte first, an overlong lead (C0, C1) or past U+10FFFF
    }
    if (s.size() - i - 1 < extra) return false;
    for (size_t k = 1; k <= extra; ++k) {
      const uint8_t d = uint8_t(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    const uint32_t min = extra == 1 ? 0x80 : extra == 2 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

}  // namespace strata

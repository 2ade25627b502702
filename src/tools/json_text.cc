#include "tools/json_text.h"

#include <fmt/format.h>

#include "tools/dump_log_print.h"

namespace strata::tools::json {

std::string quote(std::string_view s) {
  const std::string utf8 = decode_utf8_lossy(as_bytes(s));
  std::string out = "\"";
  for (const char c : utf8) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (uint8_t(c) < 0x20) {
          out += fmt::format("\\u{:04X}", unsigned(uint8_t(c)));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string binary(Bytes b) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 3 <= b.size(); i += 3) {
    const uint32_t n = uint32_t(b[i]) << 16 | uint32_t(b[i + 1]) << 8 | b[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(n >> shift) & 0x3f];
  }
  if (const size_t left = b.size() - i; left > 0) {
    const uint32_t n = uint32_t(b[i]) << 16 | (left == 2 ? uint32_t(b[i + 1]) << 8 : 0);
    out += kAlphabet[(n >> 18) & 0x3f];
    out += kAlphabet[(n >> 12) & 0x3f];
    out += left == 2 ? kAlphabet[(n >> 6) & 0x3f] : '=';
    out += '=';
  }
  return quote(out);
}

Object& Object::raw(const char* name, const std::string& json) {
  text_ += text_.size() > 1 ? ",\"" : "\"";
  text_ += name;
  text_ += "\":";
  text_ += json;
  return *this;
}

}  // namespace strata::tools::json

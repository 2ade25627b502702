#include "security/base64.h"

#include <array>
#include <cstdint>

namespace strata::security {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static_assert(kAlphabet.size() == 64);

constexpr int8_t kInvalid = -1;

constexpr std::array<int8_t, 256> make_decode_table() {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = kInvalid;
  for (size_t i = 0; i < kAlphabet.size(); ++i) t[uint8_t(kAlphabet[i])] = int8_t(i);
  return t;
}
constexpr auto kDecode = make_decode_table();

int8_t sextet(char c) {
  return kDecode[uint8_t(c)];
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t(uint8_t(bytes[i])) << 16) |
                       (uint32_t(uint8_t(bytes[i + 1])) << 8) | uint8_t(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest == 0) return out;
  uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
  if (rest == 2) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
  out += kAlphabet[(v >> 18) & 63];
  out += kAlphabet[(v >> 12) & 63];
  out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
  out += '=';
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++pad;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  for (size_t i = 0; i < text.size() - pad; ++i) {
    const int8_t s = sextet(text[i]);
    if (s == kInvalid) return std::nullopt;  // '=' before the end lands here too
    acc = (acc << 6) | uint32_t(s);
    if (i % 4 == 3) {
      out += char(acc >> 16);
      out += char(acc >> 8);
      out += char(acc);
      acc = 0;
    }
  }
  // The last quantum: 2 sextets (12 bits) carry 1 byte, 3 sextets (18 bits) carry 2.
  if (pad == 2) out += char(acc >> 4);
  if (pad == 1) {
    out += char(acc >> 10);
    out += char(acc >> 2);
  }
  return out;
}

}  // namespace strata::security

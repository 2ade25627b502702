// Integer settings as server.properties gives them: the whole value a number of the
// setting's type, else "<key>: not a number: <value>"; with a lower bound, "<key>: must be
// at least N<why>: <value>". The setting is changed only when the value is good.
#pragma once

#include <charconv>
#include <string>
#include <type_traits>

#include "common/result.h"

namespace strata::broker {

template <class T>
Result<void, std::string> to_int(const std::string& key, const std::string& v, T& out) {
  T x{};
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size()) return fail(key + ": not a number: " + v);
  out = x;
  return {};
}

// `why` (may be empty) says where the bound comes from.
template <class T>
Result<void, std::string> to_at_least(const std::string& key, const std::string& v, T& out,
                                      std::type_identity_t<T> least, const std::string& why = "") {
  T x{};
  if (auto r = to_int(key, v, x); !r) return r;
  if (x < least) return fail(key + ": must be at least " + std::to_string(least) + why + ": " + v);
  out = x;
  return {};
}

template <class T>
Result<void, std::string> to_non_negative(const std::string& key, const std::string& v, T& out) {
  return to_at_least(key, v, out, T(0));
}

}  // namespace strata::broker

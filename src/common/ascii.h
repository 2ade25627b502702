// ASCII text helpers for configuration values, protocol names and command-line words:
// case mapping without a locale (Kafka's toUpperCase(Locale.ROOT) on ASCII names) and
// blank trimming. Bytes outside ASCII are kept as they are.
#pragma once

#include <string>
#include <string_view>

namespace strata {

inline std::string ascii_lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  }
  return s;
}

inline std::string ascii_upper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
  }
  return s;
}

// `s` without leading and trailing spaces, tabs, carriage returns and form feeds.
inline std::string_view trim_blanks(std::string_view s) {
  constexpr std::string_view kBlank = " \t\r\f";
  const size_t begin = s.find_first_not_of(kBlank);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kBlank) - begin + 1);
}
// The same for a string, owned: safe on a temporary (`trim_blanks(line.substr(i))`).
inline std::string trim_blanks(const std::string& s) { return std::string(trim_blanks(std::string_view(s))); }

}  // namespace strata

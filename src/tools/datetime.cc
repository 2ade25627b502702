#include "tools/datetime.h"

namespace strata::tools {

namespace {

// Reads exactly `n` decimal digits at `at`.
std::optional<int> digits(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return std::nullopt;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

bool leap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's
// days_from_civil).
int64_t days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// The zone suffix: "", "Z", or a sign and HH, HHMM or HH:MM. Minutes east of UTC.
std::optional<int> zone_minutes(std::string_view z) {
  if (z.empty() || z == "Z") return 0;
  if (z[0] != '+' && z[0] != '-') return std::nullopt;
  const int sign = z[0] == '-' ? -1 : 1;
  std::optional<int> h = digits(z, 1, 2), m = 0;
  if (z.size() == 5) {
    m = digits(z, 3, 2);
  } else if (z.size() == 6 && z[3] == ':') {
    m = digits(z, 4, 2);
  } else if (z.size() != 3) {
    return std::nullopt;
  }
  if (!h || !m || *h > 23 || *m > 59) return std::nullopt;
  return sign * (*h * 60 + *m);
}

}  // namespace

std::optional<int64_t> parse_kafka_datetime(std::string_view s) {
  // YYYY-MM-DDTHH:mm:SS.sss is 23 characters.
  if (s.size() < 23 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
      s[19] != '.') {
    return std::nullopt;
  }
  const auto year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  const auto hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
  const auto millis = digits(s, 20, 3);
  const auto zone = zone_minutes(s.substr(23));
  if (!year || !month || !day || !hour || !minute || !second || !millis || !zone) {
    return std::nullopt;
  }
  if (*month < 1 || *month > 12 || *day < 1 || *day > days_in_month(*year, *month) || *hour > 23 ||
      *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  const int64_t seconds = days_from_civil(*year, *month, *day) * 86400 + *hour * 3600 +
                          *minute * 60 + *second - int64_t(*zone) * 60;
  return seconds * 1000 + *millis;
}

}  // namespace strata::tools

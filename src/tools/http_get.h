// A blocking HTTP GET (cpp-httplib's client), for reading a broker's metrics endpoint
// (`strata topic --describe --metrics-url`), and a reader of the Prometheus text lines it
// returns. Plain http only; the connection and each read and write within a timeout, and
// the response body within a byte bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace strata::tools {

inline constexpr size_t kHttpResponseBytesMax = 64 << 20;

struct HttpUrl {
  std::string host;  // brackets of an IPv6 literal removed
  uint16_t port = 80;
  std::string path = "/";
};

// "http://HOST[:PORT][/PATH]"; `default_path` when there is no path.
Result<HttpUrl, std::string> parse_http_url(std::string_view url, std::string_view default_path = "/");

struct HttpResponse {
  int status = 0;
  std::string body;
};

// GET url.path from url.host:port; fails on connection errors, timeouts, a response over
// `bytes_max`, and unparsable responses (not on 4xx/5xx: the caller looks at status).
Result<HttpResponse, std::string> http_get(const HttpUrl& url, int timeout_ms,
                                           size_t bytes_max = kHttpResponseBytesMax);

// One sample line of the Prometheus text format: `name{l="v",...} value [timestamp]`.
// nullopt for comments, blank and malformed lines.
struct PrometheusSample {
  std::string name;
  std::map<std::string, std::string> labels;  // unescaped values
  double value = 0;
};
std::optional<PrometheusSample> parse_prometheus_line(std::string_view line);

}  // namespace strata::tools

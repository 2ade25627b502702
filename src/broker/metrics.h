// Strata's metrics: the Prometheus text format (version 0.0.4) served at GET /metrics by
// a minimal HTTP server on `metrics.listener` (Strata's own setting; Kafka has JMX
// instead). Off unless configured. What is exported: docs/metrics.md.
//
// Threads: the server runs on one shard (shard 0) with Asio coroutines, beside that
// shard's Kafka connections. A scrape reads only thread-safe state (LogManager's
// partition list and cleaner_state, Topics); it never hops to other shards.
//
// Limits: one request per connection; the request line and headers must fit
// kHttpRequestBytesMax and the whole exchange kHttpExchangeTimeoutMs; at most
// kHttpConnectionsMax connections at once (more are closed at once).
#pragma once

#include <asio.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "storage/log_manager.h"

namespace strata::broker {

class Broker;

// ---- The exposition format ----------------------------------------------------------

struct MetricSample {
  std::vector<std::pair<std::string, std::string>> labels;  // name, raw value
  double value = 0;
};

struct MetricFamily {
  std::string name;  // counters end in _total
  std::string type;  // "gauge" or "counter"
  std::string help;
  std::vector<MetricSample> samples;
};

// A label value with \, " and newline escaped, as the format requires.
std::string escape_label_value(std::string_view value);
// Integral values below 2^53 print as integers; others in the shortest form that reads
// back exactly; NaN and infinities as NaN, +Inf, -Inf.
std::string format_metric_value(double value);
// HELP and TYPE lines, then one line per sample, for each family in order.
std::string render_prometheus(const std::vector<MetricFamily>& families);

// ---- What is exported -----------------------------------------------------------------

// One compacted partition's cleaner bookkeeping (default state: not yet looked at).
struct CompactedPartition {
  storage::TopicPartition tp;
  storage::CleanerPartitionState state;
};

struct BrokerFigures {
  size_t partitions = 0;                      // partition logs on this broker
  // Partitions this broker leads whose ISR is smaller than their replicas, and those
  // whose ISR is below min.insync.replicas (Kafka's ReplicaManager gauges).
  size_t under_replicated = 0;
  size_t under_min_isr = 0;
  std::vector<CompactedPartition> compacted;  // in partition order
};

// The families of docs/metrics.md from the figures (pure; the unit tests' entry).
std::vector<MetricFamily> broker_metric_families(const BrokerFigures& figures);
// Gathers the figures from a running broker. Any thread.
BrokerFigures collect_broker_figures(Broker& broker);

// ---- HTTP -----------------------------------------------------------------------------

inline constexpr size_t kHttpRequestBytesMax = 8192;
inline constexpr int64_t kHttpExchangeTimeoutMs = 5000;
inline constexpr size_t kHttpConnectionsMax = 32;

struct HttpRequest {
  std::string method;  // "GET", ...
  std::string path;    // the target without its query
};

enum class HttpParseStatus { kIncomplete, kComplete, kBadRequest, kTooLarge };

struct HttpParse {
  HttpParseStatus status = HttpParseStatus::kIncomplete;
  HttpRequest request;  // when kComplete
};

// Parses the bytes received so far: a request line `METHOD SP origin-form SP HTTP/1.x`
// and header lines `name: value`, up to the empty line (CRLF or bare LF). A bad request
// line is reported as soon as that line is complete; more than `bytes_max` bytes without
// the end of the headers is kTooLarge. A body, if any, is ignored.
HttpParse parse_http_request(std::string_view bytes, size_t bytes_max = kHttpRequestBytesMax);

// The whole response to a parsed (or unparsable) request: status line, headers and body.
// GET/HEAD /metrics -> 200 with `metrics()` (HEAD without the body), another path -> 404,
// another method -> 405, kBadRequest -> 400, kTooLarge -> 431. Connection: close.
std::string http_response_for(const HttpParse& parse, const std::function<std::string()>& metrics);

// `metrics.listener`: "http://HOST:PORT", HOST an IP address (empty: all interfaces; [v6]
// allowed; a name fails at listen()).
Result<std::pair<std::string, uint16_t>, std::string> parse_metrics_listener(std::string_view text);

// The endpoint. listen() binds on the given context's thread's behalf; start() spawns the
// accept loop on it. Its coroutines share their state through a shared_ptr, so the
// server may be destroyed before the context is (pending coroutines are then dropped).
class MetricsServer {
 public:
  MetricsServer(asio::io_context& context, std::function<std::string()> metrics);
  ~MetricsServer();

  bool listen(const std::string& host, uint16_t port, std::string& error);
  uint16_t bound_port() const { return port_; }
  void start();
  // Stops accepting (posted to the context).
  void stop();

  struct Shared;

 private:
  asio::io_context& context_;
  std::shared_ptr<Shared> shared_;
  uint16_t port_ = 0;
};

}  // namespace strata::broker

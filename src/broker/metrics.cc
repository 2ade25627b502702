#include "broker/metrics.h"

#include <spdlog/spdlog.h>

#include <array>
#include <charconv>
#include <cmath>
#include <map>

#include "broker/broker.h"

namespace strata::broker {

// ---- The exposition format ----------------------------------------------------------

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// HELP text escapes only \ and newline.
std::string escape_help(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string format_metric_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  constexpr double kExactIntegerMax = 9007199254740992.0;  // 2^53
  if (value == std::trunc(value) && std::fabs(value) < kExactIntegerMax) {
    return std::to_string(int64_t(value));
  }
  std::array<char, 32> buf;
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), value);
  return std::string(buf.data(), r.ptr);
}

std::string render_prometheus(const std::vector<MetricFamily>& families) {
  std::string out;
  for (const MetricFamily& f : families) {
    out += "# HELP " + f.name + " " + escape_help(f.help) + "\n";
    out += "# TYPE " + f.name + " " + f.type + "\n";
    for (const MetricSample& s : f.samples) {
      out += f.name;
      if (!s.labels.empty()) {
        out += '{';
        for (size_t i = 0; i < s.labels.size(); ++i) {
          if (i > 0) out += ',';
          out += s.labels[i].first + "=\"" + escape_label_value(s.labels[i].second) + "\"";
        }
        out += '}';
      }
      out += ' ' + format_metric_value(s.value) + '\n';
    }
  }
  return out;
}

// ---- What is exported -----------------------------------------------------------------

namespace {

MetricFamily family(const char* name, const char* type, const char* help) {
  return MetricFamily{name, type, help, {}};
}

}  // namespace

std::vector<MetricFamily> broker_metric_families(const BrokerFigures& figures) {
  auto partitions = family("strata_partitions", "gauge", "Partition logs on this broker.");
  auto under = family("kafka_server_replicamanager_underreplicatedpartitions", "gauge",
                      "Partitions this broker leads whose ISR is smaller than their replicas.");
  auto under_min = family("kafka_server_replicamanager_underminisrpartitioncount", "gauge",
                          "Partitions this broker leads whose ISR is below min.insync.replicas.");
  auto compacted = family("strata_log_cleaner_compacted_partitions", "gauge",
                          "Partitions whose cleanup.policy includes compact.");
  auto max_ratio = family("strata_log_cleaner_max_dirty_ratio", "gauge",
                          "Highest dirty ratio of the compacted partitions (Kafka's "
                          "max-dirty-percent / 100).");
  auto max_delay = family("strata_log_cleaner_max_compaction_delay_ms", "gauge",
                          "Longest time a partition's cleanable records have waited past "
                          "max.compaction.lag.ms (Kafka's max-compaction-delay-secs, in ms).");
  auto in_progress = family("strata_log_cleaner_cleanings_in_progress", "gauge",
                            "Partitions being cleaned now.");
  auto ratio = family("strata_log_cleaner_dirty_ratio", "gauge",
                      "Cleanable bytes / (clean + cleanable bytes) of the partition, as of the "
                      "last refresh (every second).");
  auto first_dirty = family("strata_log_cleaner_first_dirty_offset", "gauge",
                            "The partition's first offset not yet cleaned (cleaner checkpoint, "
                            "or the log start).");
  auto last_clean = family("strata_log_cleaner_last_clean_timestamp_ms", "gauge",
                           "When the partition's last cleaning finished, ms since the epoch; "
                           "0: never since the broker started.");
  auto cleanings = family("strata_log_cleaner_cleanings_total", "counter",
                          "Cleanings of the partition since the broker started.");
  auto bytes_read = family("strata_log_cleaner_bytes_read_total", "counter",
                           "Segment bytes read by the partition's cleanings.");
  auto bytes_written = family("strata_log_cleaner_bytes_written_total", "counter",
                              "Segment bytes written by the partition's cleanings.");
  double highest_ratio = 0;
  int64_t longest_delay_ms = 0;
  size_t cleaning = 0;
  for (const CompactedPartition& p : figures.compacted) {
    const storage::CleanerPartitionState& s = p.state;
    const std::vector<std::pair<std::string, std::string>> labels = {
        {"topic", p.tp.topic}, {"partition", std::to_string(p.tp.partition.value())}};
    const Offset first = s.first_dirty.value_or(s.cleanable.first_dirty);
    ratio.samples.push_back({labels, s.cleanable.dirty_ratio});
    first_dirty.samples.push_back({labels, double(first.value())});
    last_clean.samples.push_back({labels, double(std::max<int64_t>(s.last_clean_ms, 0))});
    cleanings.samples.push_back({labels, double(s.cleanings)});
    bytes_read.samples.push_back({labels, double(s.bytes_cleaned)});
    bytes_written.samples.push_back({labels, double(s.bytes_written)});
    highest_ratio = std::max(highest_ratio, s.cleanable.dirty_ratio);
    longest_delay_ms = std::max(longest_delay_ms, s.cleanable.compaction_delay_ms);
    cleaning += s.in_progress ? 1 : 0;
  }
  partitions.samples.push_back({{}, double(figures.partitions)});
  under.samples.push_back({{}, double(figures.under_replicated)});
  under_min.samples.push_back({{}, double(figures.under_min_isr)});
  compacted.samples.push_back({{}, double(figures.compacted.size())});
  max_ratio.samples.push_back({{}, highest_ratio});
  max_delay.samples.push_back({{}, double(longest_delay_ms)});
  in_progress.samples.push_back({{}, double(cleaning)});
  std::vector<MetricFamily> out;
  for (MetricFamily* f : {&partitions, &under, &under_min, &compacted, &max_ratio, &max_delay, &in_progress, &ratio,
                          &first_dirty, &last_clean, &cleanings, &bytes_read, &bytes_written}) {
    out.push_back(std::move(*f));
  }
  return out;
}

BrokerFigures collect_broker_figures(Broker& broker) {
  BrokerFigures figures;
  const std::vector<storage::TopicPartition> partitions = broker.logs().partitions();
  figures.partitions = partitions.size();
  auto snapshot = broker.metadata();
  for (const auto& t : snapshot->topics()) {
    for (const PartitionMeta& p : t->partitions) {
      if (p.leader != broker.config().node_id || p.replicas.empty()) continue;
      if (p.isr.size() < p.replicas.size()) ++figures.under_replicated;
      if (p.isr.size() < size_t(std::max(t->log_config.min_insync_replicas, 1))) ++figures.under_min_isr;
    }
  }
  std::map<std::string, bool> compacted_topic;  // one config lookup per topic
  for (const storage::TopicPartition& tp : partitions) {
    auto it = compacted_topic.find(tp.topic);
    if (it == compacted_topic.end()) {
      const bool compacted =
          broker.log_config_for(tp.topic).compact();
      it = compacted_topic.emplace(tp.topic, compacted).first;
    }
    if (!it->second) continue;
    auto state = broker.logs().cleaner_state(tp);
    figures.compacted.push_back({tp, state.value_or(storage::CleanerPartitionState{})});
  }
  return figures;
}

// ---- HTTP -----------------------------------------------------------------------------

namespace {

constexpr size_t kHttpMethodBytesMax = 16;
// After answering, the server reads (and drops) at most this much until the peer closes,
// so the client gets the answer rather than a reset.
constexpr size_t kHttpDrainBytesMax = 1 << 20;

std::string_view without_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool visible(char c) { return c > 0x20 && c < 0x7f; }

// "METHOD SP origin-form SP HTTP/1.x", nothing else.
std::optional<HttpRequest> parse_request_line(std::string_view line) {
  const size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return std::nullopt;
  const size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return std::nullopt;
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (method.empty() || method.size() > kHttpMethodBytesMax) return std::nullopt;
  for (char c : method) {
    if (c < 'A' || c > 'Z') return std::nullopt;
  }
  if (target.empty() || target[0] != '/') return std::nullopt;
  for (char c : target) {
    if (!visible(c)) return std::nullopt;
  }
  if (version != "HTTP/1.0" && version != "HTTP/1.1") return std::nullopt;
  return HttpRequest{std::string(method), std::string(target.substr(0, target.find('?')))};
}

// "name: value": a non-empty name of visible characters without ':', then any text
// without control characters but tab.
bool valid_header_line(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    if (!visible(line[i])) return false;
  }
  for (size_t i = colon + 1; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

HttpParse parse_http_request(std::string_view bytes, size_t bytes_max) {
  const HttpParse incomplete{bytes.size() >= bytes_max ? HttpParseStatus::kTooLarge
                                                       : HttpParseStatus::kIncomplete, {}};
  size_t eol = bytes.find('\n');
  if (eol == std::string_view::npos) return incomplete;
  if (eol >= bytes_max) return {HttpParseStatus::kTooLarge, {}};
  auto request = parse_request_line(without_cr(bytes.substr(0, eol)));
  if (!request) return {HttpParseStatus::kBadRequest, {}};
  // Every pass consumes a line, so the loop ends within bytes.size() passes.
  for (size_t at = eol + 1;; at = eol + 1) {
    eol = bytes.find('\n', at);
    if (eol == std::string_view::npos) return incomplete;
    if (eol >= bytes_max) return {HttpParseStatus::kTooLarge, {}};
    const std::string_view line = without_cr(bytes.substr(at, eol - at));
    if (line.empty()) return {HttpParseStatus::kComplete, std::move(*request)};
    if (!valid_header_line(line)) return {HttpParseStatus::kBadRequest, {}};
  }
}

namespace {

std::string response(int status, const char* reason, std::string_view content_type,
                     std::string_view body, bool with_body, std::string_view extra_headers = "") {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n";
  out += "Content-Type: ";
  out += content_type;
  out += "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  out += extra_headers;
  out += "Connection: close\r\n\r\n";
  if (with_body) out += body;
  return out;
}

constexpr std::string_view kText = "text/plain; charset=utf-8";
constexpr std::string_view kExposition = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace

std::string http_response_for(const HttpParse& parse,
                              const std::function<std::string()>& metrics) {
  switch (parse.status) {
    case HttpParseStatus::kTooLarge:
      return response(431, "Request Header Fields Too Large", kText, "request too large\n", true);
    case HttpParseStatus::kBadRequest:
    case HttpParseStatus::kIncomplete:
      return response(400, "Bad Request", kText, "bad request\n", true);
    case HttpParseStatus::kComplete:
      break;
  }
  const HttpRequest& r = parse.request;
  if (r.path != "/metrics") return response(404, "Not Found", kText, "not found\n", r.method != "HEAD");
  if (r.method != "GET" && r.method != "HEAD") {
    return response(405, "Method Not Allowed", kText, "method not allowed\n", true,
                    "Allow: GET, HEAD\r\n");
  }
  return response(200, "OK", kExposition, metrics(), r.method == "GET");
}

Result<std::pair<std::string, uint16_t>, std::string> parse_metrics_listener(std::string_view text) {
  const std::string what = "metrics.listener: expected http://HOST:PORT: " + std::string(text);
  constexpr std::string_view kScheme = "http://";
  if (!text.starts_with(kScheme)) return fail(what);
  std::string_view rest = text.substr(kScheme.size());
  if (rest.ends_with('/')) rest.remove_suffix(1);
  std::string_view host;
  std::string_view port;
  if (rest.starts_with('[')) {  // [v6]:port
    const size_t close = rest.find(']');
    if (close == std::string_view::npos || rest.substr(close + 1, 1) != ":") return fail(what);
    host = rest.substr(1, close - 1);
    port = rest.substr(close + 2);
  } else {
    const size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos) return fail(what);
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    if (host.find_first_of(":/") != std::string_view::npos) return fail(what);
  }
  uint32_t p = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || p > 65535) {
    return fail(what);
  }
  return std::pair{host.empty() ? std::string("0.0.0.0") : std::string(host), uint16_t(p)};
}

// ---- The server -----------------------------------------------------------------------

struct MetricsServer::Shared {
  Shared(asio::io_context& context, std::function<std::string()> m)
      : acceptor(context), metrics(std::move(m)) {}
  asio::ip::tcp::acceptor acceptor;
  std::function<std::string()> metrics;
  size_t connections = 0;  // open ones; touched on the context's thread only
};

namespace {

using Socket = asio::ip::tcp::socket;

// Reads until the request parses (complete, bad or too large); nullopt when the peer
// goes away or the deadline closes the socket first.
asio::awaitable<std::optional<HttpParse>> read_request(Socket& socket) {
  std::string received;
  std::array<char, 2048> chunk;
  for (;;) {
    const size_t room = kHttpRequestBytesMax - received.size();  // > 0: see kTooLarge
    asio::error_code ec;
    const size_t n = co_await socket.async_read_some(
        asio::buffer(chunk.data(), std::min(chunk.size(), room)),
        asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return std::nullopt;
    received.append(chunk.data(), n);
    HttpParse parse = parse_http_request(received);
    if (parse.status != HttpParseStatus::kIncomplete) co_return parse;
  }
}

// One request, one response, then close; the whole exchange within the deadline.
asio::awaitable<void> serve_connection(std::shared_ptr<MetricsServer::Shared> shared,
                                       std::shared_ptr<Socket> socket) {
  asio::steady_timer deadline(socket->get_executor());
  deadline.expires_after(std::chrono::milliseconds(kHttpExchangeTimeoutMs));
  // The handler owns the socket: it may run after this coroutine has finished.
  deadline.async_wait([socket](const asio::error_code& ec) {
    asio::error_code ignored;
    if (!ec) socket->close(ignored);
  });
  const std::optional<HttpParse> parse = co_await read_request(*socket);
  if (!parse) co_return;
  const std::string answer = http_response_for(*parse, shared->metrics);
  asio::error_code ec;
  co_await asio::async_write(*socket, asio::buffer(answer),
                             asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return;
  // Until the peer closes: unread request bytes (a body, the rest of an oversized
  // header) would make close() send a reset that can overtake the answer.
  socket->shutdown(Socket::shutdown_send, ec);
  std::array<char, 4096> sink;
  for (size_t drained = 0; !ec && drained < kHttpDrainBytesMax;) {
    drained += co_await socket->async_read_some(asio::buffer(sink),
                                                asio::redirect_error(asio::use_awaitable, ec));
  }
  socket->close(ec);
  deadline.cancel();
}

asio::awaitable<void> accept_loop(std::shared_ptr<MetricsServer::Shared> shared) {
  const auto executor = shared->acceptor.get_executor();
  for (;;) {
    asio::error_code ec;
    Socket socket = co_await shared->acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted || !shared->acceptor.is_open()) co_return;
    if (ec) {  // e.g. out of file descriptors: wait a little instead of spinning
      spdlog::warn("metrics listener: accept failed: {}", ec.message());
      asio::steady_timer pause(executor, std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    if (shared->connections >= kHttpConnectionsMax) {
      socket.close(ec);
      continue;
    }
    ++shared->connections;
    auto connection = std::make_shared<Socket>(std::move(socket));
    asio::co_spawn(executor, serve_connection(shared, connection),
                   [shared](std::exception_ptr e) {
                     --shared->connections;
                     if (e) spdlog::error("metrics listener: a request failed");
                   });
  }
}

}  // namespace

MetricsServer::MetricsServer(asio::io_context& context, std::function<std::string()> metrics)
    : context_(context), shared_(std::make_shared<Shared>(context, std::move(metrics))) {}

MetricsServer::~MetricsServer() = default;

bool MetricsServer::listen(const std::string& host, uint16_t port, std::string& error) {
  asio::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) {
    error = "bad metrics host " + host + ": " + ec.message();
    return false;
  }
  asio::ip::tcp::acceptor& a = shared_->acceptor;
  const asio::ip::tcp::endpoint ep(address, port);
  a.open(ep.protocol(), ec);
  if (!ec) a.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) a.bind(ep, ec);
  if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message();
    return false;
  }
  port_ = a.local_endpoint().port();
  return true;
}

void MetricsServer::start() { asio::co_spawn(context_, accept_loop(shared_), asio::detached); }

void MetricsServer::stop() {
  asio::post(context_, [shared = shared_] {
    asio::error_code ec;
    shared->acceptor.close(ec);
  });
}

}  // namespace strata::broker

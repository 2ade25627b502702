#include "broker/metrics.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace strata::broker {
namespace {

// ---- Exposition format ----

TEST(MetricsFormat, LabelValuesAreEscaped) {
  EXPECT_EQ(escape_label_value("plain-topic.1_x"), "plain-topic.1_x");
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(escape_label_value(""), "");
}

TEST(MetricsFormat, Values) {
  EXPECT_EQ(format_metric_value(0), "0");
  EXPECT_EQ(format_metric_value(1200), "1200");
  EXPECT_EQ(format_metric_value(-1), "-1");
  EXPECT_EQ(format_metric_value(1700000000123.0), "1700000000123");
  EXPECT_EQ(format_metric_value(0.42), "0.42");
  EXPECT_EQ(format_metric_value(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(format_metric_value(1e300), "1e+300");
  EXPECT_EQ(format_metric_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(format_metric_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_metric_value(-std::numeric_limits<double>::infinity()), "-Inf");
}

TEST(MetricsFormat, FamiliesRender) {
  std::vector<MetricFamily> families = {
      {"up", "gauge", "One line\\two\nlines.", {{{}, 1}}},
      {"x_total", "counter", "Per thing.", {{{{"topic", "a\"b"}, {"partition", "0"}}, 7}}},
      {"empty", "gauge", "No samples.", {}},
  };
  EXPECT_EQ(render_prometheus(families),
            "# HELP up One line\\\\two\\nlines.\n"
            "# TYPE up gauge\n"
            "up 1\n"
            "# HELP x_total Per thing.\n"
            "# TYPE x_total counter\n"
            "x_total{topic=\"a\\\"b\",partition=\"0\"} 7\n"
            "# HELP empty No samples.\n"
            "# TYPE empty gauge\n");
}

TEST(MetricsFormat, CleanerFamilies) {
  BrokerFigures f;
  f.partitions = 5;
  storage::CleanerPartitionState cleaned;
  cleaned.first_dirty = Offset(1200);
  cleaned.cleanable.first_dirty = Offset(1000);  // older refresh: the checkpoint wins
  cleaned.cleanable.dirty_ratio = 0.25;
  cleaned.last_clean_ms = 1700000000123;
  cleaned.cleanings = 3;
  cleaned.bytes_cleaned = 40000;
  cleaned.bytes_written = 9000;
  cleaned.in_progress = true;
  storage::CleanerPartitionState never;  // never cleaned: last clean 0, first dirty = log start
  never.cleanable.first_dirty = Offset(17);
  never.cleanable.dirty_ratio = 0.5;
  never.cleanable.compaction_delay_ms = 250;
  f.under_replicated = 2;
  f.under_min_isr = 1;
  f.compacted.push_back({{"compacted", PartitionId(0)}, cleaned});
  f.compacted.push_back({{"__consumer_offsets", PartitionId(12)}, never});
  const std::string text = render_prometheus(broker_metric_families(f));
  auto has = [&](const std::string& line) {
    return text.find("\n" + line + "\n") != std::string::npos;
  };
  EXPECT_TRUE(has("strata_partitions 5")) << text;
  EXPECT_TRUE(has("kafka_server_replicamanager_underreplicatedpartitions 2"));
  EXPECT_TRUE(has("kafka_server_replicamanager_underminisrpartitioncount 1"));
  EXPECT_TRUE(has("strata_log_cleaner_compacted_partitions 2"));
  EXPECT_TRUE(has("strata_log_cleaner_max_dirty_ratio 0.5"));
  EXPECT_TRUE(has("strata_log_cleaner_max_compaction_delay_ms 250"));
  EXPECT_TRUE(has("strata_log_cleaner_cleanings_in_progress 1"));
  const std::string a = "{topic=\"compacted\",partition=\"0\"}";
  const std::string b = "{topic=\"__consumer_offsets\",partition=\"12\"}";
  EXPECT_TRUE(has("strata_log_cleaner_dirty_ratio" + a + " 0.25"));
  EXPECT_TRUE(has("strata_log_cleaner_first_dirty_offset" + a + " 1200"));
  EXPECT_TRUE(has("strata_log_cleaner_last_clean_timestamp_ms" + a + " 1700000000123"));
  EXPECT_TRUE(has("strata_log_cleaner_cleanings_total" + a + " 3"));
  EXPECT_TRUE(has("strata_log_cleaner_bytes_read_total" + a + " 40000"));
  EXPECT_TRUE(has("strata_log_cleaner_bytes_written_total" + a + " 9000"));
  EXPECT_TRUE(has("strata_log_cleaner_dirty_ratio" + b + " 0.5"));
  EXPECT_TRUE(has("strata_log_cleaner_first_dirty_offset" + b + " 17"));
  EXPECT_TRUE(has("strata_log_cleaner_last_clean_timestamp_ms" + b + " 0"));
  EXPECT_TRUE(has("strata_log_cleaner_cleanings_total" + b + " 0"));
  EXPECT_TRUE(has("# TYPE strata_log_cleaner_cleanings_total counter"));
  EXPECT_TRUE(has("# TYPE strata_log_cleaner_dirty_ratio gauge"));
}

TEST(MetricsFormat, NoCompactedPartitions) {
  const std::string text = render_prometheus(broker_metric_families(BrokerFigures{}));
  EXPECT_NE(text.find("\nstrata_log_cleaner_max_dirty_ratio 0\n"), std::string::npos);
  EXPECT_EQ(text.find("strata_log_cleaner_dirty_ratio{"), std::string::npos);
}

// ---- HTTP request parsing ----

HttpParseStatus status_of(std::string_view bytes, size_t max = kHttpRequestBytesMax) {
  return parse_http_request(bytes, max).status;
}

TEST(HttpParse, CompleteRequests) {
  auto p = parse_http_request("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n");
  ASSERT_EQ(p.status, HttpParseStatus::kComplete);
  EXPECT_EQ(p.request.method, "GET");
  EXPECT_EQ(p.request.path, "/metrics");
  p = parse_http_request("HEAD /metrics?name[]=x HTTP/1.0\n\n");  // bare LF, no headers
  ASSERT_EQ(p.status, HttpParseStatus::kComplete);
  EXPECT_EQ(p.request.method, "HEAD");
  EXPECT_EQ(p.request.path, "/metrics");
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nX-Empty:\r\n\r\nbody ignored"), HttpParseStatus::kComplete);
}

TEST(HttpParse, IncompleteUntilTheEmptyLine) {
  EXPECT_EQ(status_of(""), HttpParseStatus::kIncomplete);
  EXPECT_EQ(status_of("GET /metr"), HttpParseStatus::kIncomplete);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\n"), HttpParseStatus::kIncomplete);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nHost: x\r\n"), HttpParseStatus::kIncomplete);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nHost: x\r\n\r"), HttpParseStatus::kIncomplete);
}

TEST(HttpParse, BadRequestLines) {
  for (const char* line : {"garbage\r\n", "GET\r\n", "GET /metrics\r\n",  // HTTP/0.9
                           "GET /metrics HTTP/2.0\r\n", "get /metrics HTTP/1.1\r\n",
                           "GET metrics HTTP/1.1\r\n", "GET http://h/metrics HTTP/1.1\r\n",
                           "GET  /metrics HTTP/1.1\r\n", "GET /metrics HTTP/1.1 \r\n",
                           "GET /me\x01trics HTTP/1.1\r\n", "\r\n",
                           "AVERYLONGMETHODNAME /metrics HTTP/1.1\r\n",
                           "\x16\x03\x01\x02\xfc\x03\x03\n"}) {
    EXPECT_EQ(status_of(line), HttpParseStatus::kBadRequest) << line;
  }
  // A Kafka request's size prefix: reported as soon as a line ends, without waiting for
  // headers.
  EXPECT_EQ(status_of(std::string_view("\x00\x00\x00\x10\x00\x12\n", 7)),
            HttpParseStatus::kBadRequest);
}

TEST(HttpParse, BadHeaderLines) {
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nno colon\r\n\r\n"), HttpParseStatus::kBadRequest);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\n: no name\r\n\r\n"), HttpParseStatus::kBadRequest);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nBad Name: x\r\n\r\n"), HttpParseStatus::kBadRequest);
  EXPECT_EQ(status_of(std::string_view("GET /metrics HTTP/1.1\r\nA: \0\r\n\r\n", 31)),
            HttpParseStatus::kBadRequest);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nA: tab\tok\r\n\r\n"), HttpParseStatus::kComplete);
}

TEST(HttpParse, TooLarge) {
  EXPECT_EQ(status_of(std::string(100, 'G'), 100), HttpParseStatus::kTooLarge);
  EXPECT_EQ(status_of(std::string(99, 'G'), 100), HttpParseStatus::kIncomplete);
  const std::string head = "GET /metrics HTTP/1.1\r\n";
  const std::string big = head + "X: " + std::string(kHttpRequestBytesMax, 'a');
  EXPECT_EQ(status_of(big.substr(0, kHttpRequestBytesMax)), HttpParseStatus::kTooLarge);
  // Exactly at the limit, with the end of the headers inside it, is fine.
  const std::string fits = head + "X: " + std::string(100 - head.size() - 7, 'a') + "\r\n\r\n";
  ASSERT_EQ(fits.size(), 100u);
  EXPECT_EQ(status_of(fits, 100), HttpParseStatus::kComplete);
  // A line ending beyond the limit (when more bytes than the limit were passed).
  EXPECT_EQ(status_of(head + std::string(200, 'a') + "\r\n\r\n", 100), HttpParseStatus::kTooLarge);
}

TEST(HttpParse, Responses) {
  auto metrics = [] { return std::string("up 1\n"); };
  auto answer = [&](std::string_view request) {
    return http_response_for(parse_http_request(request), metrics);
  };
  EXPECT_EQ(answer("GET /metrics HTTP/1.1\r\n\r\n"),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            "Content-Length: 5\r\nConnection: close\r\n\r\nup 1\n");
  const std::string head = answer("HEAD /metrics HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(head.starts_with("HTTP/1.1 200 OK\r\n"));
  EXPECT_NE(head.find("Content-Length: 5\r\n"), std::string::npos);
  EXPECT_TRUE(head.ends_with("\r\n\r\n"));
  EXPECT_TRUE(answer("GET /other HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 Not Found\r\n"));
  EXPECT_TRUE(answer("GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 "));
  const std::string post = answer("POST /metrics HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(post.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"));
  EXPECT_NE(post.find("Allow: GET, HEAD\r\n"), std::string::npos);
  EXPECT_TRUE(answer("nonsense\n").starts_with("HTTP/1.1 400 Bad Request\r\n"));
  EXPECT_TRUE(http_response_for({HttpParseStatus::kTooLarge, {}}, metrics)
                  .starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
}

TEST(MetricsListener, Parse) {
  auto ok = [](std::string_view text, const std::string& host, uint16_t port) {
    auto r = parse_metrics_listener(text);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_EQ(r->first, host) << text;
    EXPECT_EQ(r->second, port) << text;
  };
  ok("http://127.0.0.1:9644", "127.0.0.1", 9644);
  ok("http://127.0.0.1:9644/", "127.0.0.1", 9644);
  ok("http://:9644", "0.0.0.0", 9644);
  ok("http://[::1]:0", "::1", 0);
  ok("http://localhost:65535", "localhost", 65535);
  for (const char* bad : {"127.0.0.1:9644", "https://127.0.0.1:9644", "http://127.0.0.1",
                          "http://127.0.0.1:", "http://127.0.0.1:65536", "http://h:9644/metrics",
                          "http://::1:9644", "http://[::1]9644", "http://h:96x4", "PLAINTEXT://h:1"}) {
    EXPECT_FALSE(parse_metrics_listener(bad).ok()) << bad;
  }
}

// ---- The server, over a real socket ----

class MetricsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<MetricsServer>(context_, [] { return std::string("up 1\n"); });
    std::string error;
    ASSERT_TRUE(server_->listen("127.0.0.1", 0, error)) << error;
    server_->start();
    thread_ = std::thread([this] { context_.run(); });
  }
  void TearDown() override {
    server_->stop();
    work_.reset();
    context_.stop();
    thread_.join();
    server_.reset();
  }
  // Sends `request`, then reads until the server closes.
  std::string exchange(const std::string& request) {
    asio::io_context io;
    asio::ip::tcp::socket s(io);
    s.connect({asio::ip::make_address("127.0.0.1"), server_->bound_port()});
    asio::error_code ec;
    asio::write(s, asio::buffer(request), ec);
    std::string answer;
    std::array<char, 4096> buf;
    for (;;) {
      const size_t n = s.read_some(asio::buffer(buf), ec);
      answer.append(buf.data(), n);
      if (ec) break;
    }
    return answer;
  }

  asio::io_context context_;
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(context_);
  std::unique_ptr<MetricsServer> server_;
  std::thread thread_;
};

TEST_F(MetricsServerTest, ServesMetricsAndRefusesTheRest) {
  const std::string ok = exchange("GET /metrics HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(ok.starts_with("HTTP/1.1 200 OK\r\n")) << ok;
  EXPECT_TRUE(ok.ends_with("\r\n\r\nup 1\n")) << ok;
  EXPECT_TRUE(exchange("GET /nope HTTP/1.1\r\nHost: h\r\n\r\n").starts_with("HTTP/1.1 404 "));
  EXPECT_TRUE(exchange("\x16\x03\x01 garbage\r\n\r\n").starts_with("HTTP/1.1 400 "));
  const std::string huge = "GET /metrics HTTP/1.1\r\nX: " + std::string(100000, 'a') + "\r\n\r\n";
  EXPECT_TRUE(exchange(huge).starts_with("HTTP/1.1 431 "));
  // Still serving after all that.
  EXPECT_TRUE(exchange("GET /metrics HTTP/1.1\r\n\r\n").ends_with("up 1\n"));
}

TEST_F(MetricsServerTest, APeerThatSendsNothingIsClosedAtTheDeadline) {
  asio::io_context io;
  asio::ip::tcp::socket s(io);
  s.connect({asio::ip::make_address("127.0.0.1"), server_->bound_port()});
  const auto started = std::chrono::steady_clock::now();
  std::array<char, 16> buf;
  asio::error_code ec;
  const size_t n = s.read_some(asio::buffer(buf), ec);
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(n, 0u);
  EXPECT_TRUE(ec);  // eof or reset
  EXPECT_GE(waited, std::chrono::milliseconds(kHttpExchangeTimeoutMs - 100));
  EXPECT_LT(waited, std::chrono::milliseconds(kHttpExchangeTimeoutMs + 3000));
}

}  // namespace
}  // namespace strata::broker

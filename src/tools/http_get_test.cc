#include "tools/http_get.h"

#include <gtest/gtest.h>

#include <cmath>

namespace strata::tools {
namespace {

TEST(HttpUrl, Parses) {
  auto u = parse_http_url("http://127.0.0.1:9644", "/metrics");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 9644);
  EXPECT_EQ(u->path, "/metrics");
  u = parse_http_url("http://broker/x/y?z=1");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "broker");
  EXPECT_EQ(u->port, 80);
  EXPECT_EQ(u->path, "/x/y?z=1");
  u = parse_http_url("http://[::1]:1/");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, 1);
  EXPECT_EQ(u->path, "/");
  for (const char* bad : {"", "127.0.0.1:9644", "https://h:1", "http://", "http://:1",
                          "http://h:", "http://h:0", "http://h:65536", "http://h:1x",
                          "http://[::1", "http://[::1]x", "http://h:1/a b"}) {
    EXPECT_FALSE(parse_http_url(bad).ok()) << bad;
  }
}

TEST(PrometheusLine, Samples) {
  auto s = parse_prometheus_line(
      "strata_log_cleaner_dirty_ratio{topic=\"a\\\"b\\\\c\\nd\",partition=\"3\"} 0.42");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "strata_log_cleaner_dirty_ratio");
  EXPECT_EQ(s->labels.at("topic"), "a\"b\\c\nd");
  EXPECT_EQ(s->labels.at("partition"), "3");
  EXPECT_DOUBLE_EQ(s->value, 0.42);
  s = parse_prometheus_line("up 1 1700000000000");  // with a timestamp
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->labels.empty());
  EXPECT_EQ(s->value, 1);
  s = parse_prometheus_line("x{a=\"1\",} +Inf");
  ASSERT_TRUE(s);
  EXPECT_TRUE(std::isinf(s->value));
  s = parse_prometheus_line("x NaN");
  ASSERT_TRUE(s);
  EXPECT_TRUE(std::isnan(s->value));
  s = parse_prometheus_line("x 1e+21");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->value, 1e21);
}

TEST(PrometheusLine, Skips) {
  for (const char* line : {"", "   ", "# HELP x y", "# TYPE x gauge", "x", "x{a=\"1\"",
                           "x{a=1} 2", "x{=\"1\"} 2", "x{a=\"1} 2", "9x 1", "x one"}) {
    EXPECT_FALSE(parse_prometheus_line(line)) << line;
  }
}

}  // namespace
}  // namespace strata::tools

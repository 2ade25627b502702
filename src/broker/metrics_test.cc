#include "broker/metrics.h"

#include <gtest/gtest.h>

#include <string>

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
  EXPECT_TRUE(has("kafka_controller_kafkacontroller_offlinepartitionscount 0"));  // not the controller
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

// ---- The listener setting ----

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

}  // namespace
}  // namespace strata::broker

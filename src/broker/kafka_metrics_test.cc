// Kafka's metric families from known figures: names, labels, the histogram's buckets, and
// the traffic counters they come from.
#include "broker/kafka_metrics.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace strata::broker {
namespace {

TEST(TrafficMetrics, CountsPerTopicAndInTotal) {
  TrafficMetrics m;
  count(m.topic("a"), m.all(), &TopicTraffic::messages_in, 3);
  count(m.topic("b"), m.all(), &TopicTraffic::messages_in, 4);
  count(m.topic("a"), m.all(), &TopicTraffic::bytes_out, 10);
  EXPECT_EQ(m.topics().at("a").messages_in, 3u);
  EXPECT_EQ(m.topics().at("b").messages_in, 4u);
  EXPECT_EQ(m.topics().at("a").bytes_out, 10u);
  EXPECT_EQ(m.total().messages_in, 7u);
}

TEST(TrafficMetrics, RequestHistogramIsCumulative) {
  TrafficMetrics m;
  m.request_done(0, 0.5);    // <= 1
  m.request_done(0, 3);      // <= 5
  m.request_done(0, 20000);  // above every bound: +Inf only
  m.request_done(-1, 1);     // ignored
  m.request_done(500, 1);    // ignored
  const auto r = m.requests();
  ASSERT_EQ(r.size(), 1u);
  const RequestTimeFigures& f = r.at(0);
  EXPECT_EQ(f.count, 3u);
  EXPECT_EQ(f.buckets[0], 1u);                // le=1
  EXPECT_EQ(f.buckets[2], 2u);                // le=5
  EXPECT_EQ(f.buckets.back(), 2u);            // le=10000
  EXPECT_NEAR(f.sum_ms, 20003.5, 0.01);
}

TEST(TrafficMetrics, ConcurrentCountsAddUp) {
  TrafficMetrics m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m] {
      for (int i = 0; i < 10000; ++i) {
        count(m.topic("t"), m.all(), &TopicTraffic::produce_requests, 1);
        m.request_done(0, 1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(m.topics().at("t").produce_requests, 40000u);
  EXPECT_EQ(m.requests().at(0).count, 40000u);
}

TEST(KafkaMetricFamilies, RenderWithKafkasNames) {
  KafkaFigures f;
  f.topics["orders"].messages_in = 5;
  f.total.messages_in = 7;
  RequestTimeFigures r;
  r.count = 2;
  r.sum_ms = 3.5;
  r.buckets.fill(2);
  r.buckets[0] = 1;
  f.requests["Produce"] = r;
  f.logs.push_back({storage::TopicPartition{"orders", PartitionId(1)}, 100, 2, 9, 9, 1});
  f.groups.push_back({"g", 2, {{storage::TopicPartition{"orders", PartitionId(1)}, 4}}});
  f.active_controller = true;
  const std::string text = render_prometheus(kafka_metric_families(f));
  for (const char* line : {
           "kafka_server_brokertopicmetrics_messagesin_total 7\n",
           "kafka_server_brokertopicmetrics_messagesin_total{topic=\"orders\"} 5\n",
           "# TYPE kafka_network_requestmetrics_totaltimems histogram\n",
           "kafka_network_requestmetrics_totaltimems_bucket{request=\"Produce\",le=\"1\"} 1\n",
           "kafka_network_requestmetrics_totaltimems_bucket{request=\"Produce\",le=\"+Inf\"} 2\n",
           "kafka_network_requestmetrics_totaltimems_sum{request=\"Produce\"} 3.5\n",
           "kafka_network_requestmetrics_totaltimems_count{request=\"Produce\"} 2\n",
           "kafka_network_requestmetrics_requests_total{request=\"Produce\"} 2\n",
           "kafka_log_log_size{topic=\"orders\",partition=\"1\"} 100\n",
           "kafka_log_log_logendoffset{topic=\"orders\",partition=\"1\"} 9\n",
           "kafka_log_log_logstartoffset{topic=\"orders\",partition=\"1\"} 2\n",
           "kafka_controller_kafkacontroller_activecontrollercount 1\n",
           "kafka_topic_partition_current_offset{topic=\"orders\",partition=\"1\"} 9\n",
           "kafka_consumergroup_current_offset{consumergroup=\"g\",topic=\"orders\",partition=\"1\"} 4\n",
           "kafka_consumergroup_lag{consumergroup=\"g\",topic=\"orders\",partition=\"1\"} 5\n",
           "kafka_consumergroup_lag_sum{consumergroup=\"g\",topic=\"orders\"} 5\n",
           "kafka_consumergroup_members{consumergroup=\"g\"} 2\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
}

TEST(KafkaMetricFamilies, LagOfPartitionsElsewhereComesFromTheirLeaders) {
  KafkaFigures f;
  const storage::TopicPartition here{"orders", PartitionId(0)}, away{"orders", PartitionId(1)},
      unknown{"orders", PartitionId(2)};
  f.logs.push_back({here, 100, 0, 9, 9, 1});
  f.groups.push_back({"g", 0, {{here, 4}, {away, 10}, {unknown, 1}}});
  EXPECT_EQ(committed_elsewhere(f), (std::set<storage::TopicPartition>{away, unknown}));
  f.remote_high_watermarks[away] = 13;
  const std::string text = render_prometheus(kafka_metric_families(f));
  EXPECT_NE(text.find("kafka_consumergroup_lag{consumergroup=\"g\",topic=\"orders\",partition=\"1\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("kafka_consumergroup_lag_sum{consumergroup=\"g\",topic=\"orders\"} 8\n"), std::string::npos);
  // No answer yet from partition 2's leader: its offset is reported, its lag is not.
  EXPECT_EQ(text.find("kafka_consumergroup_lag{consumergroup=\"g\",topic=\"orders\",partition=\"2\"}"),
            std::string::npos);
  EXPECT_NE(text.find("kafka_consumergroup_current_offset{consumergroup=\"g\",topic=\"orders\",partition=\"2\"} 1"),
            std::string::npos);
}

TEST(KafkaMetricFamilies, ProcessFiguresAreRead) {
  const ProcessFigures p = process_figures();
  EXPECT_GT(p.resident_bytes, 0u);
  EXPECT_GT(p.open_fds, 2u);
  EXPECT_GE(p.cpu_seconds, 0);
}

}  // namespace
}  // namespace strata::broker

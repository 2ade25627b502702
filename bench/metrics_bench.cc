// What Kafka's metrics cost (issue 18): the counting each produced partition pays on the
// produce path (a topic lookup and three relaxed atomic adds, traffic_metrics.h), alone
// and with two threads bumping the same topic, next to the least work a produced
// partition costs anyway (copying its 16 KiB batch once); a request's histogram update;
// and rendering a scrape of 100 topics x 10 partitions with 50 groups.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "broker/kafka_metrics.h"
#include "broker/traffic_metrics.h"

namespace strata::broker {
namespace {

TrafficMetrics& shared_metrics() {
  static TrafficMetrics m;
  return m;
}

void BM_ProducePartitionAccount(benchmark::State& state) {
  TrafficMetrics& m = shared_metrics();
  const std::string topic = "orders";
  for (auto _ : state) {
    TopicTraffic& t = m.topic(topic);
    count(t, m.all(), &TopicTraffic::produce_requests, 1);
    count(t, m.all(), &TopicTraffic::messages_in, 100);
    count(t, m.all(), &TopicTraffic::bytes_in, 16384);
  }
}
BENCHMARK(BM_ProducePartitionAccount)->Threads(1)->Threads(2);

void BM_CopyBatch16KiB(benchmark::State& state) {
  std::vector<char> from(16384, 'x'), to(16384);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), from.size());
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 16384);
}
BENCHMARK(BM_CopyBatch16KiB);

void BM_RequestDone(benchmark::State& state) {
  TrafficMetrics& m = shared_metrics();
  double ms = 0.1;
  for (auto _ : state) {
    m.request_done(0, ms);
    ms = ms > 100 ? 0.1 : ms * 1.5;
  }
}
BENCHMARK(BM_RequestDone)->Threads(1)->Threads(2);

void BM_RenderScrape(benchmark::State& state) {
  KafkaFigures f;
  for (int t = 0; t < 100; ++t) {
    const std::string name = "topic-" + std::to_string(t);
    f.topics[name].messages_in = 12345;
    for (int p = 0; p < 10; ++p) f.logs.push_back({storage::TopicPartition{name, PartitionId(p)}, 1 << 20, 0, 5000, 5000, 1});
  }
  for (int g = 0; g < 50; ++g) {
    GroupFigures gf{"group-" + std::to_string(g), 3, {}};
    for (int p = 0; p < 10; ++p) gf.committed.push_back({storage::TopicPartition{"topic-" + std::to_string(g), PartitionId(p)}, 4000});
    f.groups.push_back(std::move(gf));
  }
  for (int k = 0; k < 20; ++k) f.requests["Api" + std::to_string(k)].count = 1000;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = render_prometheus(kafka_metric_families(f));
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["scrape_bytes"] = double(bytes);
}
BENCHMARK(BM_RenderScrape)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace strata::broker

BENCHMARK_MAIN();

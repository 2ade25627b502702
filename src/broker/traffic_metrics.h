// What the broker counts as it serves requests, for Kafka's metrics under jmx_exporter's
// names (docs/metrics.md): BrokerTopicMetrics per topic and in total (messages and bytes
// in, bytes out, produce and fetch requests and failures) and RequestMetrics per API (a
// request count and a histogram of the time from the request's arrival at its handler to
// its response being ready).
//
// Threads: any thread bumps (relaxed atomics; a topic's counters are found under a mutex
// once per topic per request), any thread reads a snapshot. Counters only grow; a topic's
// stay after the topic is deleted (the scrape shows the topics that exist).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace strata::broker {

// Upper bounds (ms) of the request-time histogram's buckets; +Inf follows.
inline constexpr std::array<double, 13> kRequestTimeBucketsMs = {1, 2, 5, 10, 25, 50, 100,
                                                                  250, 500, 1000, 2500, 5000, 10000};

struct TopicTraffic {
  std::atomic<uint64_t> messages_in{0};
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_out{0};
  std::atomic<uint64_t> failed_produce{0};
  std::atomic<uint64_t> failed_fetch{0};
  std::atomic<uint64_t> produce_requests{0};
  std::atomic<uint64_t> fetch_requests{0};
};

// A copy of TopicTraffic's values.
struct TrafficFigures {
  uint64_t messages_in = 0, bytes_in = 0, bytes_out = 0, failed_produce = 0, failed_fetch = 0,
           produce_requests = 0, fetch_requests = 0;
};

struct RequestTimeFigures {
  uint64_t count = 0;
  double sum_ms = 0;
  std::array<uint64_t, kRequestTimeBucketsMs.size()> buckets{};  // cumulative, per bound
};

// Adds `n` to one counter of a topic and of the totals.
inline void count(TopicTraffic& topic, TopicTraffic& all, std::atomic<uint64_t> TopicTraffic::*counter, uint64_t n) {
  (topic.*counter).fetch_add(n, std::memory_order_relaxed);
  (all.*counter).fetch_add(n, std::memory_order_relaxed);
}

class TrafficMetrics {
 public:
  static constexpr size_t kApiKeys = 128;  // Kafka's keys are below this

  // The topic's counters (created on first use). Also bump all() for the totals.
  TopicTraffic& topic(std::string_view name);
  TopicTraffic& all() { return all_; }
  // One request of `api_key` served in `ms`.
  void request_done(int16_t api_key, double ms);

  std::map<std::string, TrafficFigures> topics() const;
  TrafficFigures total() const { return figures_of(all_); }
  // The APIs with at least one request.
  std::map<int16_t, RequestTimeFigures> requests() const;

 private:
  struct RequestTimes {
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> sum_us{0};
    std::array<std::atomic<uint64_t>, kRequestTimeBucketsMs.size()> buckets{};  // not cumulative
  };
  static TrafficFigures figures_of(const TopicTraffic& t);
  // Lookups by string_view without building a string (no allocation on the produce path).
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  mutable std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<TopicTraffic>, NameHash, std::equal_to<>> topics_;  // guarded by mu_
  TopicTraffic all_;
  std::array<RequestTimes, kApiKeys> requests_{};
};

}  // namespace strata::broker

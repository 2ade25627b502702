#include "broker/traffic_metrics.h"

#include <algorithm>

namespace strata::broker {

TopicTraffic& TrafficMetrics::topic(std::string_view name) {
  std::lock_guard lock(mu_);
  auto it = topics_.find(name);
  if (it == topics_.end()) it = topics_.emplace(std::string(name), std::make_unique<TopicTraffic>()).first;
  return *it->second;
}

void TrafficMetrics::request_done(int16_t api_key, double ms) {
  if (api_key < 0 || size_t(api_key) >= kApiKeys) return;
  RequestTimes& r = requests_[size_t(api_key)];
  r.count.fetch_add(1, std::memory_order_relaxed);
  r.sum_us.fetch_add(uint64_t(std::max(ms, 0.0) * 1000), std::memory_order_relaxed);
  const auto bound = std::lower_bound(kRequestTimeBucketsMs.begin(), kRequestTimeBucketsMs.end(), ms);
  if (bound != kRequestTimeBucketsMs.end()) {
    r.buckets[size_t(bound - kRequestTimeBucketsMs.begin())].fetch_add(1, std::memory_order_relaxed);
  }
}

TrafficFigures TrafficMetrics::figures_of(const TopicTraffic& t) {
  constexpr auto relaxed = std::memory_order_relaxed;
  return {t.messages_in.load(relaxed),    t.bytes_in.load(relaxed),         t.bytes_out.load(relaxed),
          t.failed_produce.load(relaxed), t.failed_fetch.load(relaxed),     t.produce_requests.load(relaxed),
          t.fetch_requests.load(relaxed)};
}

std::map<std::string, TrafficFigures> TrafficMetrics::topics() const {
  std::lock_guard lock(mu_);
  std::map<std::string, TrafficFigures> out;
  for (const auto& [name, t] : topics_) out[name] = figures_of(*t);
  return out;
}

std::map<int16_t, RequestTimeFigures> TrafficMetrics::requests() const {
  std::map<int16_t, RequestTimeFigures> out;
  for (size_t key = 0; key < kApiKeys; ++key) {
    const RequestTimes& r = requests_[key];
    RequestTimeFigures f;
    uint64_t running = 0;
    for (size_t b = 0; b < f.buckets.size(); ++b) {
      running += r.buckets[b].load(std::memory_order_relaxed);
      f.buckets[b] = running;
    }
    // Read after the buckets and never below them: the +Inf bucket (the count) must not
    // be less than any finite one even while requests finish during the scrape.
    f.count = std::max(r.count.load(std::memory_order_relaxed), running);
    if (f.count == 0) continue;
    f.sum_ms = double(r.sum_us.load(std::memory_order_relaxed)) / 1000.0;
    out[int16_t(key)] = f;
  }
  return out;
}

}  // namespace strata::broker

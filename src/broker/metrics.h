// Strata's metrics: the Prometheus text format (version 0.0.4), served at GET /metrics by
// the admin listener (admin_server.h) on `metrics.listener` (Strata's own setting; Kafka
// has JMX instead). Off unless configured. What is exported: docs/metrics.md.
//
// Threads: a scrape runs on an admin worker thread and reads only thread-safe state
// (LogManager's partition list and cleaner_state, Topics); it never hops to a shard.
#pragma once

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
  std::string suffix;  // after the family's name: a histogram's "_bucket", "_sum", "_count"
};

struct MetricFamily {
  std::string name;  // counters end in _total
  std::string type;  // "gauge", "counter" or "histogram"
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
  size_t leaders = 0;  // partitions this broker leads (Kafka's LeaderCount)
  // On the active controller only (Kafka's KafkaController gauges; others report 0):
  // the cluster's topics, partitions, and partitions without a leader.
  bool controller = false;
  size_t global_topics = 0;
  size_t global_partitions = 0;
  size_t offline_partitions = 0;
  std::vector<CompactedPartition> compacted;  // in partition order
};

// The families of docs/metrics.md from the figures (pure; the unit tests' entry).
std::vector<MetricFamily> broker_metric_families(const BrokerFigures& figures);
// Gathers the figures from a running broker. Any thread.
BrokerFigures collect_broker_figures(Broker& broker);

// ---- The listener setting ----------------------------------------------------------

// `metrics.listener`: "http://HOST:PORT", HOST an IP address (empty: all interfaces; [v6]
// allowed; a name fails at listen()).
Result<std::pair<std::string, uint16_t>, std::string> parse_metrics_listener(std::string_view text);

}  // namespace strata::broker

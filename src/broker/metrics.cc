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
      out += f.name + s.suffix;
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
  auto partition_count = family("kafka_server_replicamanager_partitioncount", "gauge",
                                "Partitions with a replica on this broker.");
  auto leader_count = family("kafka_server_replicamanager_leadercount", "gauge", "Partitions this broker leads.");
  auto global_topics = family("kafka_controller_kafkacontroller_globaltopiccount", "gauge",
                              "Topics in the cluster (on the active controller; 0 elsewhere).");
  auto global_partitions = family("kafka_controller_kafkacontroller_globalpartitioncount", "gauge",
                                  "Partitions in the cluster (on the active controller; 0 elsewhere).");
  auto offline = family("kafka_controller_kafkacontroller_offlinepartitionscount", "gauge",
                        "Partitions without a leader (on the active controller; 0 elsewhere).");
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
  partition_count.samples.push_back({{}, double(figures.partitions)});
  leader_count.samples.push_back({{}, double(figures.leaders)});
  global_topics.samples.push_back({{}, double(figures.controller ? figures.global_topics : 0)});
  global_partitions.samples.push_back({{}, double(figures.controller ? figures.global_partitions : 0)});
  offline.samples.push_back({{}, double(figures.controller ? figures.offline_partitions : 0)});
  under.samples.push_back({{}, double(figures.under_replicated)});
  under_min.samples.push_back({{}, double(figures.under_min_isr)});
  compacted.samples.push_back({{}, double(figures.compacted.size())});
  max_ratio.samples.push_back({{}, highest_ratio});
  max_delay.samples.push_back({{}, double(longest_delay_ms)});
  in_progress.samples.push_back({{}, double(cleaning)});
  std::vector<MetricFamily> out;
  for (MetricFamily* f : {&partitions, &partition_count, &leader_count, &global_topics, &global_partitions, &offline,
                          &under, &under_min, &compacted, &max_ratio, &max_delay, &in_progress, &ratio,
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
  figures.controller = snapshot->cluster().controller_id == broker.config().node_id;
  figures.global_topics = snapshot->topics().size();
  for (const auto& t : snapshot->topics()) {
    for (const PartitionMeta& p : t->partitions) {
      ++figures.global_partitions;
      if (p.leader < 0) ++figures.offline_partitions;
      if (p.leader == broker.config().node_id) ++figures.leaders;
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

// ---- The listener setting ----------------------------------------------------------

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

}  // namespace strata::broker

#include "broker/kafka_metrics.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "broker/broker.h"
#include "broker/dispatch.h"
#include "group/coordinator.h"

namespace strata::broker {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

MetricFamily family(const std::string& name, const char* type, const char* help) {
  return MetricFamily{name, type, help, {}};
}

// BrokerTopicMetrics: one counter family per meter, a sample per topic plus the total
// (no topic label), as jmx_exporter renders Kafka's per-topic and all-topics MBeans.
void add_topic_families(const KafkaFigures& f, std::vector<MetricFamily>& out) {
  struct Meter {
    const char* name;
    const char* help;
    uint64_t TrafficFigures::*field;
  };
  static constexpr Meter kMeters[] = {
      {"messagesin", "Records appended by Produce requests (Kafka's MessagesInPerSec).", &TrafficFigures::messages_in},
      {"bytesin", "Record batch bytes appended by Produce requests (BytesInPerSec).", &TrafficFigures::bytes_in},
      {"bytesout", "Record bytes sent to consumers by Fetch (BytesOutPerSec; followers not included).",
       &TrafficFigures::bytes_out},
      {"failedproducerequests", "Partitions of Produce requests answered with an error.",
       &TrafficFigures::failed_produce},
      {"failedfetchrequests", "Partitions of consumer Fetch requests answered with an error.",
       &TrafficFigures::failed_fetch},
      {"totalproducerequests", "Partitions of Produce requests.", &TrafficFigures::produce_requests},
      {"totalfetchrequests", "Partitions of consumer Fetch requests.", &TrafficFigures::fetch_requests},
  };
  for (const Meter& m : kMeters) {
    MetricFamily fam = family(std::string("kafka_server_brokertopicmetrics_") + m.name + "_total", "counter", m.help);
    fam.samples.push_back({{}, double(f.total.*m.field), ""});
    for (const auto& [topic, t] : f.topics) fam.samples.push_back({{{"topic", topic}}, double(t.*m.field), ""});
    out.push_back(std::move(fam));
  }
}

// RequestMetrics: requests per API, and their time as a histogram.
void add_request_families(const KafkaFigures& f, std::vector<MetricFamily>& out) {
  auto requests = family("kafka_network_requestmetrics_requests_total", "counter",
                         "Requests served, by API (Kafka's RequestsPerSec).");
  auto time = family("kafka_network_requestmetrics_totaltimems", "histogram",
                     "Time from a request reaching its handler to its response being ready, ms, by API "
                     "(Kafka's TotalTimeMs, without the network queues).");
  for (const auto& [api, r] : f.requests) {
    requests.samples.push_back({{{"request", api}}, double(r.count), ""});
    for (size_t b = 0; b < kRequestTimeBucketsMs.size(); ++b) {
      time.samples.push_back(
          {{{"request", api}, {"le", format_metric_value(kRequestTimeBucketsMs[b])}}, double(r.buckets[b]), "_bucket"});
    }
    time.samples.push_back({{{"request", api}, {"le", "+Inf"}}, double(r.count), "_bucket"});
    time.samples.push_back({{{"request", api}}, r.sum_ms, "_sum"});
    time.samples.push_back({{{"request", api}}, double(r.count), "_count"});
  }
  out.push_back(std::move(requests));
  out.push_back(std::move(time));
}

void add_log_families(const KafkaFigures& f, std::vector<MetricFamily>& out) {
  auto size = family("kafka_log_log_size", "gauge", "Bytes of the partition's log on this broker (Kafka's Log Size).");
  auto end = family("kafka_log_log_logendoffset", "gauge", "The partition log's end offset (LogEndOffset).");
  auto start = family("kafka_log_log_logstartoffset", "gauge", "The partition log's start offset (LogStartOffset).");
  auto segments = family("kafka_log_log_numlogsegments", "gauge", "Segments of the partition's log (NumLogSegments).");
  for (const LogFigures& l : f.logs) {
    const Labels labels = {{"topic", l.tp.topic}, {"partition", std::to_string(l.tp.partition.value())}};
    size.samples.push_back({labels, double(l.size_bytes), ""});
    end.samples.push_back({labels, double(l.log_end_offset), ""});
    start.samples.push_back({labels, double(l.log_start_offset), ""});
    segments.samples.push_back({labels, double(l.segments), ""});
  }
  for (MetricFamily* m : {&size, &end, &start, &segments}) out.push_back(std::move(*m));
}

struct ShardFigures {
  std::vector<LogFigures> logs;
  std::vector<GroupFigures> groups;
};

// On shard `s`: its partition logs, and the groups of the offsets partitions it holds
// (in a cluster, those this broker leads).
ShardFigures read_shard(Broker& broker, size_t s, const std::vector<storage::TopicPartition>& all,
                        const MetadataSnapshot& snapshot) {
  ShardFigures out;
  for (const storage::TopicPartition& tp : all) {
    if (broker.owner_shard(tp) != s) continue;
    if (const storage::Log* log = broker.logs().get(tp)) {
      out.logs.push_back({tp, log->size_bytes(), log->log_start_offset().value(), log->log_end_offset().value(),
                          log->high_watermark().value(), log->segment_count()});
    }
  }
  if (!snapshot.topic(group::kOffsetsTopic)) return out;
  group::GroupCoordinator& coord = broker.groups();
  for (int32_t p = 0; p < coord.partitions(); ++p) {
    if (broker.offsets_partition_shard(p) != s) continue;
    if (broker.in_cluster() && snapshot.leader(group::kOffsetsTopic, p) != broker.config().node_id) continue;
    for (const group::GroupListing& g : coord.list(p)) {
      GroupFigures f{g.group_id, coord.member_count(g.group_id), {}};
      for (const group::FetchedOffset& o : coord.fetch_offsets(g.group_id, std::nullopt)) {
        if (o.offset >= 0) f.committed.push_back({storage::TopicPartition{o.topic, PartitionId(o.partition)}, o.offset});
      }
      std::sort(f.committed.begin(), f.committed.end());
      out.groups.push_back(std::move(f));
    }
  }
  return out;
}

ShardFigures collect_shards(Broker& broker, int shard_wait_ms) {
  struct Gathered {
    std::mutex mu;
    std::condition_variable done;
    size_t answered = 0;
    ShardFigures figures;
  };
  auto g = std::make_shared<Gathered>();
  auto snapshot = broker.metadata();
  const std::vector<storage::TopicPartition> all = broker.logs().partitions();
  const size_t shards = broker.shard_count();
  for (size_t s = 0; s < shards; ++s) {
    asio::post(broker.shard(s), [&broker, g, all, s, snapshot] {
      ShardFigures mine = read_shard(broker, s, all, *snapshot);
      std::lock_guard lock(g->mu);
      auto& f = g->figures;
      f.logs.insert(f.logs.end(), mine.logs.begin(), mine.logs.end());
      f.groups.insert(f.groups.end(), mine.groups.begin(), mine.groups.end());
      ++g->answered;
      g->done.notify_all();
    });
  }
  std::unique_lock lock(g->mu);
  g->done.wait_for(lock, std::chrono::milliseconds(shard_wait_ms), [&] { return g->answered == shards; });
  ShardFigures out = g->figures;
  std::sort(out.logs.begin(), out.logs.end(), [](const LogFigures& a, const LogFigures& b) { return a.tp < b.tp; });
  std::sort(out.groups.begin(), out.groups.end(),
            [](const GroupFigures& a, const GroupFigures& b) { return a.group < b.group; });
  return out;
}

}  // namespace

std::set<storage::TopicPartition> committed_elsewhere(const KafkaFigures& f) {
  std::set<storage::TopicPartition> here, out;
  for (const LogFigures& l : f.logs) here.insert(l.tp);
  for (const GroupFigures& g : f.groups) {
    for (const auto& [tp, offset] : g.committed) {
      if (!here.contains(tp)) out.insert(tp);
    }
  }
  return out;
}

namespace {

// kafka_exporter's names: each partition's newest and oldest offsets, and each group's
// committed offsets, lag (the high watermark minus the committed offset: from the log
// here, else from the leader's last answer) and members, with per-topic sums.
void add_exporter_families(const KafkaFigures& f, std::vector<MetricFamily>& out) {
  auto newest = family("kafka_topic_partition_current_offset", "gauge",
                       "The partition's high watermark: the newest offset consumers can read.");
  auto oldest = family("kafka_topic_partition_oldest_offset", "gauge", "The partition's log start offset.");
  std::map<storage::TopicPartition, int64_t> hw;
  for (const LogFigures& l : f.logs) {
    const Labels labels = {{"topic", l.tp.topic}, {"partition", std::to_string(l.tp.partition.value())}};
    newest.samples.push_back({labels, double(l.high_watermark), ""});
    oldest.samples.push_back({labels, double(l.log_start_offset), ""});
    hw[l.tp] = l.high_watermark;
  }
  for (const auto& [tp, high] : f.remote_high_watermarks) hw.emplace(tp, high);  // a log here wins
  auto current = family("kafka_consumergroup_current_offset", "gauge", "The group's committed offset of the partition.");
  auto current_sum = family("kafka_consumergroup_current_offset_sum", "gauge", "The group's committed offsets of the topic, summed.");
  auto lag = family("kafka_consumergroup_lag", "gauge", "The partition's high watermark minus the group's committed offset.");
  auto lag_sum = family("kafka_consumergroup_lag_sum", "gauge", "The group's lag over the topic's partitions, summed.");
  auto members = family("kafka_consumergroup_members", "gauge", "Members of the group.");
  for (const GroupFigures& g : f.groups) {
    members.samples.push_back({{{"consumergroup", g.group}}, double(g.members), ""});
    std::map<std::string, std::pair<double, double>> sums;  // topic -> (offsets, lag)
    std::map<std::string, bool> has_lag;
    for (const auto& [tp, offset] : g.committed) {
      const Labels labels = {{"consumergroup", g.group}, {"topic", tp.topic},
                             {"partition", std::to_string(tp.partition.value())}};
      current.samples.push_back({labels, double(offset), ""});
      sums[tp.topic].first += double(offset);
      if (auto it = hw.find(tp); it != hw.end()) {
        const double behind = double(std::max<int64_t>(it->second - offset, 0));
        lag.samples.push_back({labels, behind, ""});
        sums[tp.topic].second += behind;
        has_lag[tp.topic] = true;
      }
    }
    for (const auto& [topic, s] : sums) {
      const Labels labels = {{"consumergroup", g.group}, {"topic", topic}};
      current_sum.samples.push_back({labels, s.first, ""});
      if (has_lag[topic]) lag_sum.samples.push_back({labels, s.second, ""});
    }
  }
  for (MetricFamily* m : {&newest, &oldest, &current, &current_sum, &lag, &lag_sum, &members}) out.push_back(std::move(*m));
}

}  // namespace

std::vector<MetricFamily> kafka_metric_families(const KafkaFigures& f) {
  std::vector<MetricFamily> out;
  add_topic_families(f, out);
  add_request_families(f, out);
  add_log_families(f, out);
  add_exporter_families(f, out);
  auto active = family("kafka_controller_kafkacontroller_activecontrollercount", "gauge",
                       "1 on the broker that is the controller, else 0 (ActiveControllerCount).");
  active.samples.push_back({{}, f.active_controller ? 1.0 : 0.0, ""});
  out.push_back(std::move(active));
  auto rss = family("process_resident_memory_bytes", "gauge", "Resident memory of the broker process.");
  rss.samples.push_back({{}, double(f.process.resident_bytes), ""});
  auto fds = family("process_open_fds", "gauge", "Open file descriptors of the broker process.");
  fds.samples.push_back({{}, double(f.process.open_fds), ""});
  auto cpu = family("process_cpu_seconds_total", "counter", "User and system CPU time of the broker process.");
  cpu.samples.push_back({{}, f.process.cpu_seconds, ""});
  for (MetricFamily* m : {&rss, &fds, &cpu}) out.push_back(std::move(*m));
  auto stalls = family("strata_event_loop_stalls_total", "counter",
                       "Ticks of the shard's 100 ms timer that fired at least 50 ms late: the shard's thread "
                       "was busy (or not scheduled) that long.");
  auto stalled = family("strata_event_loop_stall_seconds_total", "counter", "The lateness of those ticks, summed.");
  auto max_lag = family("strata_event_loop_max_lag_ms", "gauge", "The latest tick of the shard since the broker started.");
  for (size_t s = 0; s < f.loops.size(); ++s) {
    const Labels labels = {{"shard", std::to_string(s)}};
    stalls.samples.push_back({labels, double(f.loops[s].stalls), ""});
    stalled.samples.push_back({labels, f.loops[s].stall_seconds, ""});
    max_lag.samples.push_back({labels, f.loops[s].max_lag_ms, ""});
  }
  for (MetricFamily* m : {&stalls, &stalled, &max_lag}) out.push_back(std::move(*m));
  return out;
}

ProcessFigures process_figures() {
  ProcessFigures p;
  const long page = ::sysconf(_SC_PAGESIZE);
  const long ticks = ::sysconf(_SC_CLK_TCK);
  std::ifstream statm("/proc/self/statm");
  uint64_t pages_total = 0, pages_resident = 0;
  if (statm >> pages_total >> pages_resident) p.resident_bytes = pages_resident * uint64_t(page);
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    ++p.open_fds;
  }
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces
  if (close != std::string::npos && ticks > 0) {
    std::istringstream rest(text.substr(close + 2));
    std::string field;
    uint64_t utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {  // fields 14 and 15: utime, stime
      if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
      if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
    }
    p.cpu_seconds = double(utime + stime) / double(ticks);
  }
  return p;
}

KafkaFigures collect_kafka_figures(Broker& broker, int shard_wait_ms) {
  KafkaFigures f;
  auto snapshot = broker.metadata();
  const auto traffic = broker.traffic().topics();
  for (const auto& t : snapshot->topics()) {
    auto it = traffic.find(t->name);
    f.topics[t->name] = it == traffic.end() ? TrafficFigures{} : it->second;
  }
  f.total = broker.traffic().total();
  for (const auto& [key, r] : broker.traffic().requests()) {
    const ApiEntry* api = find_api(key);
    f.requests[api ? api->name : "ApiKey" + std::to_string(key)] = r;
  }
  ShardFigures shards = collect_shards(broker, shard_wait_ms);
  f.logs = std::move(shards.logs);
  f.groups = std::move(shards.groups);
  f.process = process_figures();
  f.active_controller = snapshot->cluster().controller_id == broker.config().node_id;
  if (const LoopWatch* w = broker.loop_watch()) f.loops = w->figures();
  return f;
}

}  // namespace strata::broker

// strata_perf: a produce/consume load tool on librdkafka, in the spirit of Kafka's
// kafka-producer-perf-test and kafka-consumer-perf-test (issue 4).
//
//   strata_perf produce (--bootstrap HOST:PORT | --mock) --topic T --records N
//               --record-size B --acks all|1|0 --linger-ms L --compression none|gzip|...
//               --partitions P [--throughput R] [--max-seconds S] [--set key=value ...]
//   strata_perf consume (--bootstrap HOST:PORT | --mock) --topic T --records N ...
//
// --mock runs against librdkafka's in-memory mock cluster (rd_kafka_mock_cluster_new, one
// broker) in this process; a mock consume first fills the topic (untimed), since the
// mock's data lives only as long as the process. The mock keeps only the last 5 MiB (or
// 100,000 batches) of each partition, so a mock consume of more than that ends early.
//
// produce: sends N records of B bytes (one random-letter payload, null keys) as fast as
// the client queue allows (or at R records/s), and measures each record's latency from
// rd_kafka_produce to its delivery report, as the Java tool measures send() to callback:
// client queueing included. Throughput counts delivered records over first send to
// last report. consume: starts every partition from the beginning with the simple
// (group-less) consumer and reads N records; throughput over start to the last batch.
//
// Output: a readable summary, then one "RESULT key=value ..." line for scripts, with the
// process's CPU seconds (cpu_s; the mock's included) so a script can count CPU per MB.
// Bounds: N <= kRecordsMax, B <= kRecordSizeMax, and every phase ends after
// --max-seconds (default 30); a flush gets at most kFlushSecondsMax more.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kRecordsMax = 50'000'000;
constexpr int64_t kRecordSizeMax = 1 << 20;
constexpr int kPartitionsMax = 10000;
constexpr double kFlushSecondsMax = 30;
// Creating thousands of partitions makes their files and fsyncs their checkpoints: 0.7-7 s
// for 6,000 on this machine, depending on what else the disk is doing.
constexpr int kAdminTimeoutMs = 60000;

struct Options {
  std::string mode;  // produce | consume
  std::string bootstrap;
  bool mock = false;
  std::string topic = "strata-perf";
  int64_t records = 100000;
  int64_t record_size = 100;
  std::string acks = "all";
  int linger_ms = 5;
  std::string compression = "none";
  int partitions = 1;
  int64_t throughput = -1;  // records/s; -1 unlimited
  double max_seconds = 30;
  std::map<std::string, std::string> extra;  // --set key=value
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "strata_perf: %s\n", what.c_str());
  std::exit(2);
}

void usage() {
  std::fprintf(stderr,
               "usage: strata_perf produce|consume (--bootstrap HOST:PORT | --mock)\n"
               "  [--topic T] [--records N] [--record-size B] [--acks all|1|0]\n"
               "  [--linger-ms L] [--compression none|gzip|snappy|lz4|zstd]\n"
               "  [--partitions P] [--throughput R] [--max-seconds S] [--set key=value]\n");
  std::exit(2);
}

int64_t to_int(const std::string& flag, const std::string& v, int64_t lo, int64_t hi) {
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < lo || n > hi) {
    die(flag + " wants an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
        "], got '" + v + "'");
  }
  return n;
}

Options parse(int argc, char** argv) {
  if (argc < 2) usage();
  Options o;
  o.mode = argv[1];
  if (o.mode != "produce" && o.mode != "consume") usage();
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--mock") {
      o.mock = true;
      continue;
    }
    if (i + 1 >= argc) usage();
    const std::string v = argv[++i];
    if (flag == "--bootstrap") o.bootstrap = v;
    else if (flag == "--topic") o.topic = v;
    else if (flag == "--records") o.records = to_int(flag, v, 1, kRecordsMax);
    else if (flag == "--record-size") o.record_size = to_int(flag, v, 0, kRecordSizeMax);
    else if (flag == "--acks") o.acks = v;
    else if (flag == "--linger-ms") o.linger_ms = int(to_int(flag, v, 0, 900000));
    else if (flag == "--compression") o.compression = v;
    else if (flag == "--partitions") o.partitions = int(to_int(flag, v, 1, kPartitionsMax));
    else if (flag == "--throughput") o.throughput = to_int(flag, v, -1, kRecordsMax);
    else if (flag == "--max-seconds") o.max_seconds = double(to_int(flag, v, 1, 3600));
    else if (flag == "--set") {
      const auto eq = v.find('=');
      if (eq == std::string::npos) die("--set wants key=value");
      o.extra[v.substr(0, eq)] = v.substr(eq + 1);
    } else {
      usage();
    }
  }
  if (o.mock == !o.bootstrap.empty()) die("give exactly one of --bootstrap and --mock");
  if (o.acks != "all" && o.acks != "-1" && o.acks != "1" && o.acks != "0") {
    die("--acks wants all, -1, 1 or 0");
  }
  return o;
}

void set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value) {
  char err[512];
  if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err) !=
      RD_KAFKA_CONF_OK) {
    die("config " + key + "=" + value + ": " + err);
  }
}

// The mock cluster lives inside an rd_kafka_t of its own (rdkafka_mock.h): that handle
// owns the mock's thread and must outlive every client that talks to it.
struct Mock {
  rd_kafka_t* owner = nullptr;
  rd_kafka_mock_cluster_t* cluster = nullptr;

  void start(const Options& o) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    set(conf, "log_level", "3");
    char err[512];
    owner = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (owner == nullptr) die(std::string("mock owner: ") + err);
    cluster = rd_kafka_mock_cluster_new(owner, 1);
    if (cluster == nullptr) die("rd_kafka_mock_cluster_new failed");
    if (rd_kafka_mock_topic_create(cluster, o.topic.c_str(), o.partitions, 1) !=
        RD_KAFKA_RESP_ERR_NO_ERROR) {
      die("mock topic create failed");
    }
  }
  std::string bootstrap() const { return rd_kafka_mock_cluster_bootstraps(cluster); }
  ~Mock() {
    if (cluster != nullptr) rd_kafka_mock_cluster_destroy(cluster);
    if (owner != nullptr) rd_kafka_destroy(owner);
  }
};

// Creates the topic with P partitions on a real broker; one that exists is fine.
void create_topic(rd_kafka_t* rk, const Options& o) {
  char err[512];
  rd_kafka_NewTopic_t* nt =
      rd_kafka_NewTopic_new(o.topic.c_str(), o.partitions, 1, err, sizeof err);
  if (nt == nullptr) die(std::string("NewTopic: ") + err);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &nt, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, kAdminTimeoutMs);
  if (ev == nullptr) die("CreateTopics timed out");
  const rd_kafka_CreateTopics_result_t* res = rd_kafka_event_CreateTopics_result(ev);
  size_t n = 0;
  const rd_kafka_topic_result_t** topics = res ? rd_kafka_CreateTopics_result_topics(res, &n)
                                               : nullptr;
  if (rd_kafka_event_error(ev) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    die(std::string("CreateTopics: ") + rd_kafka_event_error_string(ev));
  }
  for (size_t i = 0; i < n; ++i) {
    const rd_kafka_resp_err_t e = rd_kafka_topic_result_error(topics[i]);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      die(std::string("CreateTopics: ") + rd_kafka_err2str(e));
    }
  }
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(nt);
}

// CPU seconds (user + system) of this whole process so far: every librdkafka thread,
// and with --mock the mock broker's thread too.
double process_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// ---- produce ----

struct ProduceState {
  std::vector<int64_t> send_ns;   // by record index
  std::vector<uint32_t> latency_us;
  int64_t delivered = 0;
  int64_t failed = 0;
  rd_kafka_resp_err_t first_error = RD_KAFKA_RESP_ERR_NO_ERROR;
  Clock::time_point last_report;
  Clock::time_point epoch;
};

int64_t ns_since(Clock::time_point epoch) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - epoch).count();
}

// Runs on the thread that calls rd_kafka_poll/flush (this program's only thread).
void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* s = static_cast<ProduceState*>(opaque);
  const auto index = size_t(reinterpret_cast<uintptr_t>(m->_private));
  s->last_report = Clock::now();
  if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    if (s->failed++ == 0) s->first_error = m->err;
    return;
  }
  ++s->delivered;
  const int64_t us = (ns_since(s->epoch) - s->send_ns[index]) / 1000;
  s->latency_us.push_back(uint32_t(std::clamp<int64_t>(us, 0, UINT32_MAX)));
}

rd_kafka_t* new_producer(const Options& o, const std::string& bootstrap, ProduceState* state) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "acks", o.acks);
  set(conf, "linger.ms", std::to_string(o.linger_ms));
  set(conf, "compression.type", o.compression);
  set(conf, "log_level", "3");
  for (const auto& [k, v] : o.extra) set(conf, k, v);
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_conf_set_opaque(conf, state);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (rk == nullptr) die(std::string("producer: ") + err);
  return rk;
}

double percentile_ms(std::vector<uint32_t>& sorted_us, double p) {
  if (sorted_us.empty()) return 0;
  size_t rank = size_t(p * double(sorted_us.size()));
  rank = std::min(rank, sorted_us.size() - 1);
  return sorted_us[rank] / 1000.0;
}

std::string payload(int64_t size) {
  std::mt19937 rng(42);
  std::string p(size_t(size), 'A');
  for (char& c : p) c = char('A' + rng() % 26);
  return p;
}

struct ProduceResult {
  int64_t sent = 0;
  int64_t delivered = 0;
  int64_t failed = 0;
  double seconds = 0;
  std::vector<uint32_t> latency_us;
  rd_kafka_resp_err_t first_error = RD_KAFKA_RESP_ERR_NO_ERROR;
};

// Sends o.records records (or until max_seconds), then flushes.
ProduceResult run_produce(const Options& o, const std::string& bootstrap) {
  ProduceState state;
  state.send_ns.resize(size_t(o.records));
  state.latency_us.reserve(size_t(o.records));
  rd_kafka_t* rk = new_producer(o, bootstrap, &state);
  if (!o.mock) create_topic(rk, o);
  rd_kafka_topic_t* topic = rd_kafka_topic_new(rk, o.topic.c_str(), nullptr);
  const std::string value = payload(o.record_size);

  const Clock::time_point start = Clock::now();
  state.epoch = start;
  state.last_report = start;
  const auto deadline = start + std::chrono::duration<double>(o.max_seconds);
  ProduceResult r;
  for (int64_t i = 0; i < o.records && Clock::now() < deadline; ++i) {
    if (o.throughput > 0) {
      // Paced like the Java tool's throttler: sleep (serving delivery reports) until this
      // record is due, in whole milliseconds, so records leave in small bursts and the
      // client never spins on a core the broker could use.
      const auto due = start + std::chrono::duration<double>(double(i) / double(o.throughput));
      for (auto now = Clock::now(); now < due; now = Clock::now()) {
        const auto wait = std::chrono::ceil<std::chrono::milliseconds>(due - now);
        rd_kafka_poll(rk, int(wait.count()));
      }
    }
    bool queued = false;
    while (!queued && Clock::now() < deadline) {
      state.send_ns[size_t(i)] = ns_since(start);
      queued = rd_kafka_produce(topic, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY,
                                const_cast<char*>(value.data()), value.size(), nullptr, 0,
                                reinterpret_cast<void*>(uintptr_t(i))) == 0;
      if (queued) break;
      if (rd_kafka_last_error() != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        die(std::string("produce: ") + rd_kafka_err2str(rd_kafka_last_error()));
      }
      rd_kafka_poll(rk, 1);  // the queue is full: serve delivery reports
    }
    if (!queued) break;
    r.sent = i + 1;
    rd_kafka_poll(rk, 0);
  }
  const auto flush_ms = int(kFlushSecondsMax * 1000);
  rd_kafka_flush(rk, flush_ms);
  r.seconds = std::chrono::duration<double>(state.last_report - start).count();
  r.delivered = state.delivered;
  r.failed = state.failed;
  r.first_error = state.first_error;
  r.latency_us = std::move(state.latency_us);
  rd_kafka_topic_destroy(topic);
  rd_kafka_destroy(rk);
  return r;
}

int produce(const Options& o, const std::string& bootstrap, const char* target) {
  ProduceResult r = run_produce(o, bootstrap);
  std::sort(r.latency_us.begin(), r.latency_us.end());
  double avg_ms = 0;
  for (uint32_t us : r.latency_us) avg_ms += us / 1000.0;
  if (!r.latency_us.empty()) avg_ms /= double(r.latency_us.size());
  const double secs = std::max(r.seconds, 1e-9);
  const double rps = double(r.delivered) / secs;
  const double mbps = rps * double(o.record_size) / 1e6;
  const double p50 = percentile_ms(r.latency_us, 0.50);
  const double p99 = percentile_ms(r.latency_us, 0.99);
  const double p999 = percentile_ms(r.latency_us, 0.999);
  const double max_ms = r.latency_us.empty() ? 0 : r.latency_us.back() / 1000.0;
  std::printf("%lld records sent, %lld delivered, %lld failed%s%s; %.1f records/sec (%.2f MB/sec), "
              "%.2f ms avg latency, %.2f ms max latency, %.2f ms 50th, %.2f ms 99th, "
              "%.2f ms 99.9th.\n",
              (long long)r.sent, (long long)r.delivered, (long long)r.failed,
              r.failed ? " (first: " : "", r.failed ? rd_kafka_err2str(r.first_error) : "",
              rps, mbps, avg_ms, max_ms, p50, p99, p999);
  std::printf("RESULT mode=produce target=%s records=%lld size=%lld acks=%s linger_ms=%d "
              "compression=%s partitions=%d delivered=%lld failed=%lld seconds=%.3f "
              "records_per_s=%.1f mb_per_s=%.3f p50_ms=%.3f p99_ms=%.3f p999_ms=%.3f "
              "max_ms=%.3f cpu_s=%.3f\n",
              target, (long long)o.records, (long long)o.record_size, o.acks.c_str(),
              o.linger_ms, o.compression.c_str(), o.partitions, (long long)r.delivered,
              (long long)r.failed, r.seconds, rps, mbps, p50, p99, p999, max_ms,
              process_cpu_s());
  return r.failed == 0 && r.delivered == o.records ? 0 : 1;
}

// ---- consume ----

int consume(const Options& o, const std::string& bootstrap, const char* target) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "enable.partition.eof", "true");
  set(conf, "log_level", "3");
  for (const auto& [k, v] : o.extra) set(conf, k, v);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (rk == nullptr) die(std::string("consumer: ") + err);

  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_topic_t* topic = rd_kafka_topic_new(rk, o.topic.c_str(), nullptr);
  if (rd_kafka_metadata(rk, 0, topic, &md, kAdminTimeoutMs) != RD_KAFKA_RESP_ERR_NO_ERROR ||
      md->topic_cnt != 1 || md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    die("no metadata for topic " + o.topic);
  }
  const int partitions = md->topics[0].partition_cnt;
  rd_kafka_metadata_destroy(md);

  // The simple (group-less) consumer: every partition from the beginning, one queue.
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
  const Clock::time_point start = Clock::now();
  for (int p = 0; p < partitions; ++p) {
    if (rd_kafka_consume_start_queue(topic, p, RD_KAFKA_OFFSET_BEGINNING, queue) != 0) {
      die(std::string("consume_start: ") + rd_kafka_err2str(rd_kafka_last_error()));
    }
  }
  constexpr size_t kPollBatch = 1000;
  std::vector<rd_kafka_message_t*> batch(kPollBatch);
  int64_t records = 0;
  int64_t bytes = 0;
  int eofs = 0;
  int64_t errors = 0;
  Clock::time_point last = start;
  const auto deadline = start + std::chrono::duration<double>(o.max_seconds);
  while (records < o.records && eofs < partitions && Clock::now() < deadline) {
    const ssize_t n = rd_kafka_consume_batch_queue(queue, 100, batch.data(), kPollBatch);
    for (ssize_t i = 0; i < n; ++i) {
      rd_kafka_message_t* m = batch[size_t(i)];
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        ++eofs;
      } else if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (errors++ == 0) std::fprintf(stderr, "consume: %s\n", rd_kafka_message_errstr(m));
      } else {
        ++records;
        bytes += int64_t(m->len);
      }
      rd_kafka_message_destroy(m);
    }
    if (n > 0) last = Clock::now();
  }
  const double secs = std::max(std::chrono::duration<double>(last - start).count(), 1e-9);
  for (int p = 0; p < partitions; ++p) rd_kafka_consume_stop(topic, p);
  rd_kafka_queue_destroy(queue);
  rd_kafka_topic_destroy(topic);
  rd_kafka_destroy(rk);
  const double rps = double(records) / secs;
  const double mbps = double(bytes) / secs / 1e6;
  std::printf("%lld records consumed (%.1f MB) in %.3f s: %.1f records/sec (%.2f MB/sec), "
              "%lld errors.\n",
              (long long)records, double(bytes) / 1e6, secs, rps, mbps, (long long)errors);
  std::printf("RESULT mode=consume target=%s records=%lld consumed=%lld errors=%lld "
              "seconds=%.3f records_per_s=%.1f mb_per_s=%.3f cpu_s=%.3f\n",
              target, (long long)o.records, (long long)records, (long long)errors, secs, rps,
              mbps, process_cpu_s());
  return records == o.records && errors == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Mock mock;
  std::string bootstrap = o.bootstrap;
  const char* target = "broker";
  if (o.mock) {
    mock.start(o);
    bootstrap = mock.bootstrap();
    target = "mock";
  }
  if (o.mode == "produce") return produce(o, bootstrap, target);
  if (o.mock) {
    // The mock's log is in this process: fill it first (untimed, not reported).
    Options fill = o;
    fill.acks = "1";
    if (run_produce(fill, bootstrap).delivered != o.records) die("mock fill failed");
  }
  return consume(o, bootstrap, target);
}

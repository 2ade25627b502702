#include "tools/perf_command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include "tools/rdkafka_client.h"

namespace strata::tools {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// kafka-consumer-perf-test's default --date-format, yyyy-MM-dd HH:mm:ss:SSS, local time.
std::string date(int64_t ms) {
  const std::time_t s = std::time_t(ms / 1000);
  std::tm tm{};
  localtime_r(&s, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
  return fmt::format("{}:{:03d}", text, int(ms % 1000));
}

// ---- produce: Kafka's ProducerPerformance.Stats

class Stats {
 public:
  Stats(int64_t records, std::ostream& out) : out_(out), start_(now_ms()), window_start_(start_) {
    sampling_ = std::max<int64_t>(1, records / std::min<int64_t>(std::max<int64_t>(records, 1), 500000));
    samples_.reserve(size_t(records / sampling_ + 1));
  }

  void record(int64_t latency_ms, int64_t bytes) {
    ++count_;
    bytes_ += bytes;
    total_latency_ += latency_ms;
    max_latency_ = std::max(max_latency_, latency_ms);
    ++window_count_;
    window_bytes_ += bytes;
    window_total_latency_ += latency_ms;
    window_max_latency_ = std::max(window_max_latency_, latency_ms);
    if (iteration_++ % sampling_ == 0) samples_.push_back(int32_t(latency_ms));
    const int64_t now = now_ms();
    if (now - window_start_ >= 5000) {
      print_window(now);
      window_start_ = now;
      window_count_ = window_bytes_ = window_total_latency_ = window_max_latency_ = 0;
    }
  }

  void print_total() {
    const double elapsed = double(std::max<int64_t>(now_ms() - start_, 1));
    std::sort(samples_.begin(), samples_.end());
    auto at = [this](double p) { return samples_.empty() ? 0 : samples_[size_t(p * double(samples_.size()))]; };
    out_ << fmt::format(
        "{} records sent, {:.1f} records/sec ({:.2f} MB/sec), {:.2f} ms avg latency, {:.2f} ms max latency, "
        "{} ms 50th, {} ms 95th, {} ms 99th, {} ms 99.9th.\n",
        count_, 1000.0 * double(count_) / elapsed, 1000.0 * double(bytes_) / elapsed / kMiB,
        count_ ? double(total_latency_) / double(count_) : 0.0, double(max_latency_), at(0.5), at(0.95), at(0.99),
        at(0.999));
  }

 private:
  void print_window(int64_t now) {
    const double elapsed = double(std::max<int64_t>(now - window_start_, 1));
    out_ << fmt::format("{} records sent, {:.1f} records/sec ({:.2f} MB/sec), {:.1f} ms avg latency, {:.1f} ms max "
                        "latency.\n",
                        window_count_, 1000.0 * double(window_count_) / elapsed,
                        1000.0 * double(window_bytes_) / elapsed / kMiB,
                        double(window_total_latency_) / double(std::max<int64_t>(window_count_, 1)),
                        double(window_max_latency_));
    out_.flush();
  }

  std::ostream& out_;
  const int64_t start_;
  int64_t window_start_;
  int64_t sampling_ = 1, iteration_ = 0;
  int64_t count_ = 0, bytes_ = 0, total_latency_ = 0, max_latency_ = 0;
  int64_t window_count_ = 0, window_bytes_ = 0, window_total_latency_ = 0, window_max_latency_ = 0;
  std::vector<int32_t> samples_;
};

struct ProduceRun {
  Stats* stats = nullptr;
  int64_t failed = 0;
  std::string first_error;
};

// The opaque of each record is its send time (steady clock, microseconds).
void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* run = static_cast<ProduceRun*>(opaque);
  if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    if (run->failed++ == 0) run->first_error = rd_kafka_err2str(m->err);
    return;
  }
  const auto sent = reinterpret_cast<intptr_t>(m->_private);
  run->stats->record((now_us() - int64_t(sent)) / 1000, int64_t(m->len));
}

Result<std::vector<std::string>, std::string> payloads(const PerfArgs& a) {
  std::vector<std::string> out;
  if (!a.payload_file.empty()) {
    std::ifstream in(a.payload_file, std::ios::binary);
    if (!in) return fail("cannot read " + a.payload_file);
    std::stringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    size_t from = 0;
    while (from < all.size()) {
      size_t end = all.find(a.payload_delimiter, from);
      if (end == std::string::npos) end = all.size();
      if (end > from) out.push_back(all.substr(from, end - from));
      from = end + a.payload_delimiter.size();
    }
    if (out.empty()) return fail("File does not contain any payloads: " + a.payload_file);
    return out;
  }
  std::mt19937 random(0);
  std::string payload(size_t(a.record_size), 'A');
  for (char& c : payload) c = char('A' + random() % 26);
  out.push_back(std::move(payload));
  return out;
}

int run_produce_perf(const PerfArgs& a, std::ostream& out, std::ostream& err) {
  if ((a.record_size > 0) == !a.payload_file.empty()) {
    err << "Exactly one of --record-size or --payload-file must be specified\n";
    return 1;
  }
  auto java = client_properties(a.producer_config, a.command_config, a.producer_props);
  if (!java) {
    err << "ERROR " << java.error() << "\n";
    return 1;
  }
  if (!a.bootstrap_server.empty()) (*java)["bootstrap.servers"] = a.bootstrap_server;
  if (java->count("bootstrap.servers") == 0) {
    err << "Either --producer-props bootstrap.servers=... , --producer.config or --bootstrap-server must be given\n";
    return 1;
  }
  java->try_emplace("client.id", "perf-producer-client");
  auto bodies = payloads(a);
  if (!bodies) {
    err << "ERROR " << bodies.error() << "\n";
    return 1;
  }
  Stats stats(a.num_records, out);
  ProduceRun run{&stats};
  RdKafka rk = make_client(RD_KAFKA_PRODUCER, *java, err, [&run](rd_kafka_conf_t* conf) {
    rd_kafka_conf_set_opaque(conf, &run);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  });
  if (!rk) return 1;
  std::mt19937 pick(1);
  const int64_t start = now_us();
  for (int64_t i = 0; i < a.num_records; ++i) {
    std::string& body = (*bodies)[bodies->size() == 1 ? 0 : pick() % bodies->size()];
    for (;;) {
      const intptr_t sent = intptr_t(now_us());
      const rd_kafka_resp_err_t e = rd_kafka_producev(
          rk.get(), RD_KAFKA_V_TOPIC(a.topic.c_str()), RD_KAFKA_V_VALUE(body.data(), body.size()),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(reinterpret_cast<void*>(sent)), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        err << "ERROR " << rd_kafka_err2str(e) << "\n";
        return 1;
      }
      rd_kafka_poll(rk.get(), 10);
    }
    rd_kafka_poll(rk.get(), 0);
    if (a.throughput > 0) {  // Kafka's ThroughputThrottler: no faster than the target
      const int64_t due = start + int64_t(double(i + 1) * 1e6 / a.throughput);
      while (now_us() < due) rd_kafka_poll(rk.get(), int(std::max<int64_t>(1, (due - now_us()) / 1000)));
    }
  }
  while (rd_kafka_outq_len(rk.get()) > 0) rd_kafka_poll(rk.get(), 100);
  stats.print_total();
  if (run.failed > 0) {
    err << run.failed << " records failed; the first: " << run.first_error << "\n";
    return 1;
  }
  return 0;
}

// ---- consume: Kafka's ConsumerPerformance

struct ConsumeRun {
  int64_t join_start = 0;
  int64_t join_ms = 0;  // time spent in rebalances
};

void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t e, rd_kafka_topic_partition_list_t* parts, void* opaque) {
  auto* run = static_cast<ConsumeRun*>(opaque);
  if (e == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    run->join_ms += now_ms() - run->join_start;
    rd_kafka_assign(rk, parts);
  } else {
    run->join_start = now_ms();
    rd_kafka_assign(rk, nullptr);
  }
}

int run_consume_perf(const PerfArgs& a, std::ostream& out, std::ostream& err) {
  auto java = client_properties(a.consumer_config, a.command_config, {});
  if (!java) {
    err << "ERROR " << java.error() << "\n";
    return 1;
  }
  if (!a.bootstrap_server.empty()) (*java)["bootstrap.servers"] = a.bootstrap_server;
  (*java)["group.id"] = a.group.empty() ? "perf-consumer-" + std::to_string(std::random_device{}() % 100000) : a.group;
  java->try_emplace("client.id", "perf-consumer-client");
  java->try_emplace("auto.offset.reset", a.from_latest ? "latest" : "earliest");
  java->try_emplace("max.partition.fetch.bytes", std::to_string(a.fetch_size));
  java->try_emplace("check.crcs", "false");
  ConsumeRun run;
  RdKafka rk = make_client(RD_KAFKA_CONSUMER, *java, err, [&run](rd_kafka_conf_t* conf) {
    rd_kafka_conf_set_opaque(conf, &run);
    rd_kafka_conf_set_rebalance_cb(conf, on_rebalance);
  });
  if (!rk) return 1;
  rd_kafka_poll_set_consumer(rk.get());
  if (!a.hide_header) {
    out << (a.show_detailed_stats ? "time, threadId" : "start.time, end.time")
        << ", data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, "
           "fetch.MB.sec, fetch.nMsg.sec\n";
  }
  const int64_t start = now_ms();
  run.join_start = start;
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, a.topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(rk.get(), list);
  rd_kafka_topic_partition_list_destroy(list);
  int64_t count = 0, bytes = 0, last = now_ms();
  int64_t report_at = start, report_count = 0, report_bytes = 0, report_join = 0;
  while (count < a.messages && now_ms() - last <= a.timeout_ms) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk.get(), 100);
    if (m != nullptr) {
      if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        ++count;
        bytes += int64_t(m->len + m->key_len);
        last = now_ms();
      }
      rd_kafka_message_destroy(m);
    }
    const int64_t now = now_ms();
    if (a.show_detailed_stats && now - report_at >= a.reporting_interval_ms) {
      const double secs = double(now - report_at) / 1000.0;
      const int64_t join = run.join_ms - report_join;
      const double fetch_secs = double(now - report_at - join) / 1000.0;
      const double mb = double(bytes - report_bytes) / kMiB;
      out << fmt::format("{}, 0, {:.4f}, {:.4f}, {}, {:.4f}, {}, {}, {:.4f}, {:.4f}\n", date(now), double(bytes) / kMiB,
                         mb / secs, count, double(count - report_count) / secs, join, now - report_at - join,
                         fetch_secs > 0 ? mb / fetch_secs : 0.0,
                         fetch_secs > 0 ? double(count - report_count) / fetch_secs : 0.0);
      report_at = now;
      report_count = count;
      report_bytes = bytes;
      report_join = run.join_ms;
    }
  }
  const int64_t end = now_ms();
  rd_kafka_consumer_close(rk.get());
  if (count < a.messages) {
    err << "WARNING: Exiting before consuming the expected number of messages: timeout (" << a.timeout_ms
        << " ms) exceeded. You can use the --timeout option to increase the timeout.\n";
  }
  if (!a.show_detailed_stats) {
    const double secs = double(std::max<int64_t>(end - start, 1)) / 1000.0;
    const int64_t fetch_ms = end - start - run.join_ms;
    const double fetch_secs = double(fetch_ms) / 1000.0;
    const double mb = double(bytes) / kMiB;
    out << fmt::format("{}, {}, {:.4f}, {:.4f}, {}, {:.4f}, {}, {}, {:.4f}, {:.4f}\n", date(start), date(end), mb,
                       mb / secs, count, double(count) / secs, run.join_ms, fetch_ms,
                       fetch_secs > 0 ? mb / fetch_secs : 0.0, fetch_secs > 0 ? double(count) / fetch_secs : 0.0);
  }
  return 0;
}

}  // namespace

void add_perf_command(CLI::App& app, PerfArgs& a) {
  CLI::App* perf = app.add_subcommand("perf", "Load tests: kafka-producer-perf-test / kafka-consumer-perf-test");
  perf->require_subcommand(1);
  CLI::App* p = perf->add_subcommand("produce", "Send records as fast as asked, with latencies");
  p->add_option("--topic", a.topic, "The topic")->required();
  p->add_option("--num-records", a.num_records, "How many records")->required()->check(CLI::PositiveNumber);
  p->add_option("--record-size", a.record_size, "Bytes per record")->check(CLI::PositiveNumber);
  p->add_option("--payload-file", a.payload_file, "Payloads to pick from at random")->check(CLI::ExistingFile);
  p->add_option("--payload-delimiter", a.payload_delimiter, "Between the file's payloads (default \\n)");
  p->add_option("--throughput", a.throughput, "At most this many records/s; -1: no limit")->required();
  p->add_option("--producer-props", a.producer_props, "Producer settings k=v ...");
  p->add_option("--producer.config", a.producer_config, "Producer properties file")->check(CLI::ExistingFile);
  p->add_option("--command-config", a.command_config, "Client properties file")->check(CLI::ExistingFile);
  p->add_option("--bootstrap-server", a.bootstrap_server, "HOST:PORT[,...] (or bootstrap.servers in the props)");
  p->callback([&a] { a.action = PerfArgs::Action::kProduce; });
  CLI::App* c = perf->add_subcommand("consume", "Read records through a group as fast as possible");
  c->add_option("--topic", a.topic, "The topic")->required();
  c->add_option("--messages", a.messages, "How many records to read")->required()->check(CLI::PositiveNumber);
  c->add_option("--bootstrap-server", a.bootstrap_server, "HOST:PORT[,...]");
  c->add_option("--group", a.group, "Consumer group (default perf-consumer-<random>)");
  c->add_flag("--from-latest", a.from_latest, "Start at the end when the group has no offsets");
  c->add_option("--timeout", a.timeout_ms, "Give up after this many ms without a record (default 10000)");
  c->add_flag("--show-detailed-stats", a.show_detailed_stats, "A line every --reporting-interval");
  c->add_option("--reporting-interval", a.reporting_interval_ms, "ms between detailed lines (default 5000)")
      ->check(CLI::PositiveNumber);
  c->add_flag("--hide-header", a.hide_header, "No header line");
  c->add_option("--fetch-size", a.fetch_size, "max.partition.fetch.bytes (default 1048576)");
  c->add_option("--consumer.config", a.consumer_config, "Consumer properties file")->check(CLI::ExistingFile);
  c->add_option("--command-config", a.command_config, "Client properties file")->check(CLI::ExistingFile);
  c->callback([&a] { a.action = PerfArgs::Action::kConsume; });
}

int run_perf(const PerfArgs& a, std::ostream& out, std::ostream& err) {
  if (a.action == PerfArgs::Action::kProduce) return run_produce_perf(a, out, err);
  return run_consume_perf(a, out, err);
}

}  // namespace strata::tools

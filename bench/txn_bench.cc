// txn_bench: transactions per second for small transactions (issue 6), against a Strata
// broker and against librdkafka's mock cluster in the same invocation, repetition by
// repetition.
//
//   txn_bench (--strata PATH | --bootstrap HOST:PORT) [--no-mock] [--repeat R]
//             [--seconds D] [--only single|multi|offsets] [--debug CONTEXTS]
//
// --strata starts `PATH broker` on a fresh data dir under $TMPDIR (default /tmp) and a free
// port, and stops it with SIGTERM at the end. The mock is rd_kafka_mock_cluster_new with
// one broker, in memory, in this process.
//
// One transactional producer (transactional.id fresh per run, acks=all) runs back-to-back
// transactions on one thread for D seconds, after an untimed init_transactions and
// kWarmupTxns untimed transactions. Each transaction is begin_transaction, the records
// (rd_kafka_producev), rd_kafka_flush (all delivered), commit_transaction:
//   single:  1 record of 100 B, to a 1-partition topic;
//   multi:   10 records of 100 B, round-robin over a 3-partition topic;
//   offsets: 1 record of 100 B, then send_offsets_to_transaction of one offset (of a
//            1-partition input topic, rising by one per transaction) for a group with no
//            members: the producer's half of consume-transform-produce, with no consumer.
// Latencies: the transaction (begin to commit returned), its records (begin to flushed,
// with send_offsets_to_transaction for `offsets`: AddPartitionsToTxn, Produce, and
// AddOffsetsToTxn + TxnOffsetCommit), and commit_transaction (EndTxn). "Slow" is the
// share of transactions whose records took >= 20 ms, librdkafka's retry delay after a
// CONCURRENT_TRANSACTIONS answer (the coordinator is still completing the previous
// transaction): on Strata those are the transactions that waited for such a retry (a
// --debug eos run shows them).
//
// Strata is durable: acks=all Produce, the __transaction_state writes (AddPartitionsToTxn,
// AddOffsetsToTxn, EndTxn's prepare, the completion), each partition's marker and the
// TxnOffsetCommit are each fdatasync'ed before they count as done. The mock keeps
// everything in memory, writes no markers and keeps no transaction state (it only checks
// the producer id and epoch). With --strata every run reports the broker's CPU seconds and
// fdatasync calls per transaction (a perf tracepoint per broker thread; left out without
// tracefs and perf_event access), and each repetition first times 200-byte appends +
// fdatasync in the broker's data dir: the floor under one durable write on that disk.
//
// Output: one line per run, a "RESULT key=value ..." line per run for scripts, then a
// summary: median [min-max] over the repetitions, and Strata/mock ratios per repetition.
// --debug sets the producers' librdkafka `debug` (e.g. eos,protocol) to see where a
// transaction's time goes; it costs CPU, so not for the numbers.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench_targets.h"

namespace {

using namespace strata_bench;

constexpr int kRepeatMax = 100;
constexpr int kWarmupTxns = 5;
constexpr size_t kTxnsMax = 2'000'000;  // per run; bounds the latency vectors
constexpr int kTxnTimeoutMs = 30000;    // every librdkafka call that takes a timeout
constexpr int kRecordBytes = 100;
// librdkafka waits this long before it retries an AddPartitionsToTxn answered with
// CONCURRENT_TRANSACTIONS (the previous transaction is still being completed), and
// retry.backoff.ms (100) for AddOffsetsToTxn. Transactions whose records took at least
// this long are counted as "slow".
constexpr double kSlowRecordsMs = 20;

struct Options {
  std::string strata;     // path of the strata binary to start, or
  std::string bootstrap;  // HOST:PORT of a running broker
  bool no_mock = false;
  std::string only;  // "", or a variant's name
  int repeat = 3;
  double seconds = 5;
  std::string debug;  // librdkafka debug contexts of the producers
};

struct Variant {
  const char* name;
  const char* label;
  int records;     // per transaction
  int partitions;  // of the topic; record i goes to partition i % partitions
  bool offsets;    // send_offsets_to_transaction in each transaction
};

constexpr Variant kVariants[] = {
    {"single", "1 x 100 B", 1, 1, false},
    {"multi", "10 x 100 B over 3 partitions", 10, 3, false},
    {"offsets", "1 x 100 B + send_offsets_to_transaction", 1, 1, true},
};

// ---- options ----

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: txn_bench (--strata PATH | --bootstrap HOST:PORT) [--no-mock]\n"
               "  [--repeat R] [--seconds D] [--only single|multi|offsets] [--debug CONTEXTS]\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--no-mock") {
      o.no_mock = true;
      continue;
    }
    if (i + 1 >= argc) usage();
    const std::string v = argv[++i];
    char* end = nullptr;
    if (flag == "--strata") {
      o.strata = v;
    } else if (flag == "--bootstrap") {
      o.bootstrap = v;
    } else if (flag == "--only") {
      o.only = v;
    } else if (flag == "--debug") {
      o.debug = v;
    } else if (flag == "--repeat") {
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > kRepeatMax) die("--repeat wants 1..100");
      o.repeat = int(n);
    } else if (flag == "--seconds") {
      o.seconds = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(o.seconds > 0 && o.seconds <= 3600)) {
        die("--seconds wants seconds in (0, 3600]");
      }
    } else {
      usage();
    }
  }
  if (o.strata.empty() == o.bootstrap.empty()) die("give exactly one of --strata and --bootstrap");
  if (!o.only.empty() && std::none_of(std::begin(kVariants), std::end(kVariants),
                                      [&](const Variant& v) { return o.only == v.name; })) {
    usage();
  }
  return o;
}

// ---- one run ----

struct RunResult {
  int64_t txns = 0;
  int64_t aborted = 0;  // commits that failed and were aborted (not counted in txns)
  double seconds = 0;
  double init_ms = 0;          // init_transactions (FindCoordinator + InitProducerId)
  std::vector<double> txn_ms;  // begin_transaction to commit_transaction returned
  std::vector<double> records_ms;
  std::vector<double> commit_ms;
  // Strata only, over the timed window; -1 when not counted.
  int64_t fdatasyncs = -1;
  double broker_cpu_s = -1;
  double client_cpu_s = 0;  // this process: the client, the mock, idle librdkafka handles
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) return;
  auto* failed = static_cast<int64_t*>(opaque);
  if ((*failed)++ == 0) {
    std::fprintf(stderr, "txn_bench: delivery failed: %s\n", rd_kafka_err2str(m->err));
  }
}

// Dies on `error` unless it only asks for the transaction to be aborted; returns whether
// there was an error. Takes ownership of `error`.
bool failed(rd_kafka_error_t* error, const char* what) {
  if (error == nullptr) return false;
  const std::string text = std::string(what) + ": " + rd_kafka_error_string(error);
  const bool abortable = rd_kafka_error_txn_requires_abort(error);
  rd_kafka_error_destroy(error);
  if (!abortable) die(text);
  std::fprintf(stderr, "txn_bench: %s; aborting the transaction\n", text.c_str());
  return true;
}

rd_kafka_t* new_transactional_producer(const Target& t, const Options& o, const std::string& id,
                                       int64_t* failed) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", t.bootstrap());
  set(conf, "transactional.id", id);
  set(conf, "acks", "all");
  set(conf, "linger.ms", "5");  // librdkafka's default; rd_kafka_flush does not wait for it
  set(conf, "log_level", o.debug.empty() ? "3" : "7");
  if (!o.debug.empty()) set(conf, "debug", o.debug);
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_conf_set_opaque(conf, failed);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (rk == nullptr) die(std::string("producer: ") + err);
  return rk;
}

// The phases of one transaction, in ms; nothing if it was aborted.
struct TxnTimes {
  double records_ms = 0;
  double commit_ms = 0;
};

std::optional<TxnTimes> one_txn(rd_kafka_t* rk, const Variant& v, const std::string& topic,
                                const std::string& input_topic,
                                const rd_kafka_consumer_group_metadata_t* group, int64_t n) {
  static const std::string payload(kRecordBytes, 'x');
  const Clock::time_point t0 = Clock::now();
  if (failed(rd_kafka_begin_transaction(rk), "begin_transaction")) return std::nullopt;
  for (int i = 0; i < v.records; ++i) {
    const rd_kafka_resp_err_t err = rd_kafka_producev(
        rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(i % v.partitions),
        RD_KAFKA_V_VALUE(const_cast<char*>(payload.data()), payload.size()), RD_KAFKA_V_END);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) die(std::string("produce: ") + rd_kafka_err2str(err));
  }
  bool ok = true;
  if (v.offsets) {
    rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(offsets, input_topic.c_str(), 0)->offset = n;
    ok = !failed(rd_kafka_send_offsets_to_transaction(rk, offsets, group, kTxnTimeoutMs),
                 "send_offsets_to_transaction");
    rd_kafka_topic_partition_list_destroy(offsets);
  }
  if (ok && rd_kafka_flush(rk, kTxnTimeoutMs) != RD_KAFKA_RESP_ERR_NO_ERROR) die("flush timed out");
  const Clock::time_point t1 = Clock::now();
  if (ok) ok = !failed(rd_kafka_commit_transaction(rk, kTxnTimeoutMs), "commit_transaction");
  const Clock::time_point t2 = Clock::now();
  if (!ok) {
    if (rd_kafka_error_t* e = rd_kafka_abort_transaction(rk, kTxnTimeoutMs)) {
      die(std::string("abort_transaction: ") + rd_kafka_error_string(e));
    }
    return std::nullopt;
  }
  return TxnTimes{ms_between(t0, t1), ms_between(t1, t2)};
}

RunResult run(Target& t, BrokerTarget* broker, const Options& o, const Variant& v,
              const std::string& tag) {
  const std::string topic = "tb-" + tag;
  const std::string input_topic = "tb-in-" + tag;
  t.create_topic(topic, v.partitions);
  if (v.offsets) t.create_topic(input_topic, 1);
  int64_t delivery_failures = 0;
  rd_kafka_t* rk = new_transactional_producer(t, o, "tb-" + tag, &delivery_failures);
  rd_kafka_consumer_group_metadata_t* group =
      rd_kafka_consumer_group_metadata_new(("tb-" + tag).c_str());
  RunResult r;
  const Clock::time_point init0 = Clock::now();
  if (rd_kafka_error_t* e = rd_kafka_init_transactions(rk, kTxnTimeoutMs)) {
    die(std::string(t.name()) + ": init_transactions: " + rd_kafka_error_string(e));
  }
  r.init_ms = ms_between(init0, Clock::now());
  int64_t n = 0;  // transactions begun, warm-up included: the next input offset
  for (; n < kWarmupTxns; ++n) {
    if (!one_txn(rk, v, topic, input_topic, group, n)) die("a warm-up transaction failed");
  }

  std::optional<FdatasyncCounter> syncs;
  if (broker != nullptr && broker->pid() > 0) syncs.emplace(broker->pid());
  const int64_t syncs0 = syncs ? syncs->count() : -1;
  const double broker_cpu0 = syncs ? process_cpu_s(broker->pid()) : 0;
  const double self_cpu0 = self_cpu_s();
  const Clock::time_point start = Clock::now();
  const auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  Clock::time_point now = start;
  while (now < end && r.txn_ms.size() < kTxnsMax) {
    const std::optional<TxnTimes> times = one_txn(rk, v, topic, input_topic, group, n++);
    const Clock::time_point done = Clock::now();
    if (times) {
      r.txn_ms.push_back(ms_between(now, done));
      r.records_ms.push_back(times->records_ms);
      r.commit_ms.push_back(times->commit_ms);
    } else {
      ++r.aborted;
    }
    now = done;
  }
  r.seconds = ms_between(start, now) / 1000;
  r.txns = int64_t(r.txn_ms.size());
  r.client_cpu_s = self_cpu_s() - self_cpu0;
  if (syncs && syncs0 >= 0) {
    r.fdatasyncs = syncs->count() - syncs0;
    r.broker_cpu_s = process_cpu_s(broker->pid()) - broker_cpu0;
  }
  rd_kafka_consumer_group_metadata_destroy(group);
  rd_kafka_destroy(rk);
  if (delivery_failures > 0) die(std::to_string(delivery_failures) + " records not delivered");
  return r;
}

// ---- reporting ----

double per_txn_us(double seconds, int64_t txns) {
  return txns > 0 ? seconds * 1e6 / double(txns) : 0;
}

void report(const Target& t, const Variant& v, int rep, RunResult& r, Results& results) {
  const double rate = double(r.txns) / std::max(r.seconds, 1e-9);
  const double txn_p50 = quantile(r.txn_ms, 0.5), txn_p99 = quantile(r.txn_ms, 0.99);
  const double rec_p50 = quantile(r.records_ms, 0.5), rec_p99 = quantile(r.records_ms, 0.99);
  const double com_p50 = quantile(r.commit_ms, 0.5), com_p99 = quantile(r.commit_ms, 0.99);
  const double client_cores = r.client_cpu_s / std::max(r.seconds, 1e-9);
  const auto slow = std::count_if(r.records_ms.begin(), r.records_ms.end(),
                                  [](double ms) { return ms >= kSlowRecordsMs; });
  const double slow_pct = r.txns > 0 ? 100.0 * double(slow) / double(r.txns) : 0;
  std::string extra, extra_result;
  if (r.fdatasyncs >= 0) {
    const double syncs = r.txns > 0 ? double(r.fdatasyncs) / double(r.txns) : 0;
    const double broker_us = per_txn_us(r.broker_cpu_s, r.txns);
    char buf[256];
    std::snprintf(buf, sizeof buf, "; broker %.1f fdatasyncs and %.0f CPU-us per txn", syncs,
                  broker_us);
    extra = buf;
    std::snprintf(buf, sizeof buf, " fdatasyncs=%lld broker_cpu_s=%.3f", (long long)r.fdatasyncs,
                  r.broker_cpu_s);
    extra_result = buf;
    results[std::string(v.name) + "_fdatasyncs_per_txn." + t.name()].push_back(syncs);
    results[std::string(v.name) + "_broker_cpu_us." + t.name()].push_back(broker_us);
  }
  std::printf(
      "%s %s rep %d: %s, %.2f s: %.1f txns/s; txn p50 %.2f p99 %.2f ms (records p50 %.2f "
      "p99 %.2f, commit p50 %.2f p99 %.2f); slow %.1f%%; init %.1f ms; %lld aborted; "
      "client %.2f cores busy%s\n",
      v.name, t.name(), rep, v.label, r.seconds, rate, txn_p50, txn_p99, rec_p50, rec_p99, com_p50,
      com_p99, slow_pct, r.init_ms, (long long)r.aborted, client_cores, extra.c_str());
  std::printf(
      "RESULT test=%s target=%s rep=%d records=%d partitions=%d offsets=%d seconds=%.3f "
      "txns=%lld txns_per_s=%.1f txn_p50_ms=%.3f txn_p99_ms=%.3f records_p50_ms=%.3f "
      "records_p99_ms=%.3f commit_p50_ms=%.3f commit_p99_ms=%.3f slow_pct=%.2f init_ms=%.3f "
      "aborted=%lld "
      "client_cpu_s=%.3f%s\n",
      v.name, t.name(), rep, v.records, v.partitions, v.offsets ? 1 : 0, r.seconds,
      (long long)r.txns, rate, txn_p50, txn_p99, rec_p50, rec_p99, com_p50, com_p99, slow_pct,
      r.init_ms, (long long)r.aborted, r.client_cpu_s, extra_result.c_str());
  std::fflush(stdout);
  const std::string m = v.name;
  const std::string target = std::string(".") + t.name();
  results[m + "_per_s" + target].push_back(rate);
  results[m + "_txn_p50_ms" + target].push_back(txn_p50);
  results[m + "_txn_p99_ms" + target].push_back(txn_p99);
  results[m + "_records_p50_ms" + target].push_back(rec_p50);
  results[m + "_commit_p50_ms" + target].push_back(com_p50);
  results[m + "_commit_p99_ms" + target].push_back(com_p99);
  results[m + "_slow_pct" + target].push_back(slow_pct);
  results[m + "_client_cores" + target].push_back(client_cores);
  results[m + "_init_ms" + target].push_back(r.init_ms);
}

void print_summary(const Options& o, const Results& r) {
  std::printf(
      "\n## Summary: median [min-max] over %d repetition(s); Strata/mock per repetition\n"
      "## (Strata fdatasyncs every write of a transaction; the mock is in memory)\n\n",
      o.repeat);
  std::printf("| | Strata | mock | Strata / mock |\n|---|---|---|---|\n");
  auto row = [&](const std::string& what, const std::string& measure, const char* fmt,
                 bool with_ratio = true) {
    if (r.count(measure + ".strata") == 0 && r.count(measure + ".mock") == 0) return;
    std::printf("| %s | %s | %s | %s |\n", what.c_str(), stat(r, measure + ".strata", fmt).c_str(),
                stat(r, measure + ".mock", fmt).c_str(),
                with_ratio ? ratio(r, measure).c_str() : "");
  };
  for (const Variant& v : kVariants) {
    const std::string m = v.name;
    const std::string l = std::string(v.label);
    row("txns/s, " + l, m + "_per_s", "%.0f");
    row("  txn p50 ms", m + "_txn_p50_ms", "%.2f");
    row("  txn p99 ms", m + "_txn_p99_ms", "%.2f");
    row("  records (to flushed) p50 ms", m + "_records_p50_ms", "%.2f");
    row("  commit_transaction p50 ms", m + "_commit_p50_ms", "%.2f");
    row("  commit_transaction p99 ms", m + "_commit_p99_ms", "%.2f");
    row("  % of txns whose records took >= 20 ms", m + "_slow_pct", "%.1f", false);
    row("  broker fdatasyncs per txn", m + "_fdatasyncs_per_txn", "%.2f", false);
    row("  broker CPU-us per txn", m + "_broker_cpu_us", "%.0f", false);
    row("  client (+ mock) cores busy", m + "_client_cores", "%.2f");
    row("  init_transactions ms", m + "_init_ms", "%.1f");
  }
  row("data dir alone: 200 B write + fdatasync per s, 1 thread", "fdatasync_per_s", "%.0f");
  row("  its fdatasync p50 ms", "fdatasync_p50_ms", "%.2f");
  row("  its fdatasync p99 ms", "fdatasync_p99_ms", "%.2f");
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  const Options o = parse(argc, argv);
  BrokerTarget strata(BrokerSpec{o.strata, o.bootstrap, "txn-bench", {}});  // forks: first
  std::unique_ptr<MockTarget> mock;
  if (!o.no_mock) mock = std::make_unique<MockTarget>();
  print_targets_header("txn_bench", o.strata, strata, mock.get());
  std::printf(
      "# Strata fdatasyncs each Produce (acks=all), each __transaction_state write, each "
      "marker and each TxnOffsetCommit;\n# the mock keeps everything in memory, writes no "
      "markers and keeps no transaction state.\n");
  std::fflush(stdout);

  std::vector<Target*> targets = {&strata};
  if (mock) targets.push_back(mock.get());
  Results results;
  int64_t aborted = 0;
  for (int rep = 1; rep <= o.repeat; ++rep) {
    probe_and_record_fdatasync(strata, std::min(o.seconds, 2.0), rep, results);
    for (const Variant& v : kVariants) {
      if (!o.only.empty() && o.only != v.name) continue;
      for (Target* t : targets) {
        const std::string tag = std::string(v.name) + "-" + t->name() + "-" + std::to_string(rep);
        RunResult r = run(*t, t == &strata ? &strata : nullptr, o, v, tag);
        aborted += r.aborted;
        report(*t, v, rep, r, results);
      }
    }
  }
  print_summary(o, results);
  if (aborted > 0) {
    std::fprintf(stderr, "txn_bench: %lld transactions aborted\n", (long long)aborted);
    return 1;
  }
  return 0;
}

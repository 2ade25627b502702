// group_bench: consumer-group benchmarks (issue 5), each run against a Strata broker and
// against librdkafka's mock cluster in the same invocation, repetition by repetition.
//
//   group_bench (--strata PATH | --bootstrap HOST:PORT) [--no-mock] [--repeat R]
//               [--only commits|death|leave] [--consumers N] [--groups G] [--subscribed]
//               [--commit-seconds D] [--session-timeout-ms S] [--heartbeat-interval-ms H]
//
// --strata starts `PATH broker` on a fresh data dir under $TMPDIR (default /tmp) and a free
// port, with group.initial.rebalance.delay.ms=0 (and group.min.session.timeout.ms lowered
// when S < 6000), and stops it with SIGTERM at the end. The mock is
// rd_kafka_mock_cluster_new with one broker, in memory, in this process.
//
// Measurements (group_bench_commits.cc, group_bench_rebalance.cc):
//   commits: N simple consumers (rd_kafka_assign of one partition each, no subscribe), one
//     thread each, in G groups (consumer i in group i % G), each committing its partition's
//     offset synchronously (rd_kafka_commit with an explicit list, async=0) in a loop for
//     D seconds: commits/s in total, p50 and p99 commit latency. --subscribed adds the
//     same loop by N subscribed members of one group.
//   death: 3 members of one group subscribed to a 6-partition topic; once they hold all 6,
//     member 0 is destroyed without leaving the group (RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
//     the time until the 2 survivors hold all 6 again, and that minus session.timeout.ms.
//     Repetition r of R ends the member (1 + (r - 0.5) / R) heartbeat intervals after the
//     group became stable, spreading the end over the heartbeat cycle.
//   leave: the same, but member 0 leaves with rd_kafka_consumer_close.
//
// Output: one line per run, a "RESULT key=value ..." line per run for scripts, then a
// summary: median [min-max] over the repetitions, and Strata/mock ratios per repetition.
// With --strata, commit runs also report the broker's CPU seconds and its fdatasync calls
// (a perf tracepoint per broker thread; left out without tracefs and perf_event access),
// and each repetition first times plain 200-byte appends + fdatasync in the broker's data
// dir (one thread): the floor under one durable commit on that disk.
#include "group_bench.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace group_bench {

namespace {

// ---- options ----

void usage() {
  std::fprintf(stderr,
               "usage: group_bench (--strata PATH | --bootstrap HOST:PORT) [--no-mock]\n"
               "  [--repeat R] [--only commits|death|leave] [--consumers N] [--groups G]\n"
               "  [--subscribed] [--commit-seconds D] [--session-timeout-ms S]\n"
               "  [--heartbeat-interval-ms H]\n");
  std::exit(2);
}

int to_int(const std::string& flag, const std::string& v, int lo, int hi) {
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < lo || n > hi) {
    die(flag + " wants an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
        "], got '" + v + "'");
  }
  return int(n);
}

double to_seconds(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const double s = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(s > 0 && s <= 3600)) die(flag + " wants seconds in (0, 3600]");
  return s;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--no-mock") {
      o.no_mock = true;
      continue;
    }
    if (flag == "--subscribed") {
      o.subscribed = true;
      continue;
    }
    if (i + 1 >= argc) usage();
    const std::string v = argv[++i];
    if (flag == "--strata")
      o.strata = v;
    else if (flag == "--bootstrap")
      o.bootstrap = v;
    else if (flag == "--only")
      o.only = v;
    else if (flag == "--repeat")
      o.repeat = to_int(flag, v, 1, kRepeatMax);
    else if (flag == "--consumers")
      o.consumers = to_int(flag, v, 1, kConsumersMax);
    else if (flag == "--groups")
      o.groups = to_int(flag, v, 1, kConsumersMax);
    else if (flag == "--commit-seconds")
      o.commit_seconds = to_seconds(flag, v);
    else if (flag == "--session-timeout-ms")
      o.session_timeout_ms = to_int(flag, v, 1000, 300000);
    else if (flag == "--heartbeat-interval-ms")
      o.heartbeat_interval_ms = to_int(flag, v, 10, 60000);
    else
      usage();
  }
  if (o.strata.empty() == o.bootstrap.empty()) die("give exactly one of --strata and --bootstrap");
  if (!o.only.empty() && o.only != "commits" && o.only != "death" && o.only != "leave") usage();
  if (o.groups > o.consumers) die("--groups may not exceed --consumers");
  if (o.heartbeat_interval_ms >= o.session_timeout_ms) {
    die("--heartbeat-interval-ms must be below --session-timeout-ms");
  }
  o.stable_wait_ms_max = 3 * o.session_timeout_ms + 30000;
  return o;
}

// The broker to start or use: group.initial.rebalance.delay.ms=0, and
// group.min.session.timeout.ms lowered to a --session-timeout-ms below Kafka's 6000.
strata_bench::BrokerSpec broker_spec(const Options& o) {
  strata_bench::BrokerSpec spec;
  spec.strata = o.strata;
  spec.bootstrap = o.bootstrap;
  spec.dir_name = "group-bench";
  spec.overrides = {"group.initial.rebalance.delay.ms=0"};
  if (o.session_timeout_ms < 6000) {
    spec.overrides.push_back("group.min.session.timeout.ms=" +
                             std::to_string(o.session_timeout_ms));
  }
  return spec;
}

// ---- results ----

// One commit run on `t`, printed and recorded under `measure`.
int64_t commit_run(Target& t, BrokerTarget* broker, const Options& o, const std::string& measure,
                   bool subscribed, int rep, Results& results) {
  const std::string tag = measure + "-" + t.name() + "-" + std::to_string(rep);
  std::optional<FdatasyncCounter> syncs;
  double broker_cpu0 = 0;
  if (broker != nullptr && broker->pid() > 0) {
    syncs.emplace(broker->pid());
    broker_cpu0 = process_cpu_s(broker->pid());
  }
  const int64_t syncs0 = syncs ? syncs->count() : -1;
  const double self_cpu0 = self_cpu_s();
  const CommitResult r =
      subscribed ? run_subscribed_commits(t, o, tag) : run_simple_commits(t, o, tag);
  const double self_cpu = self_cpu_s() - self_cpu0;
  const double rate = double(r.commits) / std::max(r.seconds, 1e-9);
  std::string extra;
  std::string extra_result;
  if (syncs && syncs0 >= 0) {
    const int64_t n = syncs->count() - syncs0;
    const double cpu = process_cpu_s(broker->pid()) - broker_cpu0;
    char buf[256];
    std::snprintf(buf, sizeof buf, "; broker %.2f CPU-s, %lld fdatasyncs (%.1f commits each)", cpu,
                  (long long)n, n > 0 ? double(r.commits) / double(n) : 0.0);
    extra = buf;
    std::snprintf(buf, sizeof buf, " broker_cpu_s=%.3f fdatasyncs=%lld", cpu, (long long)n);
    extra_result = buf;
    results[measure + "_commits_per_fdatasync." + t.name()].push_back(
        n > 0 ? double(r.commits) / double(n) : 0.0);
  }
  std::printf(
      "%s %s rep %d: %d consumers, %s, %.2f s: %.1f commits/s, p50 %.2f ms, "
      "p99 %.2f ms, %lld errors; client %.2f CPU-s%s\n",
      measure.c_str(), t.name(), rep, o.consumers,
      subscribed ? "subscribed, 1 group" : (std::to_string(o.groups) + " group(s), assign").c_str(),
      r.seconds, rate, r.p50_ms, r.p99_ms, (long long)r.errors, self_cpu, extra.c_str());
  std::printf(
      "RESULT test=%s target=%s rep=%d consumers=%d groups=%d seconds=%.3f commits=%lld "
      "commits_per_s=%.1f p50_ms=%.3f p99_ms=%.3f errors=%lld client_cpu_s=%.3f%s\n",
      measure.c_str(), t.name(), rep, o.consumers, subscribed ? 1 : o.groups, r.seconds,
      (long long)r.commits, rate, r.p50_ms, r.p99_ms, (long long)r.errors, self_cpu,
      extra_result.c_str());
  std::fflush(stdout);
  results[measure + "_per_s." + t.name()].push_back(rate);
  results[measure + "_p50_ms." + t.name()].push_back(r.p50_ms);
  results[measure + "_p99_ms." + t.name()].push_back(r.p99_ms);
  return r.errors;
}

void rebalance_run(Target& t, const Options& o, Exit how, int rep, Results& results) {
  const char* measure = how == Exit::kCrash ? "death" : "leave";
  const std::string tag = std::string(measure) + "-" + t.name() + "-" + std::to_string(rep);
  // Repetitions spread the member's end evenly over the heartbeat cycle (see run_rebalance).
  const double phase = (rep - 0.5) / o.repeat;
  const double ms = run_rebalance(t, o, how, phase, tag);
  const double beyond = ms - o.session_timeout_ms;
  if (how == Exit::kCrash) {
    std::printf(
        "death %s rep %d: survivors hold all %d partitions %.0f ms after the kill "
        "(%.0f ms beyond session.timeout.ms=%d; killed %.2f heartbeats after stable)\n",
        t.name(), rep, o.rebalance_partitions, ms, beyond, o.session_timeout_ms, 1 + phase);
    std::printf(
        "RESULT test=death target=%s rep=%d ms=%.1f beyond_session_ms=%.1f "
        "session_timeout_ms=%d phase=%.3f\n",
        t.name(), rep, ms, beyond, o.session_timeout_ms, phase);
    results[std::string("death_beyond_ms.") + t.name()].push_back(beyond);
  } else {
    std::printf(
        "leave %s rep %d: survivors hold all %d partitions %.0f ms after close began "
        "(closed %.2f heartbeats after stable)\n",
        t.name(), rep, o.rebalance_partitions, ms, 1 + phase);
    std::printf("RESULT test=leave target=%s rep=%d ms=%.1f phase=%.3f\n", t.name(), rep, ms,
                phase);
  }
  std::fflush(stdout);
  results[std::string(measure) + "_ms." + t.name()].push_back(ms);
}

void print_summary(const Options& o, const Results& r) {
  std::printf(
      "\n## Summary: median [min-max] over %d repetition(s); Strata/mock per repetition\n\n",
      o.repeat);
  std::printf("| | Strata | mock | Strata / mock |\n|---|---|---|---|\n");
  auto row = [&](const std::string& what, const std::string& measure, const char* fmt,
                 bool with_ratio = true) {
    if (r.count(measure + ".strata") == 0 && r.count(measure + ".mock") == 0) return;
    std::printf("| %s | %s | %s | %s |\n", what.c_str(), stat(r, measure + ".strata", fmt).c_str(),
                stat(r, measure + ".mock", fmt).c_str(),
                with_ratio ? ratio(r, measure).c_str() : "");
  };
  const std::string simple = std::to_string(o.consumers) + " simple consumers in " +
                             std::to_string(o.groups) + " group(s)";
  row("commits/s, " + simple, "commits_per_s", "%.0f");
  row("commit p50 ms, " + simple, "commits_p50_ms", "%.2f");
  row("commit p99 ms, " + simple, "commits_p99_ms", "%.2f");
  row("commits per broker fdatasync, " + simple, "commits_commits_per_fdatasync", "%.1f");
  row("data dir alone: 200 B write + fdatasync per s, 1 thread", "fdatasync_per_s", "%.0f");
  row("  its fdatasync p50 ms", "fdatasync_p50_ms", "%.2f");
  row("  its fdatasync p99 ms", "fdatasync_p99_ms", "%.2f");
  const std::string sub = std::to_string(o.consumers) + " subscribed members of 1 group";
  row("commits/s, " + sub, "subscribed_commits_per_s", "%.0f");
  row("commit p50 ms, " + sub, "subscribed_commits_p50_ms", "%.2f");
  row("commit p99 ms, " + sub, "subscribed_commits_p99_ms", "%.2f");
  row("commits per broker fdatasync, " + sub, "subscribed_commits_commits_per_fdatasync", "%.1f");
  row("death to stable, ms (session.timeout.ms=" + std::to_string(o.session_timeout_ms) + ")",
      "death_ms", "%.0f");
  row("  of which beyond session.timeout.ms, ms", "death_beyond_ms", "%.0f", false);
  row("orderly leave to stable, ms", "leave_ms", "%.0f");
}

}  // namespace

// ---- consumers ----

rd_kafka_conf_t* consumer_conf(const Target& target, const std::string& group_id) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", target.bootstrap());
  set(conf, "group.id", group_id);
  set(conf, "enable.auto.commit", "false");
  set(conf, "log_level", "3");
  return conf;
}

rd_kafka_t* new_consumer(rd_kafka_conf_t* conf) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (rk == nullptr) die(std::string("consumer: ") + err);
  rd_kafka_poll_set_consumer(rk);
  return rk;
}

}  // namespace group_bench

int main(int argc, char** argv) {
  using namespace group_bench;
  std::signal(SIGPIPE, SIG_IGN);
  const Options o = parse(argc, argv);
  BrokerTarget strata(broker_spec(o));  // first: forks before any librdkafka thread exists
  std::unique_ptr<MockTarget> mock;
  if (!o.no_mock) mock = std::make_unique<MockTarget>();
  print_targets_header("group_bench", o.strata, strata, mock.get());
  std::fflush(stdout);

  std::vector<Target*> targets = {&strata};
  if (mock) targets.push_back(mock.get());
  auto want = [&](const char* what) { return o.only.empty() || o.only == what; };
  Results results;
  int64_t errors = 0;
  for (int rep = 1; rep <= o.repeat; ++rep) {
    if (want("commits")) {
      probe_and_record_fdatasync(strata, std::min(o.commit_seconds, 2.0), rep, results);
      for (Target* t : targets) {
        errors +=
            commit_run(*t, t == &strata ? &strata : nullptr, o, "commits", false, rep, results);
      }
      if (o.subscribed) {
        for (Target* t : targets) {
          errors += commit_run(*t, t == &strata ? &strata : nullptr, o, "subscribed_commits", true,
                               rep, results);
        }
      }
    }
    if (want("death")) {
      for (Target* t : targets) rebalance_run(*t, o, Exit::kCrash, rep, results);
    }
    if (want("leave")) {
      for (Target* t : targets) rebalance_run(*t, o, Exit::kLeave, rep, results);
    }
  }
  print_summary(o, results);
  if (errors > 0) {
    std::fprintf(stderr, "group_bench: %lld commits failed\n", (long long)errors);
    return 1;
  }
  return 0;
}

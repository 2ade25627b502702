// group_bench: consumer-group benchmarks of issue 5 (group_bench.cc has the usage).
//   bench_targets.h           (shared) the targets (a Strata process, librdkafka's mock
//                             cluster), librdkafka helpers, broker-side counters, summaries
//   group_bench.cc            options, consumer helpers, the runs and their summary
//   group_bench_commits.cc    commit throughput
//   group_bench_rebalance.cc  subscribed members; a member's end to the next stable group
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench_targets.h"

namespace group_bench {

using strata_bench::BrokerTarget;
using strata_bench::Clock;
using strata_bench::die;
using strata_bench::FdatasyncCounter;
using strata_bench::MockTarget;
using strata_bench::ms_between;
using strata_bench::probe_fdatasync;
using strata_bench::process_cpu_s;
using strata_bench::quantile;
using strata_bench::ratio;
using strata_bench::Results;
using strata_bench::self_cpu_s;
using strata_bench::set;
using strata_bench::stat;
using strata_bench::SyncProbe;
using strata_bench::Target;

constexpr int kConsumersMax = 256;
constexpr int kRepeatMax = 100;

struct Options {
  std::string strata;     // path of the strata binary to start, or
  std::string bootstrap;  // HOST:PORT of a running broker
  bool no_mock = false;   // skip the mock (with --bootstrap: profile one side)
  std::string only;       // "", "commits", "death" or "leave"
  int repeat = 3;
  // Commit throughput.
  int consumers = 8;
  int groups = 1;           // consumers share groups round-robin: 1 = all in one group
  bool subscribed = false;  // also run the variant with subscribed members of one group
  double commit_seconds = 5;
  // Death and leave.
  int rebalance_members = 3;
  int rebalance_partitions = 6;
  int session_timeout_ms = 6000;
  int heartbeat_interval_ms = 500;
  int stable_wait_ms_max = 60000;  // bound of every wait for a stable group
};

// A consumer configuration for `target` and `group_id` (no auto commit, quiet logs).
rd_kafka_conf_t* consumer_conf(const Target& target, const std::string& group_id);
rd_kafka_t* new_consumer(rd_kafka_conf_t* conf);

// One commit-throughput run; rates are over the timed window only.
struct CommitResult {
  int64_t commits = 0;
  int64_t errors = 0;
  double seconds = 0;
  double p50_ms = 0;
  double p99_ms = 0;
};
// `consumers` simple consumers (rd_kafka_assign of one partition each, no subscribe), one
// thread each, spread round-robin over `groups` groups, committing synchronously.
CommitResult run_simple_commits(Target& target, const Options& o, const std::string& tag);
// The same loop by the `consumers` subscribed members of one group (after it is stable).
CommitResult run_subscribed_commits(Target& target, const Options& o, const std::string& tag);

enum class Exit { kCrash, kLeave };

// Members of one group, subscribed to one topic, each with its own thread that polls
// (and so serves its rebalance callback, eager protocol) until the member is ended.
class SubscribedGroup {
 public:
  SubscribedGroup(const Target& target, const Options& o, const std::string& group_id,
                  const std::string& topic, int members);
  ~SubscribedGroup();  // the members still running leave (rd_kafka_consumer_close)
  SubscribedGroup(const SubscribedGroup&) = delete;
  SubscribedGroup& operator=(const SubscribedGroup&) = delete;

  // Waits until the members `who` hold `partitions` partitions between them, each some,
  // every one of those assignments received at or after `since`. Returns when the last
  // of them arrived, or nothing after `timeout_ms`.
  std::optional<Clock::time_point> wait_held(const std::vector<int>& who, int partitions,
                                             Clock::time_point since, int timeout_ms);
  // Ends member i on its thread (destroyed without leaving, or closed) and waits for that
  // to finish; returns when the end began.
  Clock::time_point end_member(int i, Exit how);
  rd_kafka_t* handle(int i) const;
  std::vector<int32_t> held(int i);  // the partitions member i holds now

  // Called by member i's rebalance callback on its thread.
  void on_assignment(int i, std::vector<int32_t> partitions);

 private:
  struct Member;
  static void run(Member* m);
  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                           rd_kafka_topic_partition_list_t* partitions, void* opaque);

  std::vector<std::unique_ptr<Member>> members_;
  std::mutex mu_;
  std::condition_variable changed_;
};

// Milliseconds from the end of one member (killed without leaving, or closed) to the
// survivors holding every partition again. The member ends (1 + phase) heartbeat intervals
// after the group is stable; phase is in [0, 1).
double run_rebalance(Target& target, const Options& o, Exit how, double phase,
                     const std::string& tag);

}  // namespace group_bench

// group_bench: consumer-group benchmarks of issue 5 (group_bench.cc has the usage).
//   group_bench_targets.cc    the targets (a Strata process, librdkafka's mock cluster),
//                             librdkafka helpers, broker-side counters
//   group_bench_commits.cc    commit throughput
//   group_bench_rebalance.cc  subscribed members; a member's end to the next stable group
#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <sys/types.h>

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

namespace group_bench {

using Clock = std::chrono::steady_clock;

constexpr int kConsumersMax = 256;
constexpr int kRepeatMax = 100;
constexpr int kAdminTimeoutMs = 10000;

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

// Where a measurement runs: a bootstrap string and a way to create a topic there.
class Target {
 public:
  virtual ~Target() = default;
  virtual const char* name() const = 0;
  virtual std::string bootstrap() const = 0;
  virtual void create_topic(const std::string& topic, int partitions) = 0;
};

// A Kafka broker at a bootstrap address: one given (--bootstrap), or a `strata broker`
// process that this object starts on a fresh data dir (--strata) and stops with SIGTERM,
// keeping the dir only if the broker exits badly. It forks: construct it before any
// librdkafka handle exists.
class BrokerTarget : public Target {
 public:
  explicit BrokerTarget(const Options& o);
  ~BrokerTarget() override;
  BrokerTarget(const BrokerTarget&) = delete;
  BrokerTarget& operator=(const BrokerTarget&) = delete;
  const char* name() const override { return "strata"; }
  std::string bootstrap() const override { return bootstrap_; }
  void create_topic(const std::string& topic, int partitions) override;
  pid_t pid() const { return pid_; }               // -1 with --bootstrap
  const std::string& dir() const { return dir_; }  // data dir's parent and broker.log

 private:
  void start(const Options& o);

  pid_t pid_ = -1;
  std::string dir_;
  std::string bootstrap_;
  rd_kafka_t* admin_ = nullptr;  // for CreateTopics
};

// librdkafka's mock cluster, one broker; its owner handle runs the mock's thread here.
class MockTarget : public Target {
 public:
  MockTarget();
  ~MockTarget() override;
  MockTarget(const MockTarget&) = delete;
  MockTarget& operator=(const MockTarget&) = delete;
  const char* name() const override { return "mock"; }
  std::string bootstrap() const override;
  void create_topic(const std::string& topic, int partitions) override;

 private:
  rd_kafka_t* owner_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
};

// Prints the message, kills a broker this process started (showing its log's tail) and
// exits with status 2.
[[noreturn]] void die(const std::string& what);
void set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value);
// A consumer configuration for `target` and `group_id` (no auto commit, quiet logs).
rd_kafka_conf_t* consumer_conf(const Target& target, const std::string& group_id);
rd_kafka_t* new_consumer(rd_kafka_conf_t* conf);
double ms_between(Clock::time_point a, Clock::time_point b);
// The p-th quantile (0..1) of `v`, which it sorts; 0 for an empty vector.
double quantile(std::vector<double>& v, double p);

// CPU seconds (user + system) used so far by process `pid` (/proc/PID/stat), or by this one.
double process_cpu_s(pid_t pid);
double self_cpu_s();

// Counts the fdatasync calls of every thread of a process through the syscalls tracepoint,
// one perf event per thread (an event follows one thread, and `inherit` only covers
// threads started later). Without tracefs or perf_event permission it counts nothing.
class FdatasyncCounter {
 public:
  explicit FdatasyncCounter(pid_t pid);
  ~FdatasyncCounter() { close_all(); }
  FdatasyncCounter(const FdatasyncCounter&) = delete;
  FdatasyncCounter& operator=(const FdatasyncCounter&) = delete;
  int64_t count() const;  // calls since construction, or -1 when not counting

 private:
  void close_all();
  std::vector<int> fds_;
};

// The floor under one durable commit: one thread appending 200 bytes and calling
// fdatasync, again and again for `seconds`, on a file in `dir`.
struct SyncProbe {
  double per_s = 0;
  double p50_ms = 0;
  double p99_ms = 0;
};
SyncProbe probe_fdatasync(const std::string& dir, double seconds);

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

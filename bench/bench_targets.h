// What the broker benchmarks that drive librdkafka share (group_bench, txn_bench): the
// two targets a measurement runs against - a `strata broker` process on a fresh data dir,
// and librdkafka's in-memory mock cluster in this process - a few librdkafka helpers,
// the broker-side counters (CPU time, fdatasync calls, a plain fdatasync probe), and the
// median [min-max] / Strata-to-mock summary of repeated runs.
#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace strata_bench {

using Clock = std::chrono::steady_clock;

constexpr int kAdminTimeoutMs = 10000;

// Where a measurement runs: a bootstrap string and a way to create a topic there.
class Target {
 public:
  virtual ~Target() = default;
  virtual const char* name() const = 0;
  virtual std::string bootstrap() const = 0;
  virtual void create_topic(const std::string& topic, int partitions) = 0;
};

// Which broker a BrokerTarget is: exactly one of `strata` and `bootstrap`.
struct BrokerSpec {
  std::string strata;                  // path of the strata binary to start, or
  std::string bootstrap;               // HOST:PORT of a running broker
  std::string dir_name = "bench";      // the data dir is $TMPDIR/strata-<dir_name>.XXXXXX
  std::vector<std::string> overrides;  // "key=value" broker settings, one --override each
};

// A Kafka broker at a bootstrap address: one given (spec.bootstrap), or a `strata broker`
// process that this object starts on a fresh data dir under $TMPDIR (default /tmp) and a
// free loopback port (spec.strata), and stops with SIGTERM, keeping the dir only if the
// broker exits badly. It forks: construct it before any librdkafka handle exists.
class BrokerTarget : public Target {
 public:
  explicit BrokerTarget(const BrokerSpec& spec);
  ~BrokerTarget() override;
  BrokerTarget(const BrokerTarget&) = delete;
  BrokerTarget& operator=(const BrokerTarget&) = delete;
  const char* name() const override { return "strata"; }
  std::string bootstrap() const override { return bootstrap_; }
  void create_topic(const std::string& topic, int partitions) override;
  pid_t pid() const { return pid_; }               // -1 with a given bootstrap
  const std::string& dir() const { return dir_; }  // data dir's parent and broker.log

 private:
  void start(const BrokerSpec& spec);

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

// Prints the message (after the program's name), kills a broker this process started
// (showing its log's tail) and exits with status 2.
[[noreturn]] void die(const std::string& what);
void set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value);
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

// The floor under one durable write: one thread appending 200 bytes and calling
// fdatasync, again and again for `seconds`, on a file in `dir`.
struct SyncProbe {
  double per_s = 0;
  double p50_ms = 0;
  double p99_ms = 0;
};
SyncProbe probe_fdatasync(const std::string& dir, double seconds);

// ---- summaries of repeated runs ----

// Values by "measure.target" (e.g. "death_ms.strata"), one per repetition, in order.
using Results = std::map<std::string, std::vector<double>>;

// "median [min-max]" of r[key] with `fmt` (a printf format for one double); "-" if absent.
std::string stat(const Results& r, const std::string& key, const char* fmt = "%.0f");
// r[measure.strata] / r[measure.mock], repetition by repetition: "median [min-max]".
std::string ratio(const Results& r, const std::string& measure);

// ---- what every program prints the same way ----

// "# PROGRAM: librdkafka V, N cores, load average ..." and where each target runs
// (`strata_path` the binary a started broker runs).
void print_targets_header(const char* program, const std::string& strata_path,
                          const BrokerTarget& strata, const MockTarget* mock);
// On a started broker: probe_fdatasync on its data dir for `seconds`, printed (a line
// and a RESULT line for repeat `rep`) and added to results["fdatasync_*.strata"].
void probe_and_record_fdatasync(const BrokerTarget& strata, double seconds, int rep,
                                Results& results);

}  // namespace strata_bench

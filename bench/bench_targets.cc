// The two targets (a Strata broker process, librdkafka's mock cluster), librdkafka
// helpers, the broker-side counters (CPU time, fdatasync calls, a plain fdatasync probe)
// and the summaries of repeated runs.
#include "bench_targets.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace strata_bench {

namespace {

constexpr int kBrokerStartMsMax = 20000;
constexpr int kLogTailLines = 30;
constexpr size_t kProbeSyncsMax = 1'000'000;

// The broker this process started, so that die() can stop it, show its log and remove
// its dir; the dir is set from start to a clean stop.
pid_t g_broker_pid = -1;
std::string g_broker_dir;

void stop_broker_after_failure() {
  if (g_broker_dir.empty()) return;
  if (g_broker_pid > 0) {
    kill(g_broker_pid, SIGKILL);
    waitpid(g_broker_pid, nullptr, 0);
    g_broker_pid = -1;
  }
  std::ifstream log(g_broker_dir + "/broker.log");
  std::vector<std::string> lines;
  for (std::string line; std::getline(log, line);) {
    lines.push_back(line);
    if (lines.size() > size_t(kLogTailLines)) lines.erase(lines.begin());
  }
  std::fprintf(stderr, "---- broker log (last %zu lines) ----\n", lines.size());
  for (const std::string& l : lines) std::fprintf(stderr, "%s\n", l.c_str());
  std::error_code ec;
  std::filesystem::remove_all(g_broker_dir, ec);
  g_broker_dir.clear();
}

std::string errno_text() {
  return std::strerror(errno);
}

// Creates a topic through the Admin API; one that exists already is fine.
void admin_create_topic(rd_kafka_t* rk, const std::string& topic, int partitions) {
  char err[512];
  rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, err, sizeof err);
  if (nt == nullptr) die(std::string("NewTopic: ") + err);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &nt, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, kAdminTimeoutMs);
  if (ev == nullptr) die("CreateTopics timed out");
  if (rd_kafka_event_error(ev) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    die(std::string("CreateTopics: ") + rd_kafka_event_error_string(ev));
  }
  size_t n = 0;
  const rd_kafka_CreateTopics_result_t* res = rd_kafka_event_CreateTopics_result(ev);
  const rd_kafka_topic_result_t** topics = rd_kafka_CreateTopics_result_topics(res, &n);
  for (size_t i = 0; i < n; ++i) {
    const rd_kafka_resp_err_t e = rd_kafka_topic_result_error(topics[i]);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      die("CreateTopics " + topic + ": " + rd_kafka_err2str(e));
    }
  }
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(nt);
}

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  return a;
}

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) die("socket: " + errno_text());
  sockaddr_in a = loopback(0);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    die("bind: " + errno_text());
  }
  close(fd);
  return ntohs(a.sin_port);
}

bool accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  const sockaddr_in a = loopback(port);
  const bool ok = connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

}  // namespace

// ---- librdkafka helpers ----

void die(const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, what.c_str());
  stop_broker_after_failure();
  std::exit(2);
}

void set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value) {
  char err[512];
  if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
    die("config " + key + "=" + value + ": " + err);
  }
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double quantile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t rank = std::min(size_t(p * double(v.size())), v.size() - 1);
  return v[rank];
}

// ---- targets ----

BrokerTarget::BrokerTarget(const BrokerSpec& spec) {
  if (spec.strata.empty() == spec.bootstrap.empty()) die("give a strata binary or a bootstrap");
  if (!spec.strata.empty())
    start(spec);
  else
    bootstrap_ = spec.bootstrap;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap_);
  set(conf, "log_level", "3");
  char err[512];
  admin_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (admin_ == nullptr) die(std::string("admin client: ") + err);
}

BrokerTarget::~BrokerTarget() {
  rd_kafka_destroy(admin_);
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  g_broker_pid = -1;
  g_broker_dir.clear();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "%s: broker exited with status %d on SIGTERM (log in %s)\n",
                 program_invocation_short_name, status, dir_.c_str());
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void BrokerTarget::create_topic(const std::string& topic, int partitions) {
  admin_create_topic(admin_, topic, partitions);
}

void BrokerTarget::start(const BrokerSpec& spec) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr ? tmp : "/tmp") + "/strata-" + spec.dir_name + ".XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) die("mkdtemp: " + errno_text());
  dir_ = pattern;
  g_broker_dir = dir_;
  const int port = free_port();
  bootstrap_ = "127.0.0.1:" + std::to_string(port);
  std::vector<std::string> args = {spec.strata,  "broker",
                                   "--override", "log.dirs=" + dir_ + "/data",
                                   "--override", "listeners=PLAINTEXT://" + bootstrap_};
  for (const std::string& o : spec.overrides) args.insert(args.end(), {"--override", o});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = dir_ + "/broker.log";
  const pid_t pid = fork();
  if (pid < 0) die("fork: " + errno_text());
  if (pid == 0) {                      // only async-signal-safe calls until exec
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive this process
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  pid_ = pid;
  g_broker_pid = pid;
  const auto deadline = Clock::now() + std::chrono::milliseconds(kBrokerStartMsMax);
  while (!accepts(port)) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = g_broker_pid = -1;
      die("broker exited at start");
    }
    if (Clock::now() > deadline) die("broker not accepting after 20 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

MockTarget::MockTarget() {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "log_level", "3");
  char err[512];
  owner_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (owner_ == nullptr) die(std::string("mock owner: ") + err);
  cluster_ = rd_kafka_mock_cluster_new(owner_, 1);
  if (cluster_ == nullptr) die("rd_kafka_mock_cluster_new failed");
}

MockTarget::~MockTarget() {
  rd_kafka_mock_cluster_destroy(cluster_);
  rd_kafka_destroy(owner_);
}

std::string MockTarget::bootstrap() const {
  return rd_kafka_mock_cluster_bootstraps(cluster_);
}

void MockTarget::create_topic(const std::string& topic, int partitions) {
  if (rd_kafka_mock_topic_create(cluster_, topic.c_str(), partitions, 1) !=
      RD_KAFKA_RESP_ERR_NO_ERROR) {
    die("mock topic create " + topic + " failed");
  }
}

// ---- counters ----

double process_cpu_s(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t close_paren = stat.rfind(')');  // the command name may hold spaces
  if (close_paren == std::string::npos) return 0;
  std::istringstream in(stat.substr(close_paren + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {  // fields 14 and 15: utime, stime
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / double(sysconf(_SC_CLK_TCK));
}

double self_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

FdatasyncCounter::FdatasyncCounter(pid_t pid) {
  std::ifstream idf("/sys/kernel/tracing/events/syscalls/sys_enter_fdatasync/id");
  uint64_t id = 0;
  if (!(idf >> id)) return;
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_TRACEPOINT;
    a.config = id;
    a.inherit = 1;
    const auto tid = pid_t(std::stol(task.path().filename().string()));
    const long fd = syscall(SYS_perf_event_open, &a, tid, -1, -1, 0);
    if (fd < 0) {
      close_all();
      return;
    }
    fds_.push_back(int(fd));
  }
}

int64_t FdatasyncCounter::count() const {
  if (fds_.empty()) return -1;
  int64_t total = 0;
  for (int fd : fds_) {
    uint64_t n = 0;
    if (read(fd, &n, sizeof n) != ssize_t(sizeof n)) return -1;
    total += int64_t(n);
  }
  return total;
}

void FdatasyncCounter::close_all() {
  for (int fd : fds_) close(fd);
  fds_.clear();
}

SyncProbe probe_fdatasync(const std::string& dir, double seconds) {
  const std::string path = dir + "/fdatasync-probe";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (fd < 0) die("open " + path + ": " + errno_text());
  const std::string record(200, 'x');
  std::vector<double> ms;
  const Clock::time_point start = Clock::now();
  const auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  Clock::time_point now = start;
  while (now < end && ms.size() < kProbeSyncsMax) {
    if (write(fd, record.data(), record.size()) != ssize_t(record.size())) {
      die("probe write: " + errno_text());
    }
    const Clock::time_point t0 = Clock::now();
    if (fdatasync(fd) != 0) die("probe fdatasync: " + errno_text());
    now = Clock::now();
    ms.push_back(ms_between(t0, now));
  }
  close(fd);
  unlink(path.c_str());
  SyncProbe p;
  p.per_s = double(ms.size()) / std::max(ms_between(start, now) / 1000, 1e-9);
  p.p50_ms = quantile(ms, 0.5);
  p.p99_ms = quantile(ms, 0.99);
  return p;
}

// ---- summaries ----

std::string stat(const Results& r, const std::string& key, const char* fmt) {
  auto it = r.find(key);
  if (it == r.end() || it->second.empty()) return "-";
  std::vector<double> v = it->second;
  const double median = quantile(v, 0.5);
  char buf[128];
  if (v.size() == 1) {
    std::snprintf(buf, sizeof buf, fmt, median);
    return buf;
  }
  const std::string f = std::string(fmt) + " [" + fmt + "-" + fmt + "]";
  std::snprintf(buf, sizeof buf, f.c_str(), median, v.front(), v.back());
  return buf;
}

std::string ratio(const Results& r, const std::string& measure) {
  auto s = r.find(measure + ".strata");
  auto m = r.find(measure + ".mock");
  if (s == r.end() || m == r.end()) return "-";
  std::vector<double> q;
  for (size_t i = 0; i < std::min(s->second.size(), m->second.size()); ++i) {
    if (m->second[i] > 0) q.push_back(s->second[i] / m->second[i]);
  }
  if (q.empty()) return "-";
  const double median = quantile(q, 0.5);
  char buf[96];
  if (q.size() == 1)
    std::snprintf(buf, sizeof buf, "%.2f", median);
  else
    std::snprintf(buf, sizeof buf, "%.2f [%.2f-%.2f]", median, q.front(), q.back());
  return buf;
}

void print_targets_header(const char* program, const std::string& strata_path,
                          const BrokerTarget& strata, const MockTarget* mock) {
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::printf("# %s: librdkafka %s, %u cores, load average %.2f %.2f %.2f\n", program,
              rd_kafka_version_str(), std::thread::hardware_concurrency(), load[0], load[1],
              load[2]);
  if (strata.pid() > 0) {
    std::printf("# strata: %s broker, pid %d, %s, data in %s\n", strata_path.c_str(),
                int(strata.pid()), strata.bootstrap().c_str(), strata.dir().c_str());
  } else {
    std::printf("# strata: broker at %s\n", strata.bootstrap().c_str());
  }
  std::printf("# mock: %s\n", mock ? "rd_kafka_mock_cluster_new, 1 broker, in this process"
                                   : "skipped (--no-mock)");
}

void probe_and_record_fdatasync(const BrokerTarget& strata, double seconds, int rep,
                                Results& results) {
  if (strata.pid() <= 0) return;
  const SyncProbe p = probe_fdatasync(strata.dir(), seconds);
  std::printf(
      "fdatasync probe rep %d (data dir's file system, 200 B appends, 1 thread): "
      "%.0f/s, p50 %.2f ms, p99 %.2f ms\n",
      rep, p.per_s, p.p50_ms, p.p99_ms);
  std::printf("RESULT test=fdatasync_probe rep=%d per_s=%.1f p50_ms=%.3f p99_ms=%.3f\n", rep,
              p.per_s, p.p50_ms, p.p99_ms);
  results["fdatasync_per_s.strata"].push_back(p.per_s);
  results["fdatasync_p50_ms.strata"].push_back(p.p50_ms);
  results["fdatasync_p99_ms.strata"].push_back(p.p99_ms);
}

}  // namespace strata_bench

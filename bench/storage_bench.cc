// Storage benchmarks (issue 3): append throughput, recovery scan speed and offset lookup
// latency of the partition log. Each target is a ratio to a baseline measured in the same
// run, just before it: the subject's `vs_*` counter (wall time) and `vs_*_cpu` (thread
// CPU time, the steadier one when the shared machine is busy).
//
//  - Append: 1 MiB of batches per Log::append (offset stamping, one pwrite, index entries;
//    page cache only, no fsync) vs one plain pwrite() of the same 1 MiB. Target >= 90%.
//    BM_AppendPaired alternates the two call by call, so both see the same noise.
//  - Recovery: Segment::recover and Log::open with clean_shutdown=false (Kafka's unclean
//    start: validate every batch, rebuild the indexes; Log::open also fdatasyncs and msyncs
//    what it recovered) vs pread() in 1 MiB chunks + CRC32C. Target >= 80%. Both read the
//    segment from the page cache (it was just written): labelled "page cache".
//  - Lookup: ns per Log::read(random offset, 1 MiB) (index lookup, short scan, the region
//    of whole batches; no data copy), per Segment::find_batch and per OffsetIndex::lookup,
//    in one segment with the default index.interval.bytes (4096). No target; for tracking.
//
// Segments are 1 GiB, built once per batch shape and reused; 256 MiB (labelled) when the
// bench directory lacks the space. STRATA_BENCH_SEGMENT_MIB overrides the size (the ctest
// smoke run uses 8). Files go to $STRATA_BENCH_DIR (default /tmp) and are removed at exit.
// Run:
//   build/release/bench/storage_bench --benchmark_min_time=0.5 --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "record/crc32c.h"
#include "storage/index_format.h"
#include "storage/log.h"
#include "storage/offset_index.h"
#include "storage/segment.h"

using namespace strata;
using namespace strata::storage;

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kMiB = uint64_t(1) << 20;
constexpr uint64_t kAppendCallBytes = kMiB;  // batches handed to one Log::append
constexpr uint64_t kReadChunkBytes = kMiB;   // the baseline's read size (as recovery's)
// The append benchmarks start a fresh file or log (untimed) when this much is written:
// one default segment.bytes, and below the kernel's dirty_background threshold (~2 GiB
// here), so nothing is written back to disk meanwhile.
constexpr uint64_t kAppendFileCapBytes = 1024 * kMiB;
constexpr uint64_t kDefaultSegmentMiB = 1024;
constexpr uint64_t kFallbackSegmentMiB = 256;
constexpr size_t kValueBytes = 100;  // record values, as in record_bench
constexpr size_t kLookupTargets = 1 << 16;
constexpr int64_t kNow = 1700000000000;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "storage_bench: %s\n", what.c_str());
  std::abort();
}

template <class R>
void check(const R& r, const char* what) {
  if (!r.ok()) die(std::string(what) + ": " + r.error().message());
}

std::string bench_dir() {
  const char* dir = std::getenv("STRATA_BENCH_DIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

std::string bench_path(const std::string& name) {
  return bench_dir() + "/strata-storage-bench-" + std::to_string(::getpid()) + "-" + name;
}

uint64_t free_bytes(const std::string& dir) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return 0;
  return uint64_t(st.f_bavail) * st.f_frsize;
}

// Wall and thread CPU time of one timed section. The machine is shared: wall time also
// counts waits for a CPU, CPU time does not (nor waits for the disk, which no timed
// section here should do), so on a busy machine the CPU-time ratios are the steadier.
struct Lap {
  double wall_s = 0;
  double cpu_s = 0;
};

double thread_cpu_s() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

class Stopwatch {
 public:
  Stopwatch() : wall_(Clock::now()), cpu_s_(thread_cpu_s()) {}
  Lap lap() const {
    return {std::chrono::duration<double>(Clock::now() - wall_).count(), thread_cpu_s() - cpu_s_};
  }

 private:
  Clock::time_point wall_;
  double cpu_s_;
};

// --- Batches ----------------------------------------------------------------------------

// One uncompressed batch of at most `batch_bytes`, of records with `value_bytes` values
// (at least one record).
std::vector<uint8_t> make_batch(size_t batch_bytes, size_t value_bytes) {
  record::BatchBuilder b(record::BatchOptions{});
  std::mt19937 rng(1);
  std::string value(value_bytes, 'x');
  constexpr size_t kRecordOverheadBytes = 12;  // length, attributes, deltas, key, headers
  do {
    for (auto& ch : value) ch = char('a' + rng() % 16);  // text-like, as in record_bench
    b.append(kNow + b.record_count(), std::nullopt, as_bytes(value));
  } while (b.uncompressed_size() + value_bytes + kRecordOverheadBytes <= batch_bytes);
  return std::move(b.finish()).value();
}

// Copies of one batch back to back, as many as fit in `total_bytes`.
struct Chunk {
  std::vector<uint8_t> bytes;
  size_t batch_bytes = 0;
  size_t batches = 0;
};

Chunk make_chunk(size_t batch_bytes, size_t value_bytes, uint64_t total_bytes) {
  const auto batch = make_batch(batch_bytes, value_bytes);
  Chunk c;
  c.batch_bytes = batch.size();
  c.batches = size_t(total_bytes / batch.size());
  c.bytes.reserve(c.batches * batch.size());
  for (size_t i = 0; i < c.batches; ++i) c.bytes.insert(c.bytes.end(), batch.begin(), batch.end());
  return c;
}

std::string shape_name(int64_t batch_bytes, int64_t value_bytes) {
  return std::to_string(batch_bytes) + "B-batches/" + std::to_string(value_bytes) + "B-values";
}

// --- Throughput, and ratios against the baseline measured just before -------------------

// Bytes through timed sections, in wall and in CPU time. Each iteration's manual time
// is its lap's wall time, so Google Benchmark's bytes_per_second is the wall-time rate.
struct Throughput {
  uint64_t bytes = 0;
  Lap total;
  void add(uint64_t b, Lap lap) {
    bytes += b;
    total.wall_s += lap.wall_s;
    total.cpu_s += lap.cpu_s;
  }
  double wall_rate() const { return total.wall_s > 0 ? double(bytes) / total.wall_s : 0; }
  double cpu_rate() const { return total.cpu_s > 0 ? double(bytes) / total.cpu_s : 0; }
};

void report_rates(benchmark::State& state, const Throughput& t) {
  state.SetBytesProcessed(int64_t(t.bytes));
  state.counters["GB/s"] = t.wall_rate() / 1e9;
  state.counters["cpu_GB/s"] = t.cpu_rate() / 1e9;
}

// Bytes per second, in wall and in CPU time, of each baseline's latest run, by key.
std::map<std::string, std::pair<double, double>>& baselines() {
  static std::map<std::string, std::pair<double, double>> m;
  return m;
}

void report_baseline(benchmark::State& state, const Throughput& t, const std::string& key) {
  report_rates(state, t);
  baselines()[key] = {t.wall_rate(), t.cpu_rate()};
}

// `ratio` (wall time) and `ratio`_cpu against the baseline under `key`, when it ran.
void report_subject(benchmark::State& state, const Throughput& t, const std::string& key,
                    const std::string& ratio) {
  report_rates(state, t);
  auto it = baselines().find(key);
  if (it == baselines().end() || it->second.first <= 0 || it->second.second <= 0) return;
  state.counters[ratio] = t.wall_rate() / it->second.first;
  state.counters[ratio + "_cpu"] = t.cpu_rate() / it->second.second;
}

// --- Logs -----------------------------------------------------------------------------

LogOptions log_options(bool clean_shutdown) {
  LogOptions o;
  o.clean_shutdown = clean_shutdown;
  o.now_ms = kNow;
  return o;
}

std::unique_ptr<Log> open_log(const std::string& dir, bool clean_shutdown) {
  auto log = Log::open(dir, log_options(clean_shutdown));
  check(log, "open log");
  return std::move(*log);
}

std::string log_file_path(const std::string& dir) {
  return dir + "/" + segment_file_name(Offset(0), kLogSuffix);
}

// A one-segment log of `segment_bytes` of one batch shape, built on first use and kept
// (closed: data flushed, indexes trimmed) until the program exits. Every user leaves it
// closed again, so the next one may open it clean.
struct Fixture {
  std::string dir;
  uint64_t log_bytes = 0;
  size_t batch_bytes = 0;  // of each batch, as built
  Offset log_end{0};
  std::string label;  // segment size, and whether it is the low-space fallback
  Fixture() = default;
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;
  ~Fixture() {
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }
};

uint64_t wanted_segment_bytes(bool* fallback) {
  *fallback = false;
  if (const char* env = std::getenv("STRATA_BENCH_SEGMENT_MIB"); env != nullptr && *env != '\0') {
    return std::strtoull(env, nullptr, 10) * kMiB;
  }
  // Room for the segment, its indexes and some slack (~1.2x).
  const uint64_t want = kDefaultSegmentMiB * kMiB;
  if (free_bytes(bench_dir()) >= want + want / 5) return want;
  *fallback = true;
  return kFallbackSegmentMiB * kMiB;
}

Fixture& fixture(size_t batch_bytes, size_t value_bytes) {
  static std::map<std::pair<size_t, size_t>, std::unique_ptr<Fixture>> built;
  auto& slot = built[{batch_bytes, value_bytes}];
  if (slot) return *slot;
  bool fallback = false;
  const uint64_t target = wanted_segment_bytes(&fallback);
  auto f = std::make_unique<Fixture>();
  f->dir = bench_path("segment-" + std::to_string(batch_bytes) + "-" + std::to_string(value_bytes));
  std::filesystem::remove_all(f->dir);
  Chunk chunk = make_chunk(batch_bytes, value_bytes, std::min(kAppendCallBytes, target));
  auto log = open_log(f->dir, true);
  while (log->size_bytes() + chunk.bytes.size() <= target) {
    check(log->append(chunk.bytes, LeaderEpoch(1), kNow), "append");
  }
  if (log->segment_count() != 1) die("fixture rolled: segment.bytes below the target size");
  f->log_bytes = log->size_bytes();
  f->log_end = log->log_end_offset();
  f->batch_bytes = chunk.batch_bytes;
  check(log->close(), "close");
  f->label = std::to_string((f->log_bytes + kMiB / 2) / kMiB) + "MiB segment" +
             (fallback ? " (low-space fallback)" : "");
  slot = std::move(f);
  return *slot;
}

// --- Append: Log::append vs plain pwrite, 1 MiB per call -------------------------------

uint64_t append_cap_bytes() {
  bool fallback = false;
  return std::min(kAppendFileCapBytes, std::max(wanted_segment_bytes(&fallback), 8 * kMiB));
}

// The baseline: each chunk with one pwrite at the end of a file. At the cap the file is
// truncated to empty (untimed), which drops its dirty pages without writing them.
class PlainAppender {
 public:
  explicit PlainAppender(const std::string& name) : path_(bench_path(name)) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) die("open " + path_);
  }
  ~PlainAppender() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  Lap append(const Chunk& chunk, uint64_t cap) {
    if (end_ + chunk.bytes.size() > cap) {
      if (::ftruncate(fd_, 0) != 0) die("ftruncate " + path_);
      end_ = 0;
    }
    const Stopwatch timer;
    size_t done = 0;
    while (done < chunk.bytes.size()) {
      const ssize_t n =
          ::pwrite(fd_, chunk.bytes.data() + done, chunk.bytes.size() - done, off_t(end_ + done));
      if (n < 0 && errno != EINTR) die("pwrite " + path_);
      if (n > 0) done += size_t(n);
    }
    const Lap lap = timer.lap();
    end_ += chunk.bytes.size();
    return lap;
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t end_ = 0;
};

// The subject: each chunk through Log::append (stamping every batch, one pwrite, index
// entries). At the cap, a fresh log (untimed), its old segment first truncated to empty
// like the baseline's file, so its dirty pages are dropped, never written back: a disk
// write of the full segment would land its traffic in the timed appends.
class LogAppender {
 public:
  explicit LogAppender(const std::string& name) : dir_(bench_path(name)) { fresh(); }
  ~LogAppender() { drop(); }
  Lap append(Chunk& chunk, uint64_t cap) {
    if (log_->size_bytes() + chunk.bytes.size() > cap) fresh();
    const Stopwatch timer;
    auto r = log_->append(chunk.bytes, LeaderEpoch(1), kNow);
    const Lap lap = timer.lap();
    check(r, "append");
    return lap;
  }

 private:
  void drop() {
    if (log_ != nullptr) (void)::truncate(log_file_path(dir_).c_str(), 0);
    log_.reset();
    std::filesystem::remove_all(dir_);
  }
  void fresh() {
    drop();
    log_ = open_log(dir_, true);
  }

  std::string dir_;
  std::unique_ptr<Log> log_;
};

std::string append_key(const benchmark::State& state) {
  return "append/" + std::to_string(state.range(0));
}

void append_counters(benchmark::State& state, const Chunk& chunk, const char* label) {
  state.counters["batches_per_call"] = double(chunk.batches);
  state.SetLabel(std::to_string(chunk.batch_bytes) + "B batches, " + label);
}

void BM_AppendPlainPwrite(benchmark::State& state) {
  const Chunk chunk = make_chunk(size_t(state.range(0)), kValueBytes, kAppendCallBytes);
  const uint64_t cap = append_cap_bytes();
  PlainAppender plain("plain");
  Throughput t;
  for (auto _ : state) {
    const Lap lap = plain.append(chunk, cap);
    state.SetIterationTime(lap.wall_s);
    t.add(chunk.bytes.size(), lap);
  }
  report_baseline(state, t, append_key(state));
  append_counters(state, chunk, "page cache");
}

void BM_AppendLog(benchmark::State& state) {
  Chunk chunk = make_chunk(size_t(state.range(0)), kValueBytes, kAppendCallBytes);
  const uint64_t cap = append_cap_bytes();
  LogAppender log("append-log");
  Throughput t;
  for (auto _ : state) {
    const Lap lap = log.append(chunk, cap);
    state.SetIterationTime(lap.wall_s);
    t.add(chunk.bytes.size(), lap);
  }
  report_subject(state, t, append_key(state), "vs_plain_pwrite");
  append_counters(state, chunk, "page cache, no fsync");
}

// Both in turn, each call timed alone: the ratio with the machine's noise shared between
// them (the two rows above drift apart when a neighbour gets busy in between). Each file
// gets half the cap, to keep the dirty data as low as above.
void BM_AppendPaired(benchmark::State& state) {
  Chunk chunk = make_chunk(size_t(state.range(0)), kValueBytes, kAppendCallBytes);
  const uint64_t cap = append_cap_bytes() / 2;
  PlainAppender plain("paired-plain");
  LogAppender log("paired-log");
  Throughput plain_t, log_t;
  for (auto _ : state) {
    const Lap p = plain.append(chunk, cap);
    const Lap l = log.append(chunk, cap);
    state.SetIterationTime(p.wall_s + l.wall_s);
    plain_t.add(chunk.bytes.size(), p);
    log_t.add(chunk.bytes.size(), l);
  }
  state.SetBytesProcessed(int64_t(plain_t.bytes + log_t.bytes));
  state.counters["plain_GB/s"] = plain_t.wall_rate() / 1e9;
  state.counters["log_GB/s"] = log_t.wall_rate() / 1e9;
  state.counters["vs_plain_pwrite"] = log_t.wall_rate() / plain_t.wall_rate();
  state.counters["vs_plain_pwrite_cpu"] = log_t.cpu_rate() / plain_t.cpu_rate();
  append_counters(state, chunk, "page cache, no fsync");
}

void AppendShapes(benchmark::internal::Benchmark* b) {
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_AppendPlainPwrite)->Arg(16 << 10)->Apply(AppendShapes);
BENCHMARK(BM_AppendLog)->Arg(16 << 10)->Apply(AppendShapes);
BENCHMARK(BM_AppendPlainPwrite)->Arg(1 << 10)->Apply(AppendShapes);
BENCHMARK(BM_AppendLog)->Arg(1 << 10)->Apply(AppendShapes);
BENCHMARK(BM_AppendPaired)->Arg(16 << 10)->Arg(1 << 10)->Apply(AppendShapes);

// --- Recovery: Segment::recover, Log::open unclean vs pread + CRC32C -------------------

std::string recovery_key(const benchmark::State& state) {
  return "recover/" + shape_name(state.range(0), state.range(1));
}

// The baseline: the whole segment file in 1 MiB preads, CRC32C over every chunk.
void BM_RecoverReadCrc(benchmark::State& state) {
  Fixture& f = fixture(size_t(state.range(0)), size_t(state.range(1)));
  const std::string path = log_file_path(f.dir);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open " + path);
  std::vector<uint8_t> buf(kReadChunkBytes);
  Throughput t;
  for (auto _ : state) {
    const Stopwatch timer;
    uint32_t crcs = 0;
    uint64_t pos = 0;
    for (;;) {
      const ssize_t n = ::pread(fd, buf.data(), buf.size(), off_t(pos));
      if (n < 0) die("pread");
      if (n == 0) break;
      crcs ^= record::crc32c(Bytes(buf.data(), size_t(n)));
      pos += uint64_t(n);
    }
    benchmark::DoNotOptimize(crcs);
    const Lap lap = timer.lap();
    if (pos != f.log_bytes) die("short read of " + path);
    state.SetIterationTime(lap.wall_s);
    t.add(pos, lap);
  }
  ::close(fd);
  report_baseline(state, t, recovery_key(state));
  state.SetLabel(f.label + ", page cache");
}

// What an unclean start does to the segment: every batch framed and CRC-checked (no
// record decode, as Kafka's LogSegment.recover); both indexes rebuilt. No flush.
void BM_RecoverSegment(benchmark::State& state) {
  Fixture& f = fixture(size_t(state.range(0)), size_t(state.range(1)));
  const LogConfig config;
  Throughput t;
  for (auto _ : state) {
    auto seg = Segment::open(f.dir, Offset(0), config, /*active=*/true, kNow);
    check(seg, "open segment");
    const Stopwatch timer;
    auto stats = (*seg)->recover(config);
    const Lap lap = timer.lap();
    check(stats, "recover");
    if (stats->valid_bytes != f.log_bytes) die("recovery truncated: " + stats->reason);
    check((*seg)->on_become_inactive(), "trim indexes");  // untimed: leave it as closed
    state.SetIterationTime(lap.wall_s);
    t.add(f.log_bytes, lap);
  }
  report_subject(state, t, recovery_key(state), "vs_read_crc");
  state.SetLabel(f.label + ", page cache");
}

// Log::open with clean_shutdown=false and no recovery point: the recovery above, then
// the fdatasync of the log and msyncs of the rebuilt indexes that make it durable.
void BM_RecoverLogOpenUnclean(benchmark::State& state) {
  Fixture& f = fixture(size_t(state.range(0)), size_t(state.range(1)));
  Throughput t;
  for (auto _ : state) {
    const Stopwatch timer;
    auto log = open_log(f.dir, /*clean_shutdown=*/false);
    const Lap lap = timer.lap();
    if (log->recovery_report().segments_recovered != 1 ||
        log->recovery_report().bytes_truncated != 0) {
      die("unexpected recovery of " + f.dir);
    }
    check(log->close(), "close");  // untimed
    state.SetIterationTime(lap.wall_s);
    t.add(f.log_bytes, lap);
  }
  report_subject(state, t, recovery_key(state), "vs_read_crc");
  state.SetLabel(f.label + ", page cache, with flush");
}

// Per shape (batch bytes, value bytes), the baseline and right after it its subjects.
bool register_recovery_benchmarks() {
  using Fn = void (*)(benchmark::State&);
  const std::pair<const char*, Fn> runs[] = {
      {"BM_RecoverReadCrc", BM_RecoverReadCrc},
      {"BM_RecoverSegment", BM_RecoverSegment},
      {"BM_RecoverLogOpenUnclean", BM_RecoverLogOpenUnclean}};
  const std::pair<int64_t, int64_t> shapes[] = {
      {16 << 10, kValueBytes}, {1 << 10, kValueBytes}, {16 << 10, 1000}};
  for (const auto& [batch, value] : shapes) {
    for (const auto& [name, fn] : runs) {
      benchmark::RegisterBenchmark(name, fn)
          ->Args({batch, value})
          ->ArgNames({"batch", "value"})
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  return true;
}
const bool recovery_registered = register_recovery_benchmarks();

// --- Lookup: random offsets in one segment ------------------------------------------------

std::vector<Offset> random_offsets(Offset end) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> pick(0, end.value() - 1);
  std::vector<Offset> out(kLookupTargets);
  for (auto& o : out) o = Offset(pick(rng));
  return out;
}

void lookup_counters(benchmark::State& state, const Fixture& f) {
  state.SetItemsProcessed(int64_t(state.iterations()));
  state.counters["batch_bytes"] = double(f.batch_bytes);
  state.SetLabel(f.label + ", page cache");
}

// The index alone: the largest entry <= a random offset.
void BM_LookupOffsetIndex(benchmark::State& state) {
  Fixture& f = fixture(size_t(state.range(0)), kValueBytes);
  const LogConfig config;
  auto index = OffsetIndex::open(f.dir + "/" + segment_file_name(Offset(0), kIndexSuffix),
                                 Offset(0), size_t(config.segment_index_bytes), false);
  check(index, "open index");
  const auto targets = random_offsets(f.log_end);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(index->lookup(targets[i++ % targets.size()]));
  }
  lookup_counters(state, f);
  state.counters["index_entries"] = double(index->entries());
}

// Segment::find_batch: the index, then batch headers read from the hinted position on.
void BM_LookupFindBatch(benchmark::State& state) {
  Fixture& f = fixture(size_t(state.range(0)), kValueBytes);
  auto seg = Segment::open(f.dir, Offset(0), LogConfig{}, /*active=*/false, kNow);
  check(seg, "open segment");
  const auto targets = random_offsets(f.log_end);
  size_t i = 0;
  for (auto _ : state) {
    const Offset target = targets[i++ % targets.size()];
    auto loc = (*seg)->find_batch(target);
    if (!loc.ok() || !*loc || (*loc)->first_offset > target) die("find_batch missed");
  }
  lookup_counters(state, f);
}

// Log::read for a fetch of up to 1 MiB from a random offset: the FileRegion only.
void BM_LookupLogRead(benchmark::State& state) {
  Fixture& f = fixture(size_t(state.range(0)), kValueBytes);
  auto log = open_log(f.dir, /*clean_shutdown=*/true);
  const auto targets = random_offsets(f.log_end);
  size_t i = 0;
  uint64_t region_bytes = 0;
  for (auto _ : state) {
    auto region = log->read(targets[i++ % targets.size()], kMiB, true, std::nullopt);
    if (!region.ok() || !*region) die("read missed");
    region_bytes += (*region)->size;
  }
  check(log->close(), "close");
  lookup_counters(state, f);
  state.counters["region_bytes"] = double(region_bytes) / double(state.iterations());
}

BENCHMARK(BM_LookupOffsetIndex)->Arg(16 << 10)->Arg(1 << 10);
BENCHMARK(BM_LookupFindBatch)->Arg(16 << 10)->Arg(1 << 10);
BENCHMARK(BM_LookupLogRead)->Arg(16 << 10)->Arg(1 << 10)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

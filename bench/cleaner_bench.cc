// Compaction benchmark (issue 7): one full cleaning of a compacted log of N keyed records
// over K distinct keys (defaults: 10,000,000 over 1,000,000; 16-byte keys, 100-byte
// values, 100 records per batch, 64 MiB segments), paired in the same run with the I/O a
// cleaning cannot avoid.
//
//  - Subject: Log::prepare_clean + run_clean + finish_clean with the default
//    CleanerConfig (log.cleaner.dedupe.buffer.size 128 MiB, one thread, load factor 0.9),
//    everything below the active segment dirty. Reported: MB/s of dirty log, records/s,
//    wall and CPU time, the bytes and records kept, and the process's peak RSS during
//    the cleaning (VmHWM, reset through /proc/self/clear_refs just before the offset map
//    is made), beside the map's own fixed size.
//  - Physical limit: the same segment files copied once, file by file, into a new file
//    beside them (pread + pwrite of 1 MiB, fdatasync each file, then unlinked). A
//    cleaning reads the dirty log (twice: to map it, then to filter it) and writes what
//    survives, fdatasynced per cleaned segment; the copy writes everything, so it is the
//    I/O of a cleaning that keeps every record. Reported: cleaning time / copy time.
//    A plain read pass (pread only) is printed too: the part no cleaning can skip.
//  - A second cleaning right after, from the checkpoint the first one returned: nothing
//    is dirty, so prepare_clean should find no task.
//
// Both the copy and the cleaning read the segments from the page cache: the log is
// written through Log::append and flushed (untimed) just before, so no writeback of it
// overlaps the timed parts. Files go to $STRATA_BENCH_DIR (default /tmp); the log needs
// about (key + value + 8) bytes per record, and the run wants twice that free (the
// cleaned copy lives beside the log until the swap); with less room the record and key
// counts are scaled down together, and the output says so. Everything is removed at exit.
//
// Run (one full-size measurement: ~20 s uncompressed, ~50 s zstd; docs/performance.md,
// "Compaction"):
//   build/release/bench/cleaner_bench
//   build/release/bench/cleaner_bench --codec zstd
// Options: --records N --keys K --key-bytes B --value-bytes B --batch-records R
//          --segment-mib M --codec none|lz4|zstd|snappy|gzip
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "record/batch_format.h"
#include "storage/index_format.h"
#include "storage/log.h"
#include "storage/log_cleaner.h"
#include "storage/offset_map.h"

using namespace strata;
using namespace strata::storage;

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kMiB = uint64_t(1) << 20;
constexpr uint64_t kAppendCallBytes = kMiB;  // batches handed to one Log::append
constexpr uint64_t kCopyChunkBytes = kMiB;   // the copy's pread/pwrite size
constexpr size_t kValuePoolBytes = kMiB;     // values are slices of one random text
constexpr int64_t kNow = 1700000000000;
constexpr int64_t kKeyBytesMin = 8;
constexpr int64_t kKeyBytesMax = 64;
constexpr int64_t kRecordOverheadBytes = 8;  // per record in a batch, besides key and value

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "cleaner_bench: %s\n", what.c_str());
  std::exit(1);
}

template <class R>
void check(const R& r, const char* what) {
  if (!r.ok()) die(std::string(what) + ": " + r.error().message());
}

struct Options {
  int64_t records = 10'000'000;
  int64_t keys = 1'000'000;
  int64_t key_bytes = 16;
  int64_t value_bytes = 100;
  int64_t batch_records = 100;
  int64_t segment_mib = 64;
  record::Codec codec = record::Codec::kNone;
};

std::optional<record::Codec> codec_named(const std::string& name) {
  for (uint8_t c = 0; c <= record::kCodecMax; ++c) {
    if (name == record::codec_name(record::Codec(c))) return record::Codec(c);
  }
  return std::nullopt;
}

int64_t positive(const char* flag, const char* text) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0) die(std::string(flag) + ": not a positive number");
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) die(flag + ": missing value");
    const char* v = argv[++i];
    if (flag == "--records")
      o.records = positive(argv[i - 1], v);
    else if (flag == "--keys")
      o.keys = positive(argv[i - 1], v);
    else if (flag == "--key-bytes")
      o.key_bytes = positive(argv[i - 1], v);
    else if (flag == "--value-bytes")
      o.value_bytes = positive(argv[i - 1], v);
    else if (flag == "--batch-records")
      o.batch_records = positive(argv[i - 1], v);
    else if (flag == "--segment-mib")
      o.segment_mib = positive(argv[i - 1], v);
    else if (flag == "--codec") {
      auto c = codec_named(v);
      if (!c) die(std::string("--codec: unknown codec ") + v);
      o.codec = *c;
    } else {
      die("unknown flag " + flag);
    }
  }
  if (o.key_bytes < kKeyBytesMin || o.key_bytes > kKeyBytesMax) die("--key-bytes: 8 to 64");
  if (o.keys > o.records) die("--keys: more keys than records");
  if (o.batch_records > 10000) die("--batch-records: at most 10000");
  return o;
}

// --- Measurement helpers ---------------------------------------------------------------

double process_cpu_s() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

// Time spent runnable but waiting for a CPU (schedstat's run_delay), 0 where absent.
// On the shared 2-core machine it is most of the gap between wall and CPU time.
double run_queue_wait_s() {
  std::ifstream in("/proc/self/schedstat");
  unsigned long long cpu_ns = 0, wait_ns = 0;
  in >> cpu_ns >> wait_ns;
  return in ? double(wait_ns) * 1e-9 : 0;
}

// Wall, CPU and run-queue time of one timed section (the program has one thread, so
// the process's CPU time is the section's own).
struct Lap {
  double wall_s = 0;
  double cpu_s = 0;
  double wait_s = 0;
};

class Stopwatch {
 public:
  Stopwatch() : wall_(Clock::now()), cpu_s_(process_cpu_s()), wait_s_(run_queue_wait_s()) {}
  Lap lap() const {
    return {std::chrono::duration<double>(Clock::now() - wall_).count(), process_cpu_s() - cpu_s_,
            run_queue_wait_s() - wait_s_};
  }

 private:
  Clock::time_point wall_;
  double cpu_s_;
  double wait_s_;
};

// A "VmHWM:" or "VmRSS:" line of /proc/self/status, in bytes (0 if absent).
uint64_t status_bytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0) return std::strtoull(line.c_str() + n, nullptr, 10) * 1024;
  }
  return 0;
}

// Resets VmHWM to the current RSS (Linux 4.0+); false where that is not allowed.
bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return out.good();
}

uint64_t free_bytes(const std::string& dir) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return 0;
  return uint64_t(st.f_bavail) * st.f_frsize;
}

double mb(uint64_t bytes) {
  return double(bytes) / 1e6;
}
double mib(uint64_t bytes) {
  return double(bytes) / double(kMiB);
}

// --- The workload ---------------------------------------------------------------------

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Record i's key: one of `keys`, uniformly at random (seeded), as decimal digits padded
// to key_bytes. Each key is written ~records/keys times, its latest copy anywhere, more
// of them towards the end of the log.
void key_of(int64_t i, const Options& o, char* out) {
  const uint64_t k = splitmix64(uint64_t(i)) % uint64_t(o.keys);
  char digits[32];
  const int n = std::snprintf(digits, sizeof digits, "%llu", static_cast<unsigned long long>(k));
  std::memset(out, '0', size_t(o.key_bytes));
  std::memcpy(out + o.key_bytes - n, digits, size_t(n));
}

// Text-like values (a 16-letter alphabet, as record_bench's): slices of one random text.
std::string value_pool(const Options& o) {
  std::string pool(kValuePoolBytes + size_t(o.value_bytes), ' ');
  uint64_t x = 1;
  for (auto& ch : pool) ch = char('a' + (x = splitmix64(x)) % 16);
  return pool;
}

// Records [first, first + count) as one batch.
std::vector<uint8_t> make_batch(int64_t first, int64_t count, const Options& o,
                                const std::string& pool) {
  record::BatchOptions bo;
  bo.codec = o.codec;
  record::BatchBuilder b(bo);
  char key[kKeyBytesMax];
  for (int64_t i = first; i < first + count; ++i) {
    key_of(i, o, key);
    const size_t at = size_t(splitmix64(uint64_t(i) ^ 0x5bd1e995) % kValuePoolBytes);
    b.append(kNow, Bytes(reinterpret_cast<const uint8_t*>(key), size_t(o.key_bytes)),
             Bytes(reinterpret_cast<const uint8_t*>(pool.data() + at), size_t(o.value_bytes)));
  }
  auto batch = b.finish();
  if (!batch.ok()) die("batch build failed");
  return std::move(*batch);
}

LogConfig compact_config(const Options& o) {
  LogConfig c;
  c.cleanup_policy = "compact";
  c.min_cleanable_dirty_ratio = 0;
  c.segment_bytes = o.segment_mib * int64_t(kMiB);
  c.file_delete_delay_ms = 0;  // replaced segments go at the next tick (untimed)
  return c;
}

// Rolls the active segment so that everything before it is cleanable: one record with
// key "~roll" appended with segment.ms made tiny (as the cleaner tests' force_roll).
void force_roll(Log& log) {
  LogConfig c = log.config();
  const LogConfig saved = c;
  c.segment_ms = 1;
  log.set_config(c);
  record::BatchBuilder b(record::BatchOptions{});
  b.append(kNow, as_bytes("~roll"), as_bytes("r"));
  auto batch = std::move(b.finish()).value();
  check(log.append(batch, LeaderEpoch(1), kNow + 10), "append (roll)");
  log.set_config(saved);
}

struct Built {
  std::unique_ptr<Log> log;
  Lap lap;
  uint64_t batches = 0;
};

Built build_log(const std::string& dir, const Options& o) {
  LogOptions lo;
  lo.config = compact_config(o);
  lo.clean_shutdown = true;
  lo.now_ms = kNow;
  auto opened = Log::open(dir, lo);
  check(opened, "open log");
  Built out;
  out.log = std::move(*opened);
  const std::string pool = value_pool(o);
  std::vector<uint8_t> chunk;
  chunk.reserve(kAppendCallBytes + kMiB);
  const Stopwatch timer;
  for (int64_t i = 0; i < o.records; i += o.batch_records) {
    const auto batch = make_batch(i, std::min(o.batch_records, o.records - i), o, pool);
    chunk.insert(chunk.end(), batch.begin(), batch.end());
    ++out.batches;
    if (chunk.size() >= kAppendCallBytes || i + o.batch_records >= o.records) {
      check(out.log->append(chunk, LeaderEpoch(1), kNow), "append");
      chunk.clear();
    }
  }
  out.lap = timer.lap();
  force_roll(*out.log);
  check(out.log->flush(), "flush");  // untimed: no writeback during the timed parts
  return out;
}

// --- The physical limit: read, or read and write once, the same segment files -----------

std::vector<std::string> cleanable_files(const Log& log) {
  std::vector<std::string> out;
  const auto bases = log.segment_bases();
  for (size_t i = 0; i + 1 < bases.size(); ++i) {  // all but the active segment
    out.push_back(log.dir() + "/" + segment_file_name(bases[i], kLogSuffix));
  }
  return out;
}

int open_or_die(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) die("open " + path + ": " + std::strerror(errno));
  return fd;
}

void write_all(int fd, const uint8_t* data, size_t n, uint64_t at) {
  for (size_t done = 0; done < n;) {
    const ssize_t w = ::pwrite(fd, data + done, n - done, off_t(at + done));
    if (w < 0 && errno != EINTR) die(std::string("pwrite: ") + std::strerror(errno));
    if (w > 0) done += size_t(w);
  }
}

// Reads `path` in 1 MiB preads; with out_fd >= 0 writes each chunk there at the same
// position. Returns the bytes read.
uint64_t pass_over(const std::string& path, std::vector<uint8_t>& buf, int out_fd) {
  const int fd = open_or_die(path, O_RDONLY);
  uint64_t pos = 0;
  for (;;) {
    const ssize_t n = ::pread(fd, buf.data(), buf.size(), off_t(pos));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("pread " + path + ": " + std::strerror(errno));
    if (n == 0) break;
    if (out_fd >= 0) write_all(out_fd, buf.data(), size_t(n), pos);
    pos += uint64_t(n);
  }
  ::close(fd);
  return pos;
}

struct Pass {
  Lap lap;
  uint64_t bytes = 0;
};

Pass read_pass(const std::vector<std::string>& files) {
  std::vector<uint8_t> buf(kCopyChunkBytes);
  Pass p;
  const Stopwatch timer;
  for (const auto& f : files) p.bytes += pass_over(f, buf, -1);
  p.lap = timer.lap();
  return p;
}

// Each file copied to `<file>.copy` and fdatasynced (a cleaned segment is flushed the
// same way), then unlinked, untimed, so the copy never needs more than one segment's room.
Pass copy_pass(const std::vector<std::string>& files) {
  std::vector<uint8_t> buf(kCopyChunkBytes);
  Pass p;
  for (const auto& f : files) {
    const std::string to = f + ".copy";
    const Stopwatch timer;
    const int out = open_or_die(to, O_WRONLY | O_CREAT | O_TRUNC);
    p.bytes += pass_over(f, buf, out);
    if (::fdatasync(out) != 0) die("fdatasync " + to + ": " + std::strerror(errno));
    ::close(out);
    const Lap lap = timer.lap();
    p.lap.wall_s += lap.wall_s;
    p.lap.cpu_s += lap.cpu_s;
    p.lap.wait_s += lap.wait_s;
    ::unlink(to.c_str());
  }
  return p;
}

// --- The cleaning ---------------------------------------------------------------------

struct Cleaning {
  Lap prepare, run, finish, total;
  uint64_t dirty_bytes = 0;
  size_t segments = 0;
  CleanOutcome outcome;
  uint64_t rss_before = 0, rss_peak = 0, rss_after = 0;
  bool peak_reset = false;
  size_t map_slots = 0, map_keys = 0, map_entries_max = 0;
};

Cleaning clean_once(Log& log, const CleanerConfig& cc, int64_t now_ms) {
  Cleaning c;
  c.peak_reset = reset_peak_rss();
  c.rss_before = status_bytes("VmRSS:");
  // The cleaner thread's map, made once per thread (untimed, but inside the peak).
  auto map = OffsetMap::create(cc.map_bytes_per_thread());
  check(map, "offset map");
  c.map_slots = (*map)->slots();
  c.map_entries_max = size_t(std::floor(double(c.map_slots) * cc.dedupe_buffer_load_factor));

  const Stopwatch total;
  Stopwatch step;
  auto task = log.prepare_clean(std::nullopt, now_ms);
  c.prepare = step.lap();
  check(task, "prepare_clean");
  if (!*task) die("prepare_clean found nothing to clean");
  for (const CleanInput& in : (*task)->segments) c.dirty_bytes += in.size;
  c.segments = (*task)->segments.size();
  step = Stopwatch();
  auto result = run_clean(**task, **map, cc, now_ms);
  c.run = step.lap();
  check(result, "run_clean");
  step = Stopwatch();
  auto outcome = log.finish_clean(std::move(*result), now_ms);
  c.finish = step.lap();
  c.total = total.lap();
  check(outcome, "finish_clean");
  c.outcome = *outcome;
  c.map_keys = (*map)->size();
  task->reset();  // the task's hold on the replaced files
  c.rss_peak = status_bytes("VmHWM:");
  c.rss_after = status_bytes("VmRSS:");
  return c;
}

// --- Report ---------------------------------------------------------------------------

void print_pass(const char* name, uint64_t bytes, const Lap& lap) {
  std::printf("%-44s %7.1f MB %7.2f s wall %6.2f s cpu %6.2f s runq %7.1f MB/s\n", name, mb(bytes),
              lap.wall_s, lap.cpu_s, lap.wait_s, mb(bytes) / lap.wall_s);
}

void report(const Options& o, const Built& b, const Pass& read, const Pass& copy, const Cleaning& c,
            const CleanerConfig& cc, const Lap& second, bool second_task) {
  const CleanStats& s = c.outcome.stats;
  std::printf(
      "log: %.1f MB in %zu cleanable segments + the active one; %llu batches; "
      "built by Log::append in %.1f s (%.0f MB/s)\n",
      mb(c.dirty_bytes), c.segments, static_cast<unsigned long long>(b.batches), b.lap.wall_s,
      mb(c.dirty_bytes) / b.lap.wall_s);
  // One pass: the cleaning reached the active segment (the map did not fill first).
  const bool one_pass = c.outcome.first_dirty.value() >= b.log->segment_bases().back().value();
  std::printf(
      "offset map: %zu B fixed (%zu slots x %zu B), room for %zu keys at load factor "
      "%.2f; %zu keys mapped (%.1f%% of the slots): %s\n",
      c.map_slots * OffsetMap::kSlotBytes, c.map_slots, OffsetMap::kSlotBytes, c.map_entries_max,
      cc.dedupe_buffer_load_factor, c.map_keys, 100.0 * double(c.map_keys) / double(c.map_slots),
      one_pass ? "one pass cleans the whole dirty range" : "the map filled: partial");
  print_pass("read (pread 1 MiB, page cache):", read.bytes, read.lap);
  print_pass("copy (pread + pwrite 1 MiB + fdatasync/file):", copy.bytes, copy.lap);
  print_pass("clean (prepare + run + finish):", c.dirty_bytes, c.total);
  std::printf("  prepare %.4f s, run_clean %.2f s (%.2f cpu), finish_clean %.4f s (%.4f cpu)\n",
              c.prepare.wall_s, c.run.wall_s, c.run.cpu_s, c.finish.wall_s, c.finish.cpu_s);
  std::printf(
      "  read %.1f MB to map + %.1f MB to filter; wrote %.1f MB in %zu segments; "
      "%llu -> %llu records (%.2f M records/s of dirty log)\n",
      mb(s.map_bytes_read), mb(s.bytes_read), mb(s.bytes_written), s.segments_written,
      static_cast<unsigned long long>(s.records_read),
      static_cast<unsigned long long>(s.records_written),
      double(s.records_read) / c.total.wall_s / 1e6);
  std::printf("  clean / copy: %.2fx wall, %.2fx cpu;  clean / read: %.2fx wall\n",
              c.total.wall_s / copy.lap.wall_s, c.total.cpu_s / copy.lap.cpu_s,
              c.total.wall_s / read.lap.wall_s);
  std::printf(
      "memory: RSS %.1f MiB before the map; peak %.1f MiB during the cleaning "
      "(+%.1f MiB, of which the offset map %.1f MiB); %.1f MiB at the end, map held%s\n",
      mib(c.rss_before), mib(c.rss_peak), mib(c.rss_peak - c.rss_before),
      mib(c.map_slots * OffsetMap::kSlotBytes), mib(c.rss_after),
      c.peak_reset ? "" : " (VmHWM not reset: the peak is the whole process's)");
  std::printf("second cleaning from the checkpoint (%lld): %s in %.6f s\n",
              static_cast<long long>(c.outcome.first_dirty.value()),
              second_task ? "cleaned again" : "no task, nothing dirty", second.wall_s);
  std::printf(
      "summary: codec=%s records=%lld keys=%lld dirty_MB=%.1f clean_s=%.3f "
      "clean_cpu_s=%.3f copy_s=%.3f copy_cpu_s=%.3f read_s=%.3f clean_MB/s=%.1f "
      "Mrecords/s=%.3f clean/copy=%.3f clean_runq_s=%.3f peak_rss_MiB=%.1f peak_delta_MiB=%.1f "
      "map_MiB=%.1f kept_records=%llu kept_MB=%.1f\n",
      record::codec_name(o.codec), static_cast<long long>(o.records),
      static_cast<long long>(o.keys), mb(c.dirty_bytes), c.total.wall_s, c.total.cpu_s,
      copy.lap.wall_s, copy.lap.cpu_s, read.lap.wall_s, mb(c.dirty_bytes) / c.total.wall_s,
      double(s.records_read) / c.total.wall_s / 1e6, c.total.wall_s / copy.lap.wall_s,
      c.total.wait_s, mib(c.rss_peak), mib(c.rss_peak - c.rss_before),
      mib(c.map_slots * OffsetMap::kSlotBytes), static_cast<unsigned long long>(s.records_written),
      mb(s.bytes_written));
}

// Scales records and keys down together when the directory lacks room for twice the log.
void fit_to_space(Options& o, const std::string& dir) {
  const uint64_t per_record = uint64_t(o.key_bytes + o.value_bytes + kRecordOverheadBytes);
  const uint64_t want = 2 * uint64_t(o.records) * per_record + 256 * kMiB;
  const uint64_t have = free_bytes(dir);
  if (have >= want) return;
  const double scale = double(have) / double(want) * 0.9;
  if (scale < 0.001) die("no room in " + dir);
  std::printf(
      "LOW SPACE: %s has %.0f MB free, the run wants %.0f MB: records and keys "
      "scaled by %.3f\n",
      dir.c_str(), mb(have), mb(want), scale);
  o.records = std::max<int64_t>(1, int64_t(double(o.records) * scale));
  o.keys = std::max<int64_t>(1, int64_t(double(o.keys) * scale));
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  const char* env = std::getenv("STRATA_BENCH_DIR");
  const std::string root = env != nullptr && *env != '\0' ? env : "/tmp";
  fit_to_space(o, root);
  const std::string dir = root + "/strata-cleaner-bench-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::printf(
      "cleaner_bench: %lld records over %lld keys (%lld B keys, %lld B values, "
      "%lld per batch, codec %s), %lld MiB segments, in %s\n",
      static_cast<long long>(o.records), static_cast<long long>(o.keys),
      static_cast<long long>(o.key_bytes), static_cast<long long>(o.value_bytes),
      static_cast<long long>(o.batch_records), record::codec_name(o.codec),
      static_cast<long long>(o.segment_mib), dir.c_str());
  int status = 0;
  {
    Built b = build_log(dir, o);
    const auto files = cleanable_files(*b.log);
    if (files.empty()) die("nothing cleanable: the log has one segment");
    const Pass read = read_pass(files);
    const Pass copy = copy_pass(files);
    const CleanerConfig cc;
    const int64_t now_ms = kNow + 1000;
    const Cleaning c = clean_once(*b.log, cc, now_ms);
    b.log->tick(now_ms);  // unlinks the replaced segments (file.delete.delay.ms = 0)
    const Stopwatch second_timer;
    auto again = b.log->prepare_clean(c.outcome.first_dirty, now_ms);
    const Lap second = second_timer.lap();
    check(again, "second prepare_clean");
    report(o, b, read, copy, c, cc, second, again->has_value());
    // Every mapped key keeps exactly its latest record, and nothing else survives.
    if (c.outcome.stats.records_written != c.map_keys) {
      std::fprintf(stderr, "cleaner_bench: kept %llu records for %zu keys\n",
                   static_cast<unsigned long long>(c.outcome.stats.records_written), c.map_keys);
      status = 1;
    }
    check(b.log->close(), "close");
  }
  std::filesystem::remove_all(dir);
  return status;
}

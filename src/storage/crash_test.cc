// Crash tests for the log: a child process appends and syncs, reporting each durable
// acknowledgement over a pipe, and is SIGKILLed at a random moment; the parent reopens the
// log as after a crash and checks that nothing acknowledged was lost or changed, that the
// log is whole batches with contiguous offsets, that the indexes agree with it and that it
// takes appends. The same directory carries over from iteration to iteration, so each
// child also recovers the state the previous crash (and the parent) left.
//
// SIGKILL leaves the page cache intact, so in about half the iterations the parent also
// simulates a torn write before reopening: it cuts the last segment anywhere past the last
// acknowledged byte, zeroes its tail or appends garbage, as a power loss could.
//
// Every batch carries a sequence number in its first key; its whole content follows from
// that number, so the parent checks every batch it finds byte for byte, acknowledged or not.
//
// Seeds: STRATA_TEST_SEED=<n> repeats the choices (the kill timing stays real time).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "record/batch_view.h"
#include "record/stamp.h"
#include "record/validate.h"
#include "storage/index_format.h"
#include "storage/log.h"
#include "storage/sync_service.h"
#include "storage/test_util.h"

namespace strata::storage {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using record::Codec;
using testing::TempDir;

constexpr int64_t kNow = 1700000000000;
constexpr LeaderEpoch kEpoch(9);
constexpr int kIterations = 60;
constexpr auto kDeadline = std::chrono::seconds(25);  // the whole test, however slow the disk
constexpr int kKillDelayMsMin = 1;
constexpr int kKillDelayMsMax = 60;
constexpr auto kChildStartMax = std::chrono::seconds(10);  // open + recovery in the child
// Appended per child, after which it idles until killed: a small budget in a quarter of
// the runs (so some kills find everything acknowledged), else one the kill comes before.
constexpr uint64_t kChildBytesSmall = 64 * 1024;
constexpr uint64_t kChildBytesMax = 4 * 1024 * 1024;
constexpr int kInflightSyncsMax = 8;           // the child's pipeline depth
constexpr int64_t kSeqPerIteration = 1000000;  // iteration i's child uses seqs from (i+1)*this
constexpr int64_t kParentSeq = kSeqPerIteration - 1;  // + that base: the parent's own batch
constexpr int kRecordsMax = 24;
constexpr int64_t kMsPerSeq = 32;   // > kRecordsMax: timestamps increase strictly
constexpr int kOffsetProbes = 200;  // random read(offset) checks per iteration
constexpr int kTimeProbes = 50;     // random offset_for_timestamp checks

LogConfig crash_config() {
  LogConfig c;
  c.segment_bytes = 64 * 1024;
  c.index_interval_bytes = 256;
  c.segment_index_bytes = 8 * 1024;
  // The parent applies retention after each check, so the log (and the work of recovering
  // all of it) stays bounded however many iterations run.
  c.retention_bytes = 256 * 1024;
  c.retention_ms = -1;
  return c;
}

uint64_t test_seed() {
  if (const char* s = std::getenv("STRATA_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return std::random_device{}();
}

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

int64_t timestamp_of(int64_t seq, int record) {
  return kNow + seq * kMsPerSeq + record;
}

// The batch with sequence number `seq`, as the producer sends it (not yet stamped):
// 1-24 records, small or large values, a third compressed; record i's key is "s<seq>/<i>".
std::vector<uint8_t> batch_for(int64_t seq) {
  static constexpr Codec kCodecs[] = {Codec::kNone, Codec::kNone, Codec::kZstd, Codec::kLz4};
  const uint64_t h = mix(uint64_t(seq));
  record::BatchOptions options;
  options.codec = kCodecs[(h >> 8) % 4];
  record::BatchBuilder b(options);
  const int records = 1 + int(h % kRecordsMax);
  const bool large = (h >> 16) % 4 == 0;
  for (int i = 0; i < records; ++i) {
    const uint64_t r = mix(h + uint64_t(i));
    const std::string key = "s" + std::to_string(seq) + "/" + std::to_string(i);
    std::string value(large ? 200 + r % 1800 : r % 120, '\0');
    for (size_t j = 0; j < value.size(); ++j) {
      value[j] = j % 13 == 0 ? char(mix(r + j)) : "abcdefgh"[(j / 7 + size_t(i)) % 8];
    }
    b.append(timestamp_of(seq, i), as_bytes(key), as_bytes(value));
  }
  return std::move(b.finish()).value();
}

// ---------------------------------------------------------------------------------------
// Child -> parent messages: fixed 40-byte big-endian frames, written whole (< PIPE_BUF,
// so a write is atomic and a killed child never leaves half a message).

enum class MsgKind : uint32_t { kReady = 1, kAck = 2, kDone = 3 };

struct Msg {
  MsgKind kind = MsgKind::kReady;
  uint32_t crc = 0;
  int64_t seq = 0;
  int64_t base = 0;
  int64_t last = 0;
  int64_t synced_to = 0;  // the log end the acknowledging sync covered
};
constexpr size_t kMsgSize = 40;

void send(int fd, const Msg& m) {
  uint8_t out[kMsgSize];
  store_be32(out, uint32_t(m.kind));
  store_be32(out + 4, m.crc);
  store_be64(out + 8, uint64_t(m.seq));
  store_be64(out + 16, uint64_t(m.base));
  store_be64(out + 24, uint64_t(m.last));
  store_be64(out + 32, uint64_t(m.synced_to));
  if (::write(fd, out, kMsgSize) != ssize_t(kMsgSize)) ::_exit(120);
}

Msg decode(const uint8_t* in) {
  return Msg{MsgKind(load_be32(in)),      load_be32(in + 4),           int64_t(load_be64(in + 8)),
             int64_t(load_be64(in + 16)), int64_t(load_be64(in + 24)), int64_t(load_be64(in + 32))};
}

// ---------------------------------------------------------------------------------------
// The child. Runs no gtest code and leaves only by _exit (or SIGKILL).

struct ChildPlan {
  std::string dir;
  uint64_t seed = 0;
  int64_t first_seq = 0;
  uint64_t budget_bytes = 0;
  bool clean_shutdown = false;
  int64_t recovery_point = 0;
};

enum ChildExit { kChildOpenFailed = 101, kChildAppendFailed = 102, kChildSyncFailed = 103 };

void wait_until(const std::atomic<int>& inflight, int at_most) {
  while (inflight.load() > at_most) ::usleep(50);
}

// One append of `count` batches (one call with all of them back to back, or one call
// each); returns the acknowledgements their sync will send.
std::vector<Msg> child_append(Log& log, int64_t& seq, int count, bool one_call, uint64_t& bytes) {
  std::vector<std::vector<uint8_t>> parts;
  std::vector<Msg> acks;
  const int64_t first_seq = seq;
  for (int i = 0; i < count; ++i) parts.push_back(batch_for(seq++));
  auto append = [&](std::vector<uint8_t>& buffer) {
    auto r = log.append(buffer, kEpoch, timestamp_of(seq, 0));
    if (!r) {
      std::fprintf(stderr, "crash child: append: %s\n", r.error().message().c_str());
      ::_exit(kChildAppendFailed);
    }
    bytes += buffer.size();
    for (size_t pos = 0; pos < buffer.size();) {
      auto view = record::frame_batch(Bytes(buffer).subspan(pos));
      if (!view) ::_exit(kChildAppendFailed);
      const int64_t s = first_seq + int64_t(acks.size());
      acks.push_back(Msg{MsgKind::kAck, view->crc(), s, view->base_offset().value(),
                         view->last_offset().value(), 0});
      pos += view->size();
    }
  };
  if (one_call) {
    auto all = testing::concat(parts);
    append(all);
  } else {
    for (auto& p : parts) append(p);
  }
  return acks;
}

[[noreturn]] void child_main(const ChildPlan& plan, int fd) {
  SyncService sync;
  LogOptions o;
  o.config = crash_config();
  o.clean_shutdown = plan.clean_shutdown;
  o.recovery_point = Offset(plan.recovery_point);
  o.now_ms = timestamp_of(plan.first_seq, 0);
  o.sync = &sync;
  auto log = Log::open(plan.dir, o);
  if (!log) {
    std::fprintf(stderr, "crash child: open: %s\n", log.error().message().c_str());
    ::_exit(kChildOpenFailed);
  }
  send(fd, Msg{MsgKind::kReady, 0, 0, 0, 0, 0});
  std::mt19937_64 rng(plan.seed);
  std::atomic<int> inflight{0};
  int64_t seq = plan.first_seq;
  uint64_t bytes = 0;
  while (bytes < plan.budget_bytes) {
    // One batch per sync, several appends then one sync, or one append of several.
    const int pattern = int(rng() % 3);
    const int count = pattern == 0 ? 1 : 2 + int(rng() % 5);
    std::vector<Msg> acks = child_append(**log, seq, count, pattern == 2, bytes);
    const int64_t synced_to = (*log)->log_end_offset().value();
    for (Msg& m : acks) m.synced_to = synced_to;
    inflight.fetch_add(1);
    (*log)->sync([fd, acks = std::move(acks), &inflight](Result<void, StorageError> r) {
      if (!r.ok()) {
        std::fprintf(stderr, "crash child: sync: %s\n", r.error().message().c_str());
        ::_exit(kChildSyncFailed);
      }
      for (const Msg& m : acks) send(fd, m);
      inflight.fetch_sub(1);
    });
    // Sometimes a producer that waits for its ack (acks=all, one in flight).
    wait_until(inflight, rng() % 4 == 0 ? 0 : kInflightSyncsMax);
  }
  wait_until(inflight, 0);
  send(fd, Msg{MsgKind::kDone, 0, 0, 0, 0, 0});
  for (;;) ::pause();
}

// ---------------------------------------------------------------------------------------
// The parent.

struct Acked {
  int64_t base = 0;
  int64_t last = 0;
  uint32_t crc = 0;
};

// What one child run reported before it died.
struct ChildRun {
  std::vector<Msg> acks;
  bool ready = false;
  bool done = false;
  bool killed = false;
  int exit_code = -1;
};

// Forks the child, collects its messages and SIGKILLs it `delay_ms` after it is ready
// (or after the fork, when `from_fork`: the kill may land during its recovery).
ChildRun run_child(const ChildPlan& plan, int delay_ms, bool from_fork) {
  ChildRun run;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe2";
    return run;
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork";
    return run;
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(plan, fds[1]);
  }
  ::close(fds[1]);
  const auto start = Clock::now();
  auto kill_at = from_fork ? start + std::chrono::milliseconds(delay_ms) : start + kChildStartMax;
  std::vector<uint8_t> pending;
  bool eof = false;
  auto read_some = [&](int timeout_ms) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return;
    uint8_t buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) {
      eof = true;
      return;
    }
    pending.insert(pending.end(), buf, buf + n);
    size_t used = 0;
    for (; pending.size() - used >= kMsgSize; used += kMsgSize) {
      const Msg m = decode(pending.data() + used);
      if (m.kind == MsgKind::kReady) {
        run.ready = true;
        if (!from_fork) kill_at = Clock::now() + std::chrono::milliseconds(delay_ms);
      } else if (m.kind == MsgKind::kAck) {
        run.acks.push_back(m);
      } else if (m.kind == MsgKind::kDone) {
        run.done = true;
      }
    }
    pending.erase(pending.begin(), pending.begin() + long(used));
  };
  while (!eof) {
    const auto now = Clock::now();
    if (now >= kill_at) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - now);
    read_some(int(std::max<int64_t>(1, left.count())));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  while (!eof) read_some(1000);  // acks written before the kill count
  ::close(fds[0]);
  run.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  return run;
}

std::vector<uint8_t> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void write_file(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// The segment files of `dir` by base offset.
std::map<int64_t, fs::path> segment_files(const std::string& dir) {
  std::map<int64_t, fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() == size_t(kFileNameDigits) + 4 && name.ends_with(kLogSuffix)) {
      out.emplace(std::stoll(name.substr(0, size_t(kFileNameDigits))), entry.path());
    }
  }
  return out;
}

// Simulates a torn write on the last segment: only bytes past `durable_end` (an offset)
// may change. Returns what was done.
std::string tear_last_segment(const std::string& dir, int64_t durable_end, std::mt19937_64& rng) {
  const auto files = segment_files(dir);
  if (files.empty()) return "no segment";
  const fs::path& path = files.rbegin()->second;
  std::vector<uint8_t> bytes = read_file(path);
  // The first byte that was never acknowledged: the start of the first batch at or past
  // durable_end, or the end of the whole batches.
  uint64_t keep = 0;
  while (keep + record::kHeaderSize <= bytes.size()) {
    const int64_t base = int64_t(load_be64(&bytes[keep]));
    const uint64_t size = uint64_t(load_be32(&bytes[keep + record::kBatchLengthPos])) + 12;
    if (base >= durable_end || keep + size > bytes.size()) break;
    keep += size;
  }
  std::string what = path.filename().string() + " (" + std::to_string(bytes.size()) +
                     " bytes, durable " + std::to_string(keep) + "):";
  const int mode = int(rng() % 5);
  if (mode <= 2) {  // cut: at the durable end itself in a quarter of the cases
    const uint64_t at = rng() % 4 == 0 ? keep : keep + rng() % (bytes.size() - keep + 1);
    bytes.resize(at);
    what += " cut at " + std::to_string(at);
  }
  if (mode == 3) {  // the size grew but the data never arrived
    const uint64_t at = keep + rng() % (bytes.size() - keep + 1);
    std::fill(bytes.begin() + long(at), bytes.end(), 0);
    what += " zeroes from " + std::to_string(at);
  }
  if (mode == 1 || mode == 4) {
    const size_t n = 1 + rng() % 300;
    for (size_t i = 0; i < n; ++i) bytes.push_back(uint8_t(rng()));
    what += " +" + std::to_string(n) + " garbage";
  }
  write_file(path, bytes);
  return what;
}

std::vector<uint8_t> region_bytes(const FileRegion& region) {
  std::vector<uint8_t> out(region.size);
  auto got = region.file->pread_some(out, region.position);
  EXPECT_TRUE(got.ok() && *got == region.size);
  return out;
}

// The sequence number in a validated batch's first key.
std::optional<int64_t> seq_of(const record::BatchView& view) {
  std::vector<uint8_t> scratch;
  auto records = record::uncompressed_records(view, scratch);
  if (!records) return std::nullopt;
  record::RecordCursor cursor(*records, view.record_count());
  record::RecordView r;
  auto more = cursor.next(r);
  if (!more || !*more || !r.key) return std::nullopt;
  const std::string key(as_string_view(*r.key));
  if (key.size() < 4 || key[0] != 's' || !key.ends_with("/0")) return std::nullopt;
  return std::stoll(key.substr(1, key.size() - 3));
}

struct Found {
  int64_t base = 0;
  int64_t last = 0;
  int64_t seq = 0;
  uint32_t crc = 0;
};

// Reads the whole log in order. Every batch validates, is exactly batch_for(its seq)
// stamped at its offset, and starts where the previous one ended.
std::vector<Found> scan_log(const Log& log) {
  std::vector<Found> out;
  std::vector<uint8_t> scratch;
  int64_t next = log.log_start_offset().value();
  while (next < log.log_end_offset().value()) {
    auto region = log.read(Offset(next), 256 * 1024, true, std::nullopt);
    EXPECT_TRUE(region.ok() && *region)
        << "read(" << next << ") below the log end " << log.log_end_offset().value();
    if (!region.ok() || !*region) return out;
    const std::vector<uint8_t> bytes = region_bytes(**region);
    for (size_t pos = 0; pos < bytes.size();) {
      auto v = record::validate_batch(Bytes(bytes).subspan(pos), {record::RecordCheck::kLog, {}},
                                      scratch);
      EXPECT_TRUE(v.ok()) << "batch at offset " << next << " does not validate";
      if (!v.ok()) return out;
      EXPECT_EQ(v->base_offset().value(), next) << "offsets not contiguous";
      const auto seq = seq_of(*v);
      EXPECT_TRUE(seq.has_value()) << "batch at offset " << next << " has no sequence key";
      if (!seq) return out;
      std::vector<uint8_t> expected = batch_for(*seq);
      record::stamp_batch(expected, v->base_offset(), kEpoch);
      EXPECT_TRUE(Bytes(bytes).subspan(pos, v->size()).size() == expected.size() &&
                  std::equal(expected.begin(), expected.end(), bytes.begin() + long(pos)))
          << "batch at offset " << next << " (seq " << *seq << ") differs from what was appended";
      out.push_back(Found{v->base_offset().value(), v->last_offset().value(), *seq, v->crc()});
      next = v->last_offset().value() + 1;
      pos += v->size();
    }
  }
  EXPECT_EQ(next, log.log_end_offset().value());
  return out;
}

// Sequence numbers only grow along the log; within one child's run they have no holes
// (SIGKILL keeps every completed write, a torn write only loses a suffix).
void check_sequences(const std::vector<Found>& found) {
  for (size_t i = 1; i < found.size(); ++i) {
    const int64_t a = found[i - 1].seq, b = found[i].seq;
    ASSERT_LT(a, b) << "sequence goes backwards at offset " << found[i].base;
    const bool same_run = a / kSeqPerIteration == b / kSeqPerIteration;
    const bool parent = b % kSeqPerIteration == kParentSeq;
    if (same_run && !parent) {
      ASSERT_EQ(b, a + 1) << "a batch is missing before offset " << found[i].base;
    } else if (!parent) {
      ASSERT_EQ(b % kSeqPerIteration, 0) << "a run's first batch is missing at " << found[i].base;
    }
  }
}

// The segment files hold exactly the batches the log serves, with nothing after them.
void check_files(const std::string& dir, const Log& log, const std::vector<Found>& found) {
  std::vector<uint8_t> scratch;
  uint64_t total = 0;
  size_t i = 0;
  for (const auto& [base, path] : segment_files(dir)) {
    const std::vector<uint8_t> bytes = read_file(path);
    total += bytes.size();
    for (size_t pos = 0; pos < bytes.size();) {
      auto v = record::validate_batch(Bytes(bytes).subspan(pos), {record::RecordCheck::kNone, {}},
                                      scratch);
      ASSERT_TRUE(v.ok()) << path << ": bytes at " << pos << " of " << bytes.size()
                          << " are not a valid batch";
      ASSERT_LT(i, found.size()) << path << ": a batch the log does not serve at " << pos;
      ASSERT_EQ(v->base_offset().value(), found[i].base) << path << " at " << pos;
      ++i;
      pos += v->size();
    }
  }
  EXPECT_EQ(i, found.size());
  EXPECT_EQ(total, log.size_bytes());
}

// Random reads and time lookups agree with the scan.
void check_lookups(const Log& log, const std::vector<Found>& found, std::mt19937_64& rng) {
  if (found.empty()) return;
  const int64_t start = found.front().base, end = found.back().last + 1;
  std::vector<uint8_t> scratch;
  for (int n = 0; n < kOffsetProbes; ++n) {
    const int64_t o = n == 0 ? end - 1 : start + int64_t(rng() % uint64_t(end - start));
    auto region = log.read(Offset(o), 1, true, std::nullopt);
    ASSERT_TRUE(region.ok() && *region) << "read(" << o << ")";
    const auto bytes = region_bytes(**region);
    auto v = record::frame_batch(bytes);
    ASSERT_TRUE(v.ok());
    ASSERT_LE(v->base_offset().value(), o) << "read(" << o << ") starts after it";
    ASSERT_GE(v->last_offset().value(), o) << "read(" << o << ") ends before it";
  }
  for (int n = 0; n < kTimeProbes; ++n) {
    const Found& f = n == 0 ? found.back() : found[rng() % found.size()];
    const int64_t ts = timestamp_of(f.seq, 0);
    auto hit = log.offset_for_timestamp(ts);
    ASSERT_TRUE(hit.ok() && *hit) << "offset_for_timestamp(" << ts << ")";
    EXPECT_EQ((*hit)->first.value(), f.base) << "offset_for_timestamp(" << ts << ")";
    EXPECT_EQ((*hit)->second, ts);
  }
  auto beyond = log.offset_for_timestamp(timestamp_of(found.back().seq + 1, 0));
  ASSERT_TRUE(beyond.ok());
  EXPECT_FALSE(beyond->has_value()) << "a timestamp past the log end was found";
}

std::unique_ptr<Log> open_parent(const std::string& dir, bool clean, int64_t recovery_point) {
  LogOptions o;
  o.config = crash_config();
  o.clean_shutdown = clean;
  o.recovery_point = Offset(recovery_point);
  o.now_ms = kNow;
  auto log = Log::open(dir, o);
  EXPECT_TRUE(log.ok()) << "reopen after the crash: " << (log.ok() ? "" : log.error().message());
  return log.ok() ? std::move(*log) : nullptr;
}

// ---------------------------------------------------------------------------------------
// Named crash states, built without a child: the Log is dropped without close(), which
// leaves its files as a SIGKILL would.

// A log of `batches` batches (the seqs of run 1), flushed (or closed), then `unsynced`
// more appended and the Log dropped; returns the log end of the flushed part.
constexpr int64_t kRunOne = kSeqPerIteration;
constexpr int64_t kRunTwo = 2 * kSeqPerIteration;

int64_t crashed_log(const TempDir& dir, int batches, bool close = false, int unsynced = 0) {
  LogOptions o;
  o.config = crash_config();
  o.now_ms = kNow;
  auto log = Log::open(dir.str(), o);
  EXPECT_TRUE(log.ok());
  if (!log.ok()) return 0;
  for (int64_t seq = kRunOne; seq < kRunOne + batches; ++seq) {
    auto b = batch_for(seq);
    EXPECT_TRUE((*log)->append(b, kEpoch, timestamp_of(seq, 0)).ok());
  }
  EXPECT_TRUE(close ? (*log)->close().ok() : (*log)->flush().ok());
  const int64_t durable = (*log)->log_end_offset().value();
  for (int64_t seq = kRunOne + batches; seq < kRunOne + batches + unsynced; ++seq) {
    auto b = batch_for(seq);
    EXPECT_TRUE((*log)->append(b, kEpoch, timestamp_of(seq, 0)).ok());
  }
  return durable;
}

// Reopens unclean at `recovery_point`, checks the whole log, appends `appends` batches
// (each reads back) and checks again after a clean close and reopen.
void reopen_append_and_check(const TempDir& dir, int64_t recovery_point, int64_t first_seq,
                             int appends) {
  std::mt19937_64 rng(1);
  {
    auto log = open_parent(dir.str(), false, recovery_point);
    ASSERT_NE(log, nullptr);
    const auto found = scan_log(*log);
    check_files(dir.str(), *log, found);
    ASSERT_FALSE(::testing::Test::HasFailure());
    for (int64_t seq = first_seq; seq < first_seq + appends; ++seq) {
      std::vector<uint8_t> batch = batch_for(seq);
      auto r = log->append(batch, kEpoch, timestamp_of(seq, 0));
      ASSERT_TRUE(r.ok()) << "append seq " << seq << " after recovery: " << r.error().message();
      auto region = log->read(r->first_offset, 1, true, std::nullopt);
      ASSERT_TRUE(region.ok() && *region);
      ASSERT_EQ(region_bytes(**region), batch) << "seq " << seq << " reads back differently";
    }
    auto closed = log->close();
    ASSERT_TRUE(closed.ok()) << closed.error().message();
  }
  auto log = open_parent(dir.str(), true, 0);
  ASSERT_NE(log, nullptr);
  const auto found = scan_log(*log);
  check_files(dir.str(), *log, found);
  check_sequences(found);
  check_lookups(*log, found, rng);
}

// A write past the recovery point was torn. The active segment is small (no index entry
// yet), so its preallocated indexes pass the sanity check; its whole batches end exactly
// at the recovery point. Kafka recovers from the segment holding the recovery point on,
// so the torn bytes must go.
TEST(Crash, TornWriteJustPastTheRecoveryPointIsCut) {
  TempDir dir;
  const int64_t durable = crashed_log(dir, 1, false, 1);  // the second batch is not durable...
  const fs::path last = segment_files(dir.str()).rbegin()->second;
  const auto size = fs::file_size(last);
  fs::resize_file(last, size - batch_for(kRunOne + 1).size() / 2);  // ...only half landed
  // Nor did the index entry that append may have added: the indexes are as the flush left
  // them, preallocated and empty.
  for (const char* suffix : {kIndexSuffix, kTimeIndexSuffix}) {
    const fs::path index = dir / segment_file_name(Offset(0), suffix);
    write_file(index, std::vector<uint8_t>(fs::file_size(index), 0));
  }
  reopen_append_and_check(dir, durable, kRunTwo, 40);
}

// Garbage after the last whole batch of a cleanly closed log (a torn write after the
// restart, before any index entry was written), recovery point at the log end.
TEST(Crash, GarbageAfterTheRecoveryPointIsCut) {
  TempDir dir;
  const int64_t durable = crashed_log(dir, 20, true);
  const fs::path last = segment_files(dir.str()).rbegin()->second;
  auto bytes = read_file(last);
  for (int i = 0; i < 100; ++i) bytes.push_back(uint8_t(0x40 + i));
  write_file(last, bytes);
  reopen_append_and_check(dir, durable, kRunTwo, 40);
}

// A crash with everything synced while the active segment is small: its indexes are still
// preallocated, without a single real entry, and look full. The log must take appends
// through the next rolls.
TEST(Crash, AppendsAfterACrashWithEverythingSynced) {
  TempDir dir;
  const int64_t durable = crashed_log(dir, 1);
  reopen_append_and_check(dir, durable, kRunTwo, 40);
}

TEST(Crash, KilledWritersLoseNothingAcknowledged) {
  const uint64_t seed = test_seed();
  std::cout << "[ crash ] seed " << seed << " (STRATA_TEST_SEED to repeat)\n";
  std::mt19937_64 rng(seed);
  TempDir dir;
  std::map<int64_t, Acked> acked;  // by seq: everything ever acknowledged or closed
  int64_t log_end = 0;             // after the parent's last check: all of it durable
  bool closed = true;
  int64_t next_recovery_point = 0;
  int iterations = 0, torn = 0, acks = 0, done = 0, early_kills = 0;
  const auto deadline = Clock::now() + kDeadline;
  for (int i = 0; i < kIterations && Clock::now() < deadline; ++i) {
    ChildPlan plan;
    plan.dir = dir.str();
    plan.seed = rng();
    plan.first_seq = int64_t(i + 1) * kSeqPerIteration;
    plan.budget_bytes = rng() % 4 == 0 ? 1 + rng() % kChildBytesSmall : kChildBytesMax;
    plan.clean_shutdown = closed && rng() % 2 == 0;
    plan.recovery_point = next_recovery_point;
    const int delay_ms = kKillDelayMsMin + int(rng() % (kKillDelayMsMax - kKillDelayMsMin + 1));
    const bool from_fork = rng() % 10 == 0;
    std::string trace = "seed " + std::to_string(seed) + " iteration " + std::to_string(i) +
                        ": kill " + std::to_string(delay_ms) + " ms after " +
                        (from_fork ? "fork" : "ready") + ", child opens " +
                        (plan.clean_shutdown ? "clean" : "unclean") + " at recovery point " +
                        std::to_string(plan.recovery_point);
    SCOPED_TRACE(trace);

    const ChildRun run = run_child(plan, delay_ms, from_fork);
    ASSERT_TRUE(run.killed) << "the child exited by itself with code " << run.exit_code
                            << " (101 open, 102 append, 103 sync failed; see its stderr)";
    ASSERT_TRUE(run.ready || from_fork) << "the child never opened the log";
    early_kills += run.ready ? 0 : 1;
    done += run.done ? 1 : 0;
    int64_t durable_end = log_end;
    int64_t synced_to = log_end;
    for (const Msg& m : run.acks) {
      ASSERT_GE(m.seq, plan.first_seq);
      acked[m.seq] = Acked{m.base, m.last, m.crc};
      durable_end = std::max(durable_end, m.last + 1);
      synced_to = std::max(synced_to, m.synced_to);
    }
    acks += int(run.acks.size());

    std::string damage = "none";
    if (rng() % 2 == 0) {
      damage = tear_last_segment(dir.str(), durable_end, rng);
      ++torn;
    }
    // A recovery-point checkpoint may hold anything up to what was durable.
    const int64_t choices[] = {0, log_end, synced_to, synced_to};
    const int64_t recovery_point = choices[rng() % 4];
    SCOPED_TRACE("torn write: " + damage + "; reopened at recovery point " +
                 std::to_string(recovery_point) + " (acked up to " + std::to_string(durable_end) +
                 ")");

    auto log = open_parent(dir.str(), false, recovery_point);
    ASSERT_NE(log, nullptr);
    ASSERT_GE(log->log_end_offset().value(), durable_end) << "acknowledged data lost";
    const std::vector<Found> found = scan_log(*log);
    ASSERT_FALSE(HasFailure());
    check_sequences(found);
    ASSERT_FALSE(HasFailure());
    std::map<int64_t, const Found*> by_seq;
    for (const Found& f : found) by_seq[f.seq] = &f;
    for (const auto& [seq, a] : acked) {
      auto it = by_seq.find(seq);
      ASSERT_NE(it, by_seq.end()) << "acknowledged batch seq " << seq << " at " << a.base
                                  << " is gone";
      ASSERT_EQ(it->second->base, a.base) << "seq " << seq;
      ASSERT_EQ(it->second->last, a.last) << "seq " << seq;
      ASSERT_EQ(it->second->crc, a.crc) << "seq " << seq;
    }
    check_files(dir.str(), *log, found);
    check_lookups(*log, found, rng);
    ASSERT_FALSE(HasFailure());

    // The recovered log takes an append, which reads back.
    const int64_t parent_seq = plan.first_seq + kParentSeq;
    std::vector<uint8_t> batch = batch_for(parent_seq);
    auto r = log->append(batch, kEpoch, timestamp_of(parent_seq, 0));
    ASSERT_TRUE(r.ok()) << "append after recovery: " << r.error().message();
    auto region = log->read(r->first_offset, 1, true, std::nullopt);
    ASSERT_TRUE(region.ok() && *region);
    ASSERT_EQ(region_bytes(**region), batch);
    auto deleted = log->apply_retention(timestamp_of(parent_seq, 0));
    ASSERT_TRUE(deleted.ok()) << "retention: " << deleted.error().message();
    closed = rng() % 4 != 0;
    if (closed) {
      auto c = log->close();
      ASSERT_TRUE(c.ok()) << "close after recovery: " << c.error().message();
      next_recovery_point = log->log_end_offset().value();
    } else {
      next_recovery_point = log->recovery_point().value();
    }
    // Not synced when not closed, but the page cache keeps it: no kill touches the parent.
    acked[parent_seq] =
        Acked{r->first_offset.value(), r->last_offset.value(), record::BatchView(batch).crc()};
    log_end = log->log_end_offset().value();
    std::erase_if(acked,
                  [&](const auto& a) { return a.second.last < log->log_start_offset().value(); });
    ++iterations;
  }
  std::cout << "[ crash ] " << iterations << " iterations, " << acks << " acks, " << torn
            << " torn writes, " << done << " children idle at the kill, " << early_kills
            << " killed before ready; log end " << log_end << "\n";
  EXPECT_GE(iterations, 10) << "the deadline cut the run short";
}

}  // namespace
}  // namespace strata::storage

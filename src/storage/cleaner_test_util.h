// Shared by the cleaner tests: keyed workloads written through a Log, the records a log
// holds read back from offset 0, and a whole cleaning (prepare, run, finish) in one call.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "record/batch_view.h"
#include "record/validate.h"
#include "storage/log.h"
#include "storage/log_cleaner.h"
#include "storage/offset_map.h"
#include "storage/test_util.h"

namespace strata::storage::testing {

// A temporary directory on tmpfs (/dev/shm) when there is one: the cleaner tests reopen
// and recover logs hundreds of times, and fdatasync on a loaded disk would make them
// minutes long. SIGKILL leaves tmpfs as it leaves the page cache, so the crash tests
// still see what a killed process left.
class ScratchDir {
 public:
  ScratchDir() {
    static int n = 0;
    std::error_code ec;
    const bool shm =
        std::filesystem::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0;
    const std::filesystem::path root =
        shm ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path();
    path_ = root / ("strata-cleaner-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(path_, ec);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline constexpr int64_t kCleanNow = 1700000000000;
inline constexpr int64_t kDeleteRetentionMs = 3600000;

inline LogConfig compact_config() {
  LogConfig c;
  c.cleanup_policy = "compact";
  c.segment_bytes = 4096;
  c.index_interval_bytes = 256;
  c.segment_index_bytes = 4096;
  c.delete_retention_ms = kDeleteRetentionMs;
  c.file_delete_delay_ms = 0;
  return c;
}

inline std::unique_ptr<Log> open_compacted(const std::string& dir,
                                           LogConfig config = compact_config(), bool clean = true,
                                           int64_t now = kCleanNow) {
  LogOptions o;
  o.config = config;
  o.clean_shutdown = clean;
  o.now_ms = now;
  auto log = Log::open(dir, o);
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message());
  return log.ok() ? std::move(*log) : nullptr;
}

// One record as the tests describe it: a null key or value is nullopt.
struct Rec {
  std::optional<std::string> key;
  std::optional<std::string> value;
  int64_t timestamp = 0;
  bool operator==(const Rec&) const = default;
};

struct BatchSpec {
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch epoch = kNoProducerEpoch;
  Sequence base_sequence = kNoSequence;
  bool transactional = false;
  record::Codec codec = record::Codec::kNone;
};

inline std::vector<uint8_t> keyed_batch(const std::vector<Rec>& recs, const BatchSpec& spec = {}) {
  record::BatchOptions o;
  o.codec = spec.codec;
  o.producer_id = spec.producer_id;
  o.producer_epoch = spec.epoch;
  o.base_sequence = spec.base_sequence;
  o.transactional = spec.transactional;
  record::BatchBuilder b(o);
  for (const Rec& r : recs) {
    std::optional<Bytes> k, v;
    if (r.key) k = as_bytes(*r.key);
    if (r.value) v = as_bytes(*r.value);
    b.append(r.timestamp, k, v);
  }
  return std::move(b.finish()).value();
}

// What a read from offset 0 finds.
struct ReadBatch {
  int64_t base = 0;
  int64_t last = 0;
  int32_t records = 0;
  int16_t attributes = 0;
  int64_t base_timestamp = 0;
  std::optional<int64_t> delete_horizon;
  ProducerId producer_id = kNoProducerId;
  bool control = false;
};
struct LogContents {
  std::map<int64_t, Rec> records;  // data records by offset
  std::vector<ReadBatch> batches;
  std::map<int64_t, std::optional<int64_t>> horizon_of;  // record offset -> its batch's horizon
};

inline LogContents read_contents(const Log& log) {
  LogContents out;
  std::vector<uint8_t> buf, scratch;
  for (Offset at = log.log_start_offset(); at < log.log_end_offset();) {
    auto region = log.read(at, 1 << 20, true, std::nullopt);
    EXPECT_TRUE(region.ok()) << (region.ok() ? "" : region.error().message());
    if (!region.ok() || !*region) break;
    buf.resize((*region)->size);
    EXPECT_TRUE((*region)->file->pread_some(buf, (*region)->position).ok());
    for (size_t pos = 0; pos < buf.size();) {
      auto v = record::frame_batch(Bytes(buf).subspan(pos));
      EXPECT_TRUE(v.ok());
      if (!v.ok()) return out;
      EXPECT_EQ(v->crc(), v->computed_crc());
      out.batches.push_back({v->base_offset().value(), v->last_offset().value(), v->record_count(),
                             v->attributes(), v->base_timestamp(), v->delete_horizon_ms(),
                             v->producer_id(), v->is_control()});
      auto records = record::uncompressed_records(*v, scratch);
      EXPECT_TRUE(records.ok());
      record::RecordCursor cursor(*records, v->record_count());
      for (record::RecordView r;;) {
        auto more = cursor.next(r);
        EXPECT_TRUE(more.ok());
        if (!more.ok() || !*more) break;
        if (v->is_control()) continue;
        Rec rec;
        if (r.key) rec.key = std::string(as_string_view(*r.key));
        if (r.value) rec.value = std::string(as_string_view(*r.value));
        rec.timestamp = v->timestamp_of(r);
        out.records[v->offset_of(r).value()] = rec;
        out.horizon_of[v->offset_of(r).value()] = v->delete_horizon_ms();
      }
      at = Offset(v->last_offset().value() + 1);
      pos += v->size();
    }
  }
  return out;
}

inline std::unique_ptr<OffsetMap> make_map(size_t bytes = 1 << 20) {
  return std::move(OffsetMap::create(bytes)).value();
}

// prepare_clean, run_clean and finish_clean on one thread. nullopt when nothing was
// cleanable; failures are test failures.
inline std::optional<CleanOutcome> clean_log(Log& log, OffsetMap& map, int64_t now_ms,
                                             std::optional<Offset> checkpoint = std::nullopt,
                                             const CleanerConfig& config = {}) {
  auto task = log.prepare_clean(checkpoint, now_ms);
  EXPECT_TRUE(task.ok()) << (task.ok() ? "" : task.error().message());
  if (!task.ok() || !*task) return std::nullopt;
  auto result = run_clean(**task, map, config, now_ms);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message());
  if (!result.ok()) return std::nullopt;
  auto outcome = log.finish_clean(std::move(*result), now_ms);
  EXPECT_TRUE(outcome.ok()) << (outcome.ok() ? "" : outcome.error().message());
  if (!outcome.ok()) return std::nullopt;
  return *outcome;
}

// Rolls the active segment (by an append that does not fit) so everything before is
// cleanable: appends one record with key "~roll<n>" after making segment.ms tiny.
inline void force_roll(Log& log, int64_t now_ms) {
  static int n = 0;
  LogConfig c = log.config();
  const LogConfig saved = c;
  c.segment_ms = 1;
  log.set_config(c);
  auto b = keyed_batch({{"~roll" + std::to_string(n++), "r", now_ms}});
  EXPECT_TRUE(log.append(b, LeaderEpoch(0), now_ms + 10).ok());
  log.set_config(saved);
}

inline std::vector<std::string> files_with(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(name);
    }
  }
  return out;
}

}  // namespace strata::storage::testing

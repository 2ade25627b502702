// Shared by the log recovery corruption tests (corruption_random_test.cc,
// corruption_batch_test.cc, corruption_segment_test.cc): the oracle, the checks and the
// fixture. A pristine log of several segments is built once; each case copies it,
// damages one segment (truncation, flipped bytes, zeroed or random ranges, garbage after
// the end, broken indexes), reopens it as after a crash and checks that recovery kept
// exactly the batches before the first damaged one, deleted what followed a cut,
// rebuilt the indexes, and left a log that serves reads, time lookups and appends
// (across a roll and a clean reopen).
//
// The expectation comes from an oracle that knows the pristine batch boundaries and
// which header bytes the CRC covers: a batch survives when it is whole, its length,
// magic, CRC and CRC-covered bytes are unchanged and its (possibly changed) baseOffset
// does not go backwards. partitionLeaderEpoch (bytes 12-15) is not covered: a flip there
// is not corruption recovery can see, and the batch survives with the new epoch.
//
// Seeds: STRATA_TEST_SEED=<n> reproduces a run; every failure names the seed and case.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "record/batch_view.h"
#include "record/validate.h"
#include "storage/index_format.h"
#include "storage/log.h"
#include "storage/test_util.h"

namespace strata::storage::corruption_test {

namespace fs = std::filesystem;
using record::Codec;
using testing::make_batch;

inline constexpr int64_t kNow = 1700000000000;
inline constexpr LeaderEpoch kEpoch(4);
inline constexpr size_t kPristineSegmentsMin = 6;
inline constexpr int kPristineBatchesMax = 2000;  // bound on the build loop
inline constexpr int64_t kRelativeOffsetMax = INT32_MAX;

inline LogConfig small_config() {
  LogConfig c;
  c.segment_bytes = 16 * 1024;
  c.index_interval_bytes = 512;
  c.segment_index_bytes = 4096;
  return c;
}

// A temporary directory, on tmpfs when /dev/shm is there. Durability plays no part in
// these tests (the damage is done to the files directly), and recovery's fdatasyncs cost
// ~150 ms a case on a disk but nothing on tmpfs: 240 cases take ~1 s instead of ~40 s.
class ScratchDir {
 public:
  ScratchDir() {
    static int n = 0;
    const std::string name =
        "strata-corruption-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
    std::error_code ec;
    path_ = fs::path("/dev/shm") / name;
    if (!fs::is_directory("/dev/shm", ec) || !fs::create_directories(path_, ec)) {
      path_ = fs::temp_directory_path() / name;
      fs::remove_all(path_);
      fs::create_directories(path_);
    }
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string str() const { return path_.string(); }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

inline uint64_t test_seed() {
  if (const char* s = std::getenv("STRATA_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return std::random_device{}();
}

// The k-th batch of the pristine log: varied record counts, sizes and codecs, and
// timestamps that increase strictly from record to record across the whole log.
inline std::vector<uint8_t> pristine_batch(int k) {
  const int records = 1 + (k * 7) % 13;
  const size_t value_bytes = k % 5 == 0 ? 900 : 40 + size_t(k * 37) % 300;
  const Codec codec = k % 4 == 2 ? Codec::kZstd : k % 4 == 3 ? Codec::kLz4 : Codec::kNone;
  return make_batch(records, kNow + 100 * int64_t(k), value_bytes, codec);
}

inline std::vector<uint8_t> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

inline void write_file(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// One batch as the pristine file holds it.
struct PristineBatch {
  uint64_t position = 0;
  uint32_t size = 0;
  int64_t base = 0;
  int32_t last_delta = 0;
  int64_t first_ts = 0;  // record 0's timestamp (baseTimestamp); record i has first_ts + i
  int64_t max_ts = 0;
};

struct PristineSegment {
  int64_t base = 0;
  std::vector<uint8_t> bytes;  // the whole .log file
  std::vector<PristineBatch> batches;
};

// Frames every batch of a segment file; the pristine files hold whole valid batches only.
inline std::vector<PristineBatch> frame_all(const std::vector<uint8_t>& bytes) {
  std::vector<PristineBatch> out;
  std::vector<uint8_t> scratch;
  for (uint64_t pos = 0; pos < bytes.size();) {
    auto v =
        record::validate_batch(Bytes(bytes).subspan(pos), {record::RecordCheck::kLog, {}}, scratch);
    EXPECT_TRUE(v.ok()) << "pristine batch at " << pos;
    if (!v.ok()) break;
    out.push_back(PristineBatch{pos, uint32_t(v->size()), v->base_offset().value(),
                                v->last_offset_delta(), v->base_timestamp(), v->max_timestamp()});
    pos += v->size();
  }
  return out;
}

// A pristine log directory and what it holds.
struct Pristine {
  std::unique_ptr<ScratchDir> dir;
  std::vector<PristineSegment> segments;
  int batches = 0;  // pristine_batch(0..batches-1) were appended
};

// Builds the pristine log: at least kPristineSegmentsMin segments and a last segment at
// least half full. `closed`: Log::close (indexes trimmed, as after a clean shutdown);
// otherwise only flushed, as a crash leaves it (the active indexes stay preallocated).
inline Pristine build_pristine(bool closed) {
  Pristine p;
  p.dir = std::make_unique<ScratchDir>();
  const LogConfig config = small_config();
  LogOptions o;
  o.config = config;
  o.now_ms = kNow;
  auto log = Log::open(p.dir->str(), o);
  EXPECT_TRUE(log.ok());
  if (!log.ok()) return p;
  for (int k = 0; k < kPristineBatchesMax; ++k) {
    auto batch = pristine_batch(k);
    EXPECT_TRUE((*log)->append(batch, kEpoch, kNow).ok());
    p.batches = k + 1;
    const Offset last_base = (*log)->segment_bases().back();
    const auto active_bytes = fs::file_size(*p.dir / segment_file_name(last_base, kLogSuffix));
    if ((*log)->segment_count() >= kPristineSegmentsMin &&
        active_bytes >= uint64_t(config.segment_bytes) / 2) {
      break;
    }
  }
  EXPECT_TRUE(closed ? (*log)->close().ok() : (*log)->flush().ok());
  for (Offset base : (*log)->segment_bases()) {
    PristineSegment s;
    s.base = base.value();
    s.bytes = read_file(*p.dir / segment_file_name(base, kLogSuffix));
    s.batches = frame_all(s.bytes);
    p.segments.push_back(std::move(s));
  }
  return p;
}

// A batch the recovered log must hold, as the oracle predicts it.
struct Survivor {
  int64_t base = 0;  // from the (maybe damaged) header
  int64_t last = 0;
  int64_t first_ts = 0;
  int64_t max_ts = 0;
  std::vector<uint8_t> bytes;
};

struct Expected {
  std::vector<Survivor> batches;            // in log order
  std::vector<int64_t> lost_first_ts;       // first timestamps of batches recovery must drop
  std::vector<std::vector<uint8_t>> files;  // each remaining segment's .log bytes
  std::vector<int64_t> bases;               // each remaining segment's base offset
  int64_t log_end = 0;
  size_t segments_deleted = 0;
  bool base_changed = false;  // a kept batch's baseOffset was damaged (offset gap)
};

// What Segment::recover keeps of `image`, the damaged copy of `seg`: how many bytes and
// which batches. Bytes the CRC does not cover are judged as recovery must: an epoch
// change is invisible, a baseOffset change survives unless it goes backwards or out of
// the segment's relative range.
struct SegmentOutcome {
  uint64_t valid_bytes = 0;
  std::vector<Survivor> kept;
  std::vector<int64_t> lost_first_ts;
  bool base_changed = false;
};

inline SegmentOutcome recover_oracle(const PristineSegment& seg,
                                     const std::vector<uint8_t>& image) {
  SegmentOutcome out;
  int64_t next = seg.base;
  size_t i = 0;
  for (; i < seg.batches.size(); ++i) {
    const PristineBatch& b = seg.batches[i];
    if (b.position + b.size > image.size()) break;
    bool detected = false;
    bool base_changed = false;
    for (uint32_t j = 0; j < b.size && !detected; ++j) {
      if (image[b.position + j] == seg.bytes[b.position + j]) continue;
      if (j >= record::kPartitionLeaderEpochPos && j < record::kMagicPos) continue;
      if (j < record::kBatchLengthPos) {
        base_changed = true;
      } else {
        detected = true;
      }
    }
    if (detected) break;
    const int64_t base = int64_t(load_be64(&image[b.position]));
    const int64_t last = base + b.last_delta;
    if (base < next || last - seg.base > kRelativeOffsetMax || last < base) break;
    out.base_changed |= base_changed;
    out.kept.push_back(Survivor{base, last, b.first_ts, b.max_ts,
                                std::vector<uint8_t>(image.begin() + long(b.position),
                                                     image.begin() + long(b.position + b.size))});
    out.valid_bytes = b.position + b.size;
    next = last + 1;
  }
  for (; i < seg.batches.size(); ++i) out.lost_first_ts.push_back(seg.batches[i].first_ts);
  return out;
}

// The whole log's expectation when segment `target` holds `image` (nullopt: no .log
// damage, e.g. only an index was damaged).
inline Expected expect_log(const Pristine& p, size_t target,
                           const std::optional<std::vector<uint8_t>>& image) {
  Expected e;
  bool cut = false;
  for (size_t s = 0; s < p.segments.size(); ++s) {
    const PristineSegment& seg = p.segments[s];
    if (cut) {
      ++e.segments_deleted;
      for (const PristineBatch& b : seg.batches) e.lost_first_ts.push_back(b.first_ts);
      continue;
    }
    const std::vector<uint8_t>& bytes = s == target && image ? *image : seg.bytes;
    const SegmentOutcome o = recover_oracle(seg, bytes);
    e.batches.insert(e.batches.end(), o.kept.begin(), o.kept.end());
    e.lost_first_ts.insert(e.lost_first_ts.end(), o.lost_first_ts.begin(), o.lost_first_ts.end());
    e.files.emplace_back(bytes.begin(), bytes.begin() + long(o.valid_bytes));
    e.bases.push_back(seg.base);
    e.base_changed |= o.base_changed;
    cut = o.valid_bytes < bytes.size();
  }
  e.log_end = e.batches.empty() ? e.bases.back() : e.batches.back().last + 1;
  // An empty last segment after a cut still ends the log at its base.
  if (!e.bases.empty() && e.bases.back() > e.log_end) e.log_end = e.bases.back();
  return e;
}

inline std::vector<uint8_t> region_bytes(const FileRegion& region) {
  std::vector<uint8_t> out(region.size);
  auto got = region.file->pread_some(out, region.position);
  EXPECT_TRUE(got.ok() && *got == region.size);
  return out;
}

// The first batch of log->read(offset, 1 byte, min_one_batch): exactly one batch.
inline std::optional<std::vector<uint8_t>> read_one(const Log& log, int64_t offset) {
  auto region = log.read(Offset(offset), 1, true, std::nullopt);
  EXPECT_TRUE(region.ok()) << "read(" << offset
                           << "): " << (region.ok() ? "" : region.error().message());
  if (!region.ok() || !*region) return std::nullopt;
  return region_bytes(**region);
}

// Reads at every offset of every expected batch (and at a few offsets of each gap
// between batches) find that batch, byte for byte.
inline void check_reads(const Log& log, const std::vector<Survivor>& batches,
                        std::mt19937_64& rng) {
  int64_t previous_end = log.log_start_offset().value();
  for (const Survivor& b : batches) {
    std::vector<int64_t> offsets;
    for (int64_t o = b.base; o <= b.last; ++o) offsets.push_back(o);
    if (previous_end < b.base) {  // a gap: compaction-like, reads move on to this batch
      offsets.push_back(previous_end);
      offsets.push_back(b.base - 1);
      offsets.push_back(previous_end + int64_t(rng() % uint64_t(b.base - previous_end)));
    }
    for (int64_t o : offsets) {
      auto got = read_one(log, o);
      ASSERT_TRUE(got.has_value()) << "nothing read at offset " << o;
      ASSERT_EQ(*got, b.bytes) << "read at offset " << o << " (batch " << b.base << ".." << b.last
                               << ")";
    }
    previous_end = b.last + 1;
  }
}

// Time lookups: each kept batch's first timestamp finds its first record; timestamps
// of dropped batches find the next kept record with a larger timestamp, or nothing.
inline void check_times(const Log& log, const Expected& e) {
  auto expect_at = [&](int64_t ts) -> std::optional<std::pair<int64_t, int64_t>> {
    for (const Survivor& b : e.batches) {
      if (b.max_ts < ts) continue;
      const int64_t ahead = std::max<int64_t>(0, ts - b.first_ts);
      return std::pair{b.base + ahead, b.first_ts + ahead};
    }
    return std::nullopt;
  };
  std::vector<int64_t> probes = e.lost_first_ts;
  for (const Survivor& b : e.batches) probes.push_back(b.first_ts);
  for (int64_t ts : probes) {
    auto got = log.offset_for_timestamp(ts);
    ASSERT_TRUE(got.ok()) << got.error().message();
    const auto want = expect_at(ts);
    ASSERT_EQ(got->has_value(), want.has_value()) << "offset_for_timestamp(" << ts << ")";
    if (want) {
      EXPECT_EQ((*got)->first.value(), want->first) << "offset_for_timestamp(" << ts << ")";
      EXPECT_EQ((*got)->second, want->second) << "offset_for_timestamp(" << ts << ")";
    }
  }
  const auto max = log.max_timestamp_offset();
  ASSERT_EQ(max.has_value(), !e.batches.empty());
  if (max) {
    EXPECT_EQ(max->first.value(), e.batches.back().last);
    EXPECT_EQ(max->second, e.batches.back().max_ts);
  }
}

// The files on disk: each remaining segment holds exactly the kept bytes; the segments
// after a cut are gone.
inline void check_files(const std::string& dir, const Expected& e, const Pristine& p) {
  for (size_t s = 0; s < e.bases.size(); ++s) {
    const fs::path path = fs::path(dir) / segment_file_name(Offset(e.bases[s]), kLogSuffix);
    ASSERT_TRUE(fs::exists(path)) << path;
    EXPECT_TRUE(read_file(path) == e.files[s])
        << path << ": " << fs::file_size(path) << " bytes, expected " << e.files[s].size();
  }
  for (size_t s = e.bases.size(); s < p.segments.size(); ++s) {
    for (const char* suffix : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix}) {
      EXPECT_FALSE(
          fs::exists(fs::path(dir) / segment_file_name(Offset(p.segments[s].base), suffix)))
          << "segment " << p.segments[s].base << " after the cut was not deleted";
    }
  }
}

// Appends after recovery, through at least one roll; every appended batch reads back.
inline void append_through_a_roll(Log& log, Expected& e, std::mt19937_64& rng) {
  const size_t segments_before = log.segment_count();
  int64_t ts = kNow + 100 * 100000;  // above every pristine timestamp
  for (int n = 0; n < 64 && (n < 2 || log.segment_count() == segments_before); ++n) {
    auto batch = make_batch(1 + int(rng() % 9), ts, 300 + rng() % 1200);
    const int64_t first_ts = ts;
    ts += 100;
    const int64_t expected_first = log.log_end_offset().value();
    auto r = log.append(batch, kEpoch, kNow);
    ASSERT_TRUE(r.ok()) << "append #" << n << " after recovery: " << r.error().message();
    ASSERT_EQ(r->first_offset.value(), expected_first);
    record::BatchView view(batch);
    e.batches.push_back(Survivor{r->first_offset.value(), r->last_offset.value(), first_ts,
                                 view.max_timestamp(), batch});
    auto got = read_one(log, r->first_offset.value());
    ASSERT_TRUE(got.has_value());
    ASSERT_EQ(*got, batch) << "appended batch " << expected_first << " reads back differently";
  }
  EXPECT_GT(log.segment_count(), segments_before) << "no roll after recovery";
  e.log_end = log.log_end_offset().value();
}

inline std::unique_ptr<Log> open_log(const std::string& dir, bool clean, int64_t recovery_point) {
  LogOptions o;
  o.config = small_config();
  o.clean_shutdown = clean;
  o.recovery_point = Offset(recovery_point);
  o.now_ms = kNow;
  auto log = Log::open(dir, o);
  EXPECT_TRUE(log.ok()) << "open failed: " << (log.ok() ? "" : log.error().message());
  return log.ok() ? std::move(*log) : nullptr;
}

// Opens the damaged copy and checks everything against `e`; then appends through a roll,
// closes, reopens cleanly and checks the reads again (stale index files would show).
inline void recover_and_check(const std::string& dir, const Pristine& p, Expected e, bool clean,
                              int64_t recovery_point, std::mt19937_64& rng) {
  {
    auto log = open_log(dir, clean, recovery_point);
    ASSERT_NE(log, nullptr);
    std::string notes;
    for (const std::string& note : log->recovery_report().notes) notes += "\n  " + note;
    SCOPED_TRACE("recovery notes:" + notes);
    ASSERT_EQ(log->log_end_offset().value(), e.log_end);
    EXPECT_EQ(log->log_start_offset().value(), 0);
    EXPECT_EQ(log->segment_count(), e.bases.size());
    EXPECT_EQ(log->recovery_report().segments_deleted, e.segments_deleted);
    EXPECT_LE(log->recovery_point().value(), log->log_end_offset().value());
    ASSERT_NO_FATAL_FAILURE(check_files(dir, e, p));
    ASSERT_NO_FATAL_FAILURE(check_reads(*log, e.batches, rng));
    ASSERT_NO_FATAL_FAILURE(check_times(*log, e));
    ASSERT_NO_FATAL_FAILURE(append_through_a_roll(*log, e, rng));
    auto closed = log->close();
    ASSERT_TRUE(closed.ok()) << "close after recovery: " << closed.error().message();
  }
  auto log = open_log(dir, true, e.log_end);
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->log_end_offset().value(), e.log_end);
  check_reads(*log, e.batches, rng);
}

// ---------------------------------------------------------------------------------------
// The fixture: both pristine logs, built once for the suite (shared by every file).

class Corruption : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    seed_ = test_seed();
    std::cout << "[ corruption ] seed " << seed_ << " (STRATA_TEST_SEED to repeat)\n";
    closed_ = std::make_unique<Pristine>(build_pristine(true));
    crashed_ = std::make_unique<Pristine>(build_pristine(false));
  }
  static void TearDownTestSuite() {
    closed_.reset();
    crashed_.reset();
  }

  // A fresh copy of a pristine log.
  static std::unique_ptr<ScratchDir> copy_of(const Pristine& p) {
    auto dir = std::make_unique<ScratchDir>();
    fs::copy(p.dir->str(), dir->str(),
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    return dir;
  }
  static fs::path log_path(const ScratchDir& dir, const Pristine& p, size_t segment) {
    return fs::path(dir.str()) / segment_file_name(Offset(p.segments[segment].base), kLogSuffix);
  }

  // Writes `image` as segment `segment` of a copy of `p`, recovers and checks: once with
  // recovery point 0 (everything recovered), once with the damaged segment's base (it and
  // the segments after it recovered, as Kafka does from the segment holding the point).
  static void run_log_damage(const Pristine& p, size_t segment, const std::vector<uint8_t>& image,
                             std::mt19937_64& rng) {
    for (int64_t recovery_point : {int64_t(0), p.segments[segment].base}) {
      SCOPED_TRACE("recovery point " + std::to_string(recovery_point));
      auto dir = copy_of(p);
      write_file(log_path(*dir, p, segment), image);
      recover_and_check(dir->str(), p, expect_log(p, segment, image), false, recovery_point, rng);
    }
  }

  static inline uint64_t seed_ = 0;
  static inline std::unique_ptr<Pristine> closed_;
  static inline std::unique_ptr<Pristine> crashed_;
};

}  // namespace strata::storage::corruption_test

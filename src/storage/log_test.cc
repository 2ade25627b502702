#include "storage/log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>

#include "record/batch_view.h"
#include "record/validate.h"
#include "storage/index_format.h"
#include "storage/test_util.h"

namespace strata::storage {
namespace {

using testing::concat;
using testing::make_batch;
using testing::TempDir;

constexpr int64_t kNow = 1700000000000;

std::unique_ptr<Log> open_log(const TempDir& dir, LogConfig config = {}, bool clean = true,
                              SyncService* sync = nullptr, Offset recovery_point = Offset(0)) {
  LogOptions o;
  o.config = config;
  o.clean_shutdown = clean;
  o.now_ms = kNow;
  o.sync = sync;
  o.recovery_point = recovery_point;
  auto log = Log::open(dir.str(), o);
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message());
  return log.ok() ? std::move(*log) : nullptr;
}

AppendResult append_in_place(Log& log, std::vector<uint8_t>& bytes, int64_t now = kNow) {
  auto r = log.append(bytes, LeaderEpoch(3), now);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
  return r.ok() ? *r : AppendResult{};
}

AppendResult append(Log& log, std::vector<uint8_t>&& bytes, int64_t now = kNow) {
  return append_in_place(log, bytes, now);
}

std::vector<uint8_t> read_region(const FileRegion& region) {
  std::vector<uint8_t> out(region.size);
  auto got = region.file->pread_some(out, region.position);
  EXPECT_TRUE(got.ok());
  return out;
}

// Offsets of the batches in a region, checking each batch validates.
std::vector<int64_t> batch_offsets(const FileRegion& region) {
  const auto bytes = read_region(region);
  std::vector<int64_t> out;
  std::vector<uint8_t> scratch;
  for (size_t pos = 0; pos < bytes.size();) {
    auto b = record::validate_batch(Bytes(bytes).subspan(pos), {record::RecordCheck::kLog, {}},
                                    scratch);
    EXPECT_TRUE(b.ok());
    if (!b.ok()) break;
    out.push_back(b->base_offset().value());
    pos += b->size();
  }
  return out;
}

TEST(Log, AppendStampsOffsetsInPlaceWithoutTouchingCrc) {
  TempDir dir;
  auto log = open_log(dir);
  auto bytes = concat({make_batch(2, kNow), make_batch(3, kNow), make_batch(1, kNow)});
  const uint32_t crc = record::BatchView(bytes).crc();
  auto r = log->append(bytes, LeaderEpoch(7), kNow);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first_offset, Offset(0));
  EXPECT_EQ(r->last_offset, Offset(5));
  EXPECT_EQ(r->batches, 3u);
  EXPECT_EQ(log->log_end_offset(), Offset(6));
  // The caller's buffer was stamped in place: offsets and epoch, same CRC.
  record::BatchView first(bytes);
  EXPECT_EQ(first.base_offset(), Offset(0));
  EXPECT_EQ(first.partition_leader_epoch(), LeaderEpoch(7));
  EXPECT_EQ(first.crc(), crc);
  auto region = log->read(Offset(0), 1 << 20, true, std::nullopt);
  ASSERT_TRUE(region.ok() && *region);
  EXPECT_EQ(read_region(**region), bytes);  // the disk holds exactly those bytes
}

TEST(Log, ReadFromTheMiddleOfABatchReturnsTheWholeBatch) {
  TempDir dir;
  auto log = open_log(dir);
  append(*log, make_batch(5, kNow));
  append(*log, make_batch(5, kNow));
  auto region = log->read(Offset(7), 1 << 20, true, std::nullopt);
  ASSERT_TRUE(region.ok() && *region);
  EXPECT_EQ(batch_offsets(**region), (std::vector<int64_t>{5}));
}

TEST(Log, AtLeastOneBatchEvenIfLargerThanMaxBytes) {
  TempDir dir;
  auto log = open_log(dir);
  append(*log, make_batch(10, kNow, 1000));
  append(*log, make_batch(1, kNow));
  auto region = log->read(Offset(0), 100, true, std::nullopt);
  ASSERT_TRUE(region.ok() && *region);
  EXPECT_EQ(batch_offsets(**region), (std::vector<int64_t>{0}));
  auto none = log->read(Offset(0), 100, false, std::nullopt);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(Log, MaxBytesStopsAtWholeBatches) {
  TempDir dir;
  auto log = open_log(dir);
  const auto one = make_batch(1, kNow);
  for (int i = 0; i < 10; ++i) append(*log, std::vector<uint8_t>(one));
  auto region = log->read(Offset(0), one.size() * 3 + 5, true, std::nullopt);
  ASSERT_TRUE(region.ok() && *region);
  EXPECT_EQ(batch_offsets(**region), (std::vector<int64_t>{0, 1, 2}));
}

TEST(Log, ReadStopsAtMaxOffset) {
  TempDir dir;
  auto log = open_log(dir);
  for (int i = 0; i < 4; ++i) append(*log, make_batch(2, kNow));
  auto region = log->read(Offset(0), 1 << 20, true, Offset(4));
  ASSERT_TRUE(region.ok() && *region);
  EXPECT_EQ(batch_offsets(**region), (std::vector<int64_t>{0, 2}));
  auto at_limit = log->read(Offset(4), 1 << 20, true, Offset(4));
  ASSERT_TRUE(at_limit.ok());
  EXPECT_FALSE(at_limit->has_value());
}

// Where each batch of a log went, for reads to be checked against.
struct Placed {
  int64_t first = 0, last = 0;
  uint64_t position = 0, size = 0;
};

// What Log::read must return: whole batches from the one holding `start`, while they fit
// in max_bytes (the first always if min_one_batch), none at or past `limit`.
std::optional<std::pair<uint64_t, uint64_t>> expected_read(const std::vector<Placed>& placed,
                                                           int64_t start, uint64_t max_bytes,
                                                           bool min_one_batch, int64_t limit) {
  size_t i = 0;
  while (i < placed.size() && placed[i].last < start) ++i;
  const uint64_t begin = i < placed.size() ? placed[i].position : 0;
  uint64_t end = begin;
  for (size_t j = i; j < placed.size() && placed[j].first < limit; ++j) {
    if (end + placed[j].size - begin > max_bytes && !(j == i && min_one_batch)) break;
    end += placed[j].size;
  }
  if (end == begin) return std::nullopt;
  return std::pair{begin, end - begin};
}

// Batches of assorted sizes and a dense offset index, so that reads start their header
// walk at indexed batches: every (start, max_bytes, limit) must match the oracle, before
// and after a reopen (then the index is the trimmed, read-only one).
TEST(Log, ReadsMatchTheBatchByBatchRuleWithADenseIndex) {
  TempDir dir;
  LogConfig c;
  c.index_interval_bytes = 300;
  std::vector<Placed> placed;
  {
    auto log = open_log(dir, c);
    uint64_t position = 0;
    for (int i = 0; i < 60; ++i) {
      auto batch = make_batch(1 + i % 4, kNow + i, 10 + size_t(i * 37 % 300));
      const auto r = append_in_place(*log, batch);
      placed.push_back({r.first_offset.value(), r.last_offset.value(), position, batch.size()});
      position += batch.size();
    }
    ASSERT_TRUE(log->close().ok());
  }
  const int64_t end = placed.back().last + 1;
  const uint64_t max_bytes_cases[] = {0, 1, 100, 700, 1500, 4000, 9000, 1 << 20, UINT64_MAX};
  for (bool reopened : {false, true}) {
    auto log = open_log(dir, c);
    ASSERT_NE(log, nullptr);
    if (!reopened) append(*log, make_batch(1, kNow));  // the active segment: writable index
    for (const Placed& limit_batch : placed) {
      const int64_t limit = limit_batch.first == 0 ? end : limit_batch.first;
      for (int64_t start = 0; start < end; start += 3) {
        for (uint64_t max_bytes : max_bytes_cases) {
          for (bool min_one : {false, true}) {
            auto got = log->read(Offset(start), max_bytes, min_one, Offset(limit));
            ASSERT_TRUE(got.ok());
            const auto want = expected_read(placed, start, max_bytes, min_one, limit);
            ASSERT_EQ(got->has_value(), want.has_value())
                << start << " " << max_bytes << " " << min_one << " " << limit;
            if (!want) continue;
            EXPECT_EQ((*got)->position, want->first) << start << " " << max_bytes << " " << limit;
            EXPECT_EQ((*got)->size, want->second) << start << " " << max_bytes << " " << limit;
          }
        }
      }
    }
    ASSERT_TRUE(log->close().ok());
  }
}

// An index entry whose position is not where its batch starts (a damaged index) is not
// used to skip headers: the read walks them all and still returns whole batches.
TEST(Log, ReadDoesNotSkipOnAnIndexEntryThatDisagreesWithTheLog) {
  TempDir dir;
  LogConfig c;
  c.index_interval_bytes = 1;  // an entry for every batch but the first
  const auto one = make_batch(2, kNow);
  {
    auto log = open_log(dir, c);
    for (int i = 0; i < 8; ++i) append(*log, std::vector<uint8_t>(one));
    ASSERT_TRUE(log->close().ok());
  }
  // Entry 4 (batch 5, offsets 10-11) is moved 10 bytes into batch 4. Positions stay
  // sorted, and the read below is the one whose reach lands on that entry.
  {
    std::fstream f(dir / segment_file_name(Offset(0), ".index"),
                   std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t position = uint32_t(4 * one.size() + 10);
    const uint8_t be[4] = {uint8_t(position >> 24), uint8_t(position >> 16),
                           uint8_t(position >> 8), uint8_t(position)};
    f.seekp(4 * 8 + 4);
    f.write(reinterpret_cast<const char*>(be), 4);
  }
  auto log = open_log(dir, c);
  auto region = log->read(Offset(0), one.size() * 5 + 1, true, std::nullopt);
  ASSERT_TRUE(region.ok() && *region);
  EXPECT_EQ((*region)->size, one.size() * 5);
  EXPECT_EQ(batch_offsets(**region), (std::vector<int64_t>{0, 2, 4, 6, 8}));
}

TEST(Log, OutOfRange) {
  TempDir dir;
  auto log = open_log(dir);
  append(*log, make_batch(2, kNow));
  EXPECT_EQ(log->read(Offset(3), 100, true, std::nullopt).error().code,
            StorageErrc::kOffsetOutOfRange);
  auto at_end = log->read(Offset(2), 100, true, std::nullopt);
  ASSERT_TRUE(at_end.ok());
  EXPECT_FALSE(at_end->has_value());
}

TEST(Log, RollsOnSegmentBytes) {
  TempDir dir;
  LogConfig c;
  c.segment_bytes = 1000;
  auto log = open_log(dir, c);
  for (int i = 0; i < 10; ++i) append(*log, make_batch(2, kNow, 100));
  EXPECT_GT(log->segment_count(), 3u);
  // Kafka's names: 20-digit base offsets, each segment starting where the last ended.
  for (Offset base : log->segment_bases()) {
    EXPECT_TRUE(std::filesystem::exists(dir / segment_file_name(base, ".log")));
    EXPECT_TRUE(std::filesystem::exists(dir / segment_file_name(base, ".index")));
    EXPECT_TRUE(std::filesystem::exists(dir / segment_file_name(base, ".timeindex")));
    EXPECT_LE(std::filesystem::file_size(dir / segment_file_name(base, ".log")), 1000u);
  }
  // Every offset is still readable, across segment boundaries.
  for (int64_t o = 0; o < 20; ++o) {
    auto region = log->read(Offset(o), 1, true, std::nullopt);
    ASSERT_TRUE(region.ok() && *region) << o;
    EXPECT_EQ(batch_offsets(**region), (std::vector<int64_t>{o - o % 2}));
  }
}

TEST(Log, RollsOnSegmentMs) {
  TempDir dir;
  LogConfig c;
  c.segment_ms = 1000;
  auto log = open_log(dir, c);
  append(*log, make_batch(1, kNow), kNow);
  append(*log, make_batch(1, kNow + 500), kNow + 500);
  EXPECT_EQ(log->segment_count(), 1u);
  append(*log, make_batch(1, kNow + 1500), kNow + 1500);
  EXPECT_EQ(log->segment_count(), 2u);
  EXPECT_EQ(log->segment_bases().back(), Offset(2));
}

TEST(Log, RollsOnFullIndex) {
  TempDir dir;
  LogConfig c;
  c.segment_index_bytes = 8 * 4;  // four offset-index entries
  c.index_interval_bytes = 1;
  auto log = open_log(dir, c);
  for (int i = 0; i < 20; ++i) append(*log, make_batch(1, kNow + i));
  EXPECT_GT(log->segment_count(), 3u);
  // Rolled segments' indexes are trimmed to their entries.
  const Offset first = log->segment_bases().front();
  EXPECT_EQ(std::filesystem::file_size(dir / segment_file_name(first, ".index")) % 8, 0u);
  EXPECT_LE(std::filesystem::file_size(dir / segment_file_name(first, ".index")), 32u);
}

TEST(Log, IndexEntryEveryIntervalBytes) {
  TempDir dir;
  LogConfig c;
  c.index_interval_bytes = 4096;
  auto log = open_log(dir, c);
  const auto batch = make_batch(10, kNow, 100);  // ~1.2 KiB
  for (int i = 0; i < 40; ++i) append(*log, std::vector<uint8_t>(batch));
  ASSERT_TRUE(log->close().ok());
  // Kafka's rule: an entry for a batch once more than 4096 bytes were appended since the last.
  const uint64_t size = std::filesystem::file_size(dir / segment_file_name(Offset(0), ".index"));
  const uint64_t per_entry = (4096 / batch.size() + 1) * batch.size();
  EXPECT_EQ(size / 8, (40 * batch.size() - 1) / per_entry);
}

TEST(Log, ReopenAfterCleanClose) {
  TempDir dir;
  {
    auto log = open_log(dir);
    for (int i = 0; i < 5; ++i) append(*log, make_batch(3, kNow));
    ASSERT_TRUE(log->close().ok());
  }
  auto log = open_log(dir, {}, true);
  EXPECT_EQ(log->log_end_offset(), Offset(15));
  EXPECT_EQ(log->recovery_report().segments_recovered, 0u);
  append(*log, make_batch(1, kNow));
  EXPECT_EQ(log->log_end_offset(), Offset(16));
  auto region = log->read(Offset(14), 1 << 20, true, std::nullopt);
  ASSERT_TRUE(region.ok() && *region);
  EXPECT_EQ(batch_offsets(**region), (std::vector<int64_t>{12, 15}));
}

TEST(Log, RecoveryTruncatesATornTail) {
  TempDir dir;
  uint64_t good_size = 0;
  {
    auto log = open_log(dir);
    for (int i = 0; i < 5; ++i) append(*log, make_batch(2, kNow));
    good_size = log->size_bytes();
    append(*log, make_batch(2, kNow));
    ASSERT_TRUE(log->flush().ok());
  }
  std::filesystem::resize_file(dir / segment_file_name(Offset(0), ".log"), good_size + 30);
  auto log = open_log(dir, {}, false);
  EXPECT_EQ(log->log_end_offset(), Offset(10));
  EXPECT_EQ(log->size_bytes(), good_size);
  EXPECT_EQ(log->recovery_report().bytes_truncated, 30u);
  EXPECT_EQ(log->recovery_point(), Offset(10));
  append(*log, make_batch(1, kNow));
  EXPECT_EQ(log->log_end_offset(), Offset(11));
}

TEST(Log, RecoveryStopsAtACorruptBatchAndDropsLaterSegments) {
  TempDir dir;
  LogConfig c;
  c.segment_bytes = 500;
  {
    auto log = open_log(dir, c);
    for (int i = 0; i < 12; ++i) append(*log, make_batch(2, kNow, 50));
    ASSERT_TRUE(log->flush().ok());
    ASSERT_GT(log->segment_count(), 3u);
  }
  // Flip a byte inside the second batch of the first segment.
  const auto first = dir / segment_file_name(Offset(0), ".log");
  const auto batch_size = make_batch(2, kNow, 50).size();
  {
    std::fstream f(first, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(batch_size + 70));
    f.put('\x7f');
  }
  auto log = open_log(dir, c, false);
  EXPECT_EQ(log->log_end_offset(), Offset(2));
  EXPECT_EQ(log->segment_count(), 1u);
  EXPECT_GT(log->recovery_report().segments_deleted, 0u);
  EXPECT_FALSE(log->recovery_report().notes.empty());
}

TEST(Log, RecoveryRebuildsAMissingIndex) {
  TempDir dir;
  LogConfig c;
  c.index_interval_bytes = 1;
  {
    auto log = open_log(dir, c);
    for (int i = 0; i < 10; ++i) append(*log, make_batch(1, kNow + i));
    ASSERT_TRUE(log->close().ok());
  }
  const auto index = dir / segment_file_name(Offset(0), ".index");
  const auto size = std::filesystem::file_size(index);
  std::filesystem::resize_file(index, 3);  // not a whole entry: fails the sanity check
  auto log = open_log(dir, c, true);
  EXPECT_EQ(log->recovery_report().segments_recovered, 1u);
  ASSERT_TRUE(log->close().ok());
  EXPECT_EQ(std::filesystem::file_size(index), size);
}

TEST(Log, OffsetForTimestamp) {
  TempDir dir;
  LogConfig c;
  c.segment_bytes = 400;
  c.index_interval_bytes = 1;
  auto log = open_log(dir, c);
  for (int i = 0; i < 10; ++i) append(*log, make_batch(3, kNow + 100 * i));
  // Batch i holds offsets 3i..3i+2 at kNow + 100i + 0..2.
  auto hit = log->offset_for_timestamp(kNow + 401);
  ASSERT_TRUE(hit.ok() && *hit);
  EXPECT_EQ((*hit)->first, Offset(13));
  EXPECT_EQ((*hit)->second, kNow + 401);
  auto between = log->offset_for_timestamp(kNow + 450);
  ASSERT_TRUE(between.ok() && *between);
  EXPECT_EQ((*between)->first, Offset(15));
  auto first = log->offset_for_timestamp(0);
  ASSERT_TRUE(first.ok() && *first);
  EXPECT_EQ((*first)->first, Offset(0));
  auto none = log->offset_for_timestamp(kNow + 10000);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto max = log->max_timestamp_offset();
  ASSERT_TRUE(max);
  EXPECT_EQ(max->second, kNow + 902);
  EXPECT_EQ(max->first, Offset(29));
}

TEST(Log, RetentionBytes) {
  TempDir dir;
  LogConfig c;
  c.segment_bytes = 300;
  c.retention_bytes = 700;
  c.file_delete_delay_ms = 1000;
  auto log = open_log(dir, c);
  for (int i = 0; i < 20; ++i) append(*log, make_batch(1, kNow, 100));
  const size_t before = log->segment_count();
  auto deleted = log->apply_retention(kNow);
  ASSERT_TRUE(deleted.ok());
  EXPECT_GT(*deleted, 0u);
  EXPECT_EQ(log->segment_count(), before - *deleted);
  EXPECT_LE(log->size_bytes(), 700u + 300u);
  EXPECT_EQ(log->log_start_offset(), log->segment_bases().front());
  // Renamed now, unlinked after file.delete.delay.ms.
  const auto renamed = dir / (segment_file_name(Offset(0), ".log") + ".deleted");
  EXPECT_TRUE(std::filesystem::exists(renamed));
  log->tick(kNow + 1001);
  EXPECT_FALSE(std::filesystem::exists(renamed));
  EXPECT_EQ(log->read(Offset(0), 100, true, std::nullopt).error().code,
            StorageErrc::kOffsetOutOfRange);
}

TEST(Log, RetentionMsDeletesEverythingButKeepsTheLogEnd) {
  TempDir dir;
  LogConfig c;
  c.segment_bytes = 300;
  c.retention_ms = 1000;
  auto log = open_log(dir, c);
  for (int i = 0; i < 6; ++i) append(*log, make_batch(1, kNow, 100));
  auto deleted = log->apply_retention(kNow + 500);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 0u);
  deleted = log->apply_retention(kNow + 2000);
  ASSERT_TRUE(deleted.ok());
  EXPECT_GT(*deleted, 0u);
  EXPECT_EQ(log->log_end_offset(), Offset(6));
  EXPECT_EQ(log->log_start_offset(), Offset(6));
  append(*log, make_batch(1, kNow + 2000), kNow + 2000);
  EXPECT_EQ(log->log_end_offset(), Offset(7));
}

TEST(Log, CompactedTopicsKeepSegmentsPastTimeAndSizeRetention) {
  TempDir dir;
  LogConfig c;
  c.segment_bytes = 300;
  c.retention_ms = 1000;
  c.retention_bytes = 100;
  c.cleanup_policy = "compact";
  auto log = open_log(dir, c);
  for (int i = 0; i < 6; ++i) append(*log, make_batch(1, kNow, 100));
  auto deleted = log->apply_retention(kNow + 5000);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 0u);
  EXPECT_EQ(log->log_start_offset(), Offset(0));
  c.cleanup_policy = "compact,delete";
  log->set_config(c);
  deleted = log->apply_retention(kNow + 5000);
  ASSERT_TRUE(deleted.ok());
  EXPECT_GT(*deleted, 0u);
}

TEST(Log, AdvanceLogStartOffset) {
  TempDir dir;
  LogConfig c;
  c.segment_bytes = 300;
  auto log = open_log(dir, c);
  for (int i = 0; i < 10; ++i) append(*log, make_batch(1, kNow, 100));
  ASSERT_TRUE(log->advance_log_start_offset(Offset(5), kNow).ok());
  EXPECT_EQ(log->log_start_offset(), Offset(5));
  EXPECT_LE(log->segment_bases().front(), Offset(5));
  EXPECT_FALSE(log->read(Offset(4), 100, true, std::nullopt).ok());
  EXPECT_TRUE(log->read(Offset(5), 100, true, std::nullopt).ok());
  EXPECT_FALSE(log->advance_log_start_offset(Offset(11), kNow).ok());
}

TEST(Log, LogAppendTime) {
  TempDir dir;
  LogConfig c;
  c.message_timestamp_type = "LogAppendTime";
  auto log = open_log(dir, c);
  auto bytes = make_batch(3, 5);
  auto r = append_in_place(*log, bytes, kNow + 42);
  EXPECT_EQ(r.log_append_time, kNow + 42);
  std::vector<uint8_t> scratch;
  auto v = record::validate_batch(bytes, {}, scratch);
  ASSERT_TRUE(v.ok());  // re-checksummed
  EXPECT_EQ(v->timestamp_type(), record::TimestampType::kLogAppendTime);
  EXPECT_EQ(v->max_timestamp(), kNow + 42);
}

TEST(Log, MaxMessageBytes) {
  TempDir dir;
  LogConfig c;
  c.max_message_bytes = 100;
  auto log = open_log(dir, c);
  auto bytes = make_batch(5, kNow, 100);
  EXPECT_EQ(log->append(bytes, LeaderEpoch(0), kNow).error().code, StorageErrc::kMessageTooLarge);
  EXPECT_EQ(log->log_end_offset(), Offset(0));
  EXPECT_EQ(log->size_bytes(), 0u);
}

TEST(Log, SyncAdvancesTheRecoveryPoint) {
  TempDir dir;
  SyncService sync;
  auto log = open_log(dir, {}, true, &sync);
  append(*log, make_batch(4, kNow));
  EXPECT_EQ(log->recovery_point(), Offset(0));
  std::promise<bool> done;
  log->sync([&](Result<void, StorageError> r) { done.set_value(r.ok()); });
  EXPECT_TRUE(done.get_future().get());
  EXPECT_EQ(log->recovery_point(), Offset(4));
}

TEST(Log, FlushMessagesPolicy) {
  TempDir dir;
  SyncService sync;
  LogConfig c;
  c.flush_messages = 3;
  auto log = open_log(dir, c, true, &sync);
  append(*log, make_batch(2, kNow));
  append(*log, make_batch(2, kNow));  // 4 unflushed >= 3: a sync is requested
  for (int i = 0; i < 1000 && log->recovery_point() < Offset(4); ++i) ::usleep(1000);
  EXPECT_EQ(log->recovery_point(), Offset(4));
}

}  // namespace
}  // namespace strata::storage

namespace strata::storage {
namespace {

TEST(Log, LeaderEpochCheckpoint) {
  TempDir dir;
  {
    auto log = open_log(dir);
    auto a = make_batch(3, kNow);
    ASSERT_TRUE(log->append(a, LeaderEpoch(0), kNow).ok());
    auto b = make_batch(2, kNow);
    ASSERT_TRUE(log->append(b, LeaderEpoch(0), kNow).ok());
    auto c = make_batch(2, kNow);
    ASSERT_TRUE(log->append(c, LeaderEpoch(4), kNow).ok());
    EXPECT_EQ(log->epochs(), (std::vector<EpochEntry>{{LeaderEpoch(0), Offset(0)},
                                                      {LeaderEpoch(4), Offset(5)}}));
    ASSERT_TRUE(log->close().ok());
  }
  // Kafka's text format, readable by its tools.
  std::ifstream in(dir / "leader-epoch-checkpoint");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "0\n2\n0 0\n4 5\n");
  auto log = open_log(dir);
  EXPECT_EQ(log->epochs().size(), 2u);
}

TEST(Log, LeaderEpochsFollowTruncationAndLogStart) {
  TempDir dir;
  LogConfig c;
  c.segment_bytes = 300;
  uint64_t keep = 0;
  {
    auto log = open_log(dir, c);
    for (int e = 0; e < 4; ++e) {
      auto b = make_batch(1, kNow, 100);
      ASSERT_TRUE(log->append(b, LeaderEpoch(e), kNow).ok());
      if (e == 2) keep = std::filesystem::file_size(dir / segment_file_name(log->segment_bases().back(), ".log"));
    }
    ASSERT_TRUE(log->flush().ok());
    ASSERT_TRUE(log->advance_log_start_offset(Offset(1), kNow).ok());
    EXPECT_EQ(log->epochs().front().start_offset, Offset(1));
  }
  (void)keep;
  // Cut the last batch (epoch 3): recovery drops its epoch entry too.
  const auto last = dir / segment_file_name(Offset(3), ".log");
  ASSERT_TRUE(std::filesystem::exists(last));
  std::filesystem::resize_file(last, 10);
  auto log = open_log(dir, c, false);
  EXPECT_EQ(log->log_end_offset(), Offset(3));
  ASSERT_FALSE(log->epochs().empty());
  EXPECT_EQ(log->epochs().back().epoch, LeaderEpoch(2));
}

// leader-epoch-checkpoint is written offloaded; until that write is done the recovery
// point stays at the new epoch's start, so a crash re-reads (and re-derives) it.
TEST(Log, EpochCheckpointWriteHoldsBackTheRecoveryPoint) {
  TempDir dir;
  SyncService sync;
  std::vector<std::function<void()>> queued;
  LogOptions o;
  o.clean_shutdown = true;
  o.now_ms = kNow;
  o.sync = &sync;
  o.offload = [&queued](std::function<void()> work) { queued.push_back(std::move(work)); };
  auto log = Log::open(dir.str(), o);
  ASSERT_TRUE(log.ok());
  auto a = make_batch(3, kNow);
  ASSERT_TRUE((*log)->append(a, LeaderEpoch(0), kNow).ok());
  std::promise<void> synced;
  (*log)->sync([&synced](Result<void, StorageError>) { synced.set_value(); });
  synced.get_future().wait();
  EXPECT_EQ((*log)->recovery_point(), Offset(0));  // data durable, its epoch not yet
  ASSERT_EQ(queued.size(), 1u);
  queued[0]();
  EXPECT_EQ((*log)->recovery_point(), Offset(3));
  EXPECT_TRUE(std::filesystem::exists(dir / "leader-epoch-checkpoint"));
}

// Kafka's recovery assigns the epochs of the batches it reads: a checkpoint that lost
// its newest entries (a crash before the offloaded write) gets them back.
TEST(Log, RecoveryRebuildsEpochsMissingFromTheCheckpoint) {
  TempDir dir;
  {
    auto log = open_log(dir);
    auto a = make_batch(3, kNow);
    ASSERT_TRUE(log->append(a, LeaderEpoch(0), kNow).ok());
    auto b = make_batch(2, kNow);
    ASSERT_TRUE(log->append(b, LeaderEpoch(4), kNow).ok());
    ASSERT_TRUE(log->flush().ok());
  }
  std::filesystem::remove(dir / "leader-epoch-checkpoint");
  auto log = open_log(dir, {}, false);
  EXPECT_EQ(log->epochs(), (std::vector<EpochEntry>{{LeaderEpoch(0), Offset(0)},
                                                    {LeaderEpoch(4), Offset(3)}}));
}

}  // namespace
}  // namespace strata::storage

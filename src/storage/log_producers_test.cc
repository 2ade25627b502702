// Idempotent producers through the Log: duplicates and refusals on append, producer
// snapshots at roll and close, and the state rebuilt on open (snapshot, replay, both).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "record/batch_builder.h"
#include "storage/index_format.h"
#include "storage/log.h"
#include "storage/test_util.h"

namespace strata::storage {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

constexpr int64_t kNow = 1700000000000;
constexpr int64_t kDayMs = 86400000;
constexpr ProducerId kA{4000};
constexpr ProducerId kB{4001};

// One idempotent batch of `records` one-byte records.
std::vector<uint8_t> idem(ProducerId pid, int16_t epoch, int32_t seq, int records = 1,
                          int64_t ts = kNow) {
  record::BatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = ProducerEpoch(epoch);
  o.base_sequence = Sequence(seq);
  record::BatchBuilder b(o);
  for (int i = 0; i < records; ++i) b.append(ts, std::nullopt, as_bytes("v"));
  return std::move(b.finish()).value();
}

std::unique_ptr<Log> open_log(const TempDir& dir, LogConfig config = {}, bool clean = true,
                              Offset recovery_point = Offset(0)) {
  LogOptions o;
  o.config = config;
  o.clean_shutdown = clean;
  o.now_ms = kNow;
  o.recovery_point = recovery_point;
  auto log = Log::open(dir.str(), o);
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message());
  return log.ok() ? std::move(*log) : nullptr;
}

Result<AppendResult, StorageError> append(Log& log, std::vector<uint8_t> bytes,
                                          int64_t now = kNow) {
  return log.append(bytes, LeaderEpoch(0), now);
}

// Appends and expects a fresh write at `offset`.
void expect_written(Log& log, std::vector<uint8_t> bytes, int64_t offset) {
  auto r = append(log, std::move(bytes));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_FALSE(r->duplicate);
  EXPECT_EQ(r->first_offset, Offset(offset));
}

// Appends a retry and expects it answered as the batch at `offset`, nothing written.
void expect_duplicate(Log& log, std::vector<uint8_t> bytes, int64_t offset) {
  const Offset end = log.log_end_offset();
  auto r = append(log, std::move(bytes));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r->duplicate);
  EXPECT_EQ(r->first_offset, Offset(offset));
  EXPECT_EQ(r->batches, 0u);
  EXPECT_EQ(log.log_end_offset(), end);
}

void expect_refused(Log& log, std::vector<uint8_t> bytes, StorageErrc code) {
  const Offset end = log.log_end_offset();
  const uint64_t size = log.size_bytes();
  auto r = append(log, std::move(bytes));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, code) << r.error().message();
  EXPECT_EQ(log.log_end_offset(), end);
  EXPECT_EQ(log.size_bytes(), size);
}

std::string snapshot_file(const TempDir& dir, int64_t offset) {
  return dir / segment_file_name(Offset(offset), kSnapshotSuffix);
}

TEST(LogProducers, RetriedBatchIsNotAppendedTwiceAndGetsItsOriginalOffset) {
  TempDir dir;
  auto log = open_log(dir);
  expect_written(*log, testing::make_batch(2, kNow), 0);  // not idempotent: offsets 0-1
  expect_written(*log, idem(kA, 0, 0, 3), 2);               // sequences 0-2 at 2-4
  expect_written(*log, idem(kA, 0, 3, 2), 5);               // 3-4 at 5-6
  const uint64_t size = log->size_bytes();
  expect_duplicate(*log, idem(kA, 0, 0, 3), 2);
  expect_duplicate(*log, idem(kA, 0, 3, 2), 5);
  EXPECT_EQ(log->size_bytes(), size);
  auto retry = append(*log, idem(kA, 0, 0, 3));
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ(retry->last_offset, Offset(4));
  EXPECT_EQ(retry->max_timestamp, kNow);
  EXPECT_EQ(retry->log_append_time, -1);
  expect_written(*log, idem(kA, 0, 5), 7);
}

TEST(LogProducers, RefusedBatchFailsTheWholeAppend) {
  TempDir dir;
  auto log = open_log(dir);
  expect_written(*log, idem(kA, 3, 0), 0);
  const auto plain_then = [](std::vector<uint8_t> b) {
    return testing::concat({testing::make_batch(1, kNow), std::move(b)});
  };
  expect_refused(*log, plain_then(idem(kA, 3, 2)), StorageErrc::kOutOfOrderSequence);
  expect_refused(*log, plain_then(idem(kA, 2, 1)), StorageErrc::kInvalidProducerEpoch);
  expect_refused(*log, idem(kA, 4, 1), StorageErrc::kOutOfOrderSequence);  // new epoch not at 0
  expect_written(*log, idem(kA, 4, 0), 1);
}

TEST(LogProducers, DuplicateUnderLogAppendTimeReportsTheOriginalAppendTime) {
  TempDir dir;
  LogConfig config;
  config.message_timestamp_type = "LogAppendTime";
  auto log = open_log(dir, config);
  ASSERT_TRUE(append(*log, idem(kA, 0, 0), kNow + 5).ok());
  auto retry = append(*log, idem(kA, 0, 0), kNow + 100);
  ASSERT_TRUE(retry.ok());
  EXPECT_TRUE(retry->duplicate);
  EXPECT_EQ(retry->log_append_time, kNow + 5);
}

TEST(LogProducers, PlainBatchesLeaveNoProducerState) {
  TempDir dir;
  auto log = open_log(dir);
  expect_written(*log, testing::make_batch(3, kNow), 0);
  EXPECT_TRUE(log->producers().empty());
  ASSERT_TRUE(log->close().ok());
  EXPECT_EQ(fs::file_size(snapshot_file(dir, 3)), kSnapshotHeaderSize);  // an empty snapshot
}

TEST(LogProducers, StateSurvivesCloseAndReopenThroughTheSnapshot) {
  TempDir dir;
  {
    auto log = open_log(dir);
    for (int i = 0; i < 3; ++i) expect_written(*log, idem(kA, 0, i), i);
    ASSERT_TRUE(log->close().ok());
    EXPECT_EQ(log->snapshot_offsets(), std::vector<Offset>{Offset(3)});
  }
  ASSERT_TRUE(fs::exists(snapshot_file(dir, 3)));
  auto log = open_log(dir);
  ASSERT_NE(log->producers().find(kA), nullptr);
  EXPECT_EQ(log->producers().find(kA)->last_sequence(), Sequence(2));
  expect_duplicate(*log, idem(kA, 0, 2), 2);
  // A snapshot keeps only each producer's last batch (as Kafka's does): had the log been
  // replayed, this retry would be a duplicate too.
  expect_refused(*log, idem(kA, 0, 1), StorageErrc::kOutOfOrderSequence);
  expect_written(*log, idem(kA, 0, 3), 3);
}

TEST(LogProducers, UncleanReopenReplaysTheLog) {
  TempDir dir;
  {
    auto log = open_log(dir);
    for (int i = 0; i < 3; ++i) expect_written(*log, idem(kA, 0, i), i);
  }  // no close: no snapshot
  ASSERT_FALSE(fs::exists(snapshot_file(dir, 3)));
  auto log = open_log(dir, {}, false);
  expect_duplicate(*log, idem(kA, 0, 1), 1);  // replay restores all of the last five
  expect_duplicate(*log, idem(kA, 0, 2), 2);
  expect_written(*log, idem(kA, 0, 3), 3);
  EXPECT_TRUE(fs::exists(snapshot_file(dir, 3)));  // taken after the replay
}

// Segments of two one-record batches each (a third rolls).
LogConfig two_batch_segments() {
  LogConfig c;
  c.segment_bytes = int64_t(idem(kA, 0, 0).size() * 5 / 2);
  c.segment_ms = INT64_MAX / 2;
  return c;
}

// B writes offsets 0-1, A 2-5, in segments 0, 2 and 4 (snapshots at 2 and 4); then the
// log is dropped without close, as in a crash.
void write_two_producers_and_crash(const TempDir& dir) {
  auto log = open_log(dir, two_batch_segments());
  expect_written(*log, idem(kB, 0, 0), 0);
  expect_written(*log, idem(kB, 0, 1), 1);
  for (int i = 0; i < 4; ++i) expect_written(*log, idem(kA, 0, i), 2 + i);
  EXPECT_EQ(log->segment_bases(), (std::vector<Offset>{Offset(0), Offset(2), Offset(4)}));
  EXPECT_EQ(log->snapshot_offsets(), (std::vector<Offset>{Offset(2), Offset(4)}));
}

TEST(LogProducers, UncleanReopenStartsFromTheSnapshotAtTheRecoveryPoint) {
  TempDir dir;
  write_two_producers_and_crash(dir);
  // Checkpointed recovery point 4: the snapshot at 4, then recovery replays 4 and 5.
  auto log = open_log(dir, two_batch_segments(), false, Offset(4));
  EXPECT_EQ(log->recovery_report().segments_recovered, 1u);
  expect_duplicate(*log, idem(kA, 0, 3), 5);  // replayed by recovery
  expect_duplicate(*log, idem(kA, 0, 2), 4);
  expect_duplicate(*log, idem(kA, 0, 1), 3);  // the snapshot's last batch of A
  expect_duplicate(*log, idem(kB, 0, 1), 1);  // and of B
  // Neither the snapshot at 2 nor a replay from the start was used: A's first batch
  // and B's first are not remembered.
  expect_refused(*log, idem(kA, 0, 0), StorageErrc::kOutOfOrderSequence);
  expect_refused(*log, idem(kB, 0, 0), StorageErrc::kOutOfOrderSequence);
  expect_written(*log, idem(kA, 0, 4), 6);
}

TEST(LogProducers, SnapshotAboveTheRecoveryPointIsNotTrusted) {
  TempDir dir;
  write_two_producers_and_crash(dir);
  // Recovery point 2: the snapshot at 4 may describe data that was never fsynced, so the
  // one at 2 is loaded and segments 2 and 4 are recovered and replayed.
  auto log = open_log(dir, two_batch_segments(), false, Offset(2));
  EXPECT_EQ(log->recovery_report().segments_recovered, 2u);
  expect_duplicate(*log, idem(kA, 0, 0), 2);
  expect_duplicate(*log, idem(kB, 0, 1), 1);
  expect_refused(*log, idem(kB, 0, 0), StorageErrc::kOutOfOrderSequence);
}

TEST(LogProducers, CorruptSnapshotIsDeletedAndTheLogReplayed) {
  TempDir dir;
  {
    auto log = open_log(dir);
    for (int i = 0; i < 3; ++i) expect_written(*log, idem(kA, 0, i), i);
    ASSERT_TRUE(log->close().ok());
  }
  {
    std::fstream f(snapshot_file(dir, 3), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(20);
    f.put('\x7f');
  }
  auto log = open_log(dir);
  bool noted = false;
  for (const std::string& n : log->recovery_report().notes) {
    noted |= n.find("unreadable producer snapshot") != std::string::npos;
  }
  EXPECT_TRUE(noted);
  expect_duplicate(*log, idem(kA, 0, 0), 0);  // from the log, not a snapshot
  // The damaged file was replaced by a good one.
  auto reread = read_producer_snapshot(snapshot_file(dir, 3));
  EXPECT_TRUE(reread.ok());
}

TEST(LogProducers, LogCutBelowTheSnapshotIsRebuiltWithoutIt) {
  TempDir dir;
  uint64_t three_batches = 0;
  {
    auto log = open_log(dir);
    for (int i = 0; i < 3; ++i) expect_written(*log, idem(kA, 0, i), i);
    three_batches = log->size_bytes();
    expect_written(*log, idem(kA, 0, 3), 3);
    ASSERT_TRUE(log->close().ok());  // snapshot at 4
  }
  // The last batch torn (as if never fsynced), but a recovery point that trusts the snapshot.
  fs::resize_file(dir / segment_file_name(Offset(0), kLogSuffix), three_batches + 20);
  auto log = open_log(dir, {}, false, Offset(4));
  EXPECT_EQ(log->log_end_offset(), Offset(3));
  EXPECT_FALSE(fs::exists(snapshot_file(dir, 4)));
  // Sequence 3 is gone with its batch: the retry is written again, not a "duplicate" of
  // an offset that no longer exists.
  expect_written(*log, idem(kA, 0, 3), 3);
}

TEST(LogProducers, RetentionDeletesTheSnapshotsOfDeletedSegments) {
  TempDir dir;
  auto log = open_log(dir, two_batch_segments());
  const int64_t old = kNow - 8 * kDayMs;  // past retention.ms (7 days)
  for (int i = 0; i < 4; ++i) expect_written(*log, idem(kA, 0, i, 1, old), i);
  for (int i = 4; i < 6; ++i) expect_written(*log, idem(kA, 0, i), i);
  ASSERT_EQ(log->snapshot_offsets(), (std::vector<Offset>{Offset(2), Offset(4)}));
  auto deleted = log->apply_retention(kNow);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 2u);
  EXPECT_EQ(log->snapshot_offsets(), std::vector<Offset>{Offset(4)});
  EXPECT_FALSE(fs::exists(snapshot_file(dir, 2)));
  EXPECT_TRUE(fs::exists(snapshot_file(dir, 2) + ".deleted"));
  EXPECT_TRUE(fs::exists(snapshot_file(dir, 4)));
  log->tick(kNow + log->config().file_delete_delay_ms);
  EXPECT_FALSE(fs::exists(snapshot_file(dir, 2) + ".deleted"));
  // Kafka 4.0 keeps a producer whose batches were deleted until it expires.
  expect_duplicate(*log, idem(kA, 0, 5), 5);
}

TEST(LogProducers, IdleProducerExpiresOnTick) {
  TempDir dir;
  auto log = open_log(dir);
  expect_written(*log, idem(kA, 0, 0), 0);
  log->tick(kNow + kDayMs - 1);
  ASSERT_NE(log->producers().find(kA), nullptr);
  log->tick(kNow + kDayMs + kProducerIdExpirationCheckIntervalMs);
  EXPECT_EQ(log->producers().find(kA), nullptr);
  expect_written(*log, idem(kA, 0, 7), 1);  // unknown again: any sequence
}

}  // namespace
}  // namespace strata::storage

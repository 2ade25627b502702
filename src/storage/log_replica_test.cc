// A follower's log: the leader's batches appended byte for byte (append_replicated), and
// truncation to a divergence point (truncate_to), with the producer state, transactions,
// epoch cache and indexes following both, and everything surviving a reopen.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "record/validate.h"
#include "storage/txn_test_util.h"

namespace strata::storage {
namespace {

using testing::kTxnNow;
using testing::make_batch;
using testing::open_txn_log;
using testing::producer_batch;
using testing::TempDir;
using testing::TxnWriter;

constexpr ProducerId kA{100};

// The leader's bytes from `from` to its end, as a follower's fetch would carry them.
std::vector<uint8_t> bytes_from(const Log& log, int64_t from) {
  std::vector<uint8_t> out;
  int64_t at = from;
  while (at < log.log_end_offset().value()) {
    auto region = log.read(Offset(at), 64 << 20, true, std::nullopt);
    EXPECT_TRUE(region.ok() && *region);
    if (!region.ok() || !*region) break;
    std::vector<uint8_t> chunk((*region)->size);
    EXPECT_TRUE((*region)->file->pread_some(chunk, (*region)->position).ok());
    size_t pos = 0;
    while (pos < chunk.size()) {
      auto view = record::frame_batch(Bytes(chunk).subspan(pos));
      if (!view) break;
      at = view->last_offset().value() + 1;
      pos += view->size();
    }
    out.insert(out.end(), chunk.begin(), chunk.begin() + long(pos));
  }
  return out;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string first_segment(const TempDir& dir) {
  return dir / "00000000000000000000.log";
}

TEST(LogReplica, TheLeadersBatchesAreStoredByteForByte) {
  TempDir leader_dir, follower_dir;
  auto leader = open_txn_log(leader_dir);
  for (int i = 0; i < 20; ++i) {
    std::vector<uint8_t> b = make_batch(1 + i % 4, kTxnNow + i, 50);
    ASSERT_TRUE(leader->append(b, LeaderEpoch(i < 10 ? 0 : 3), kTxnNow).ok());
  }
  auto follower = open_txn_log(follower_dir);
  std::vector<uint8_t> bytes = bytes_from(*leader, 0);
  auto r = follower->append_replicated(bytes, kTxnNow);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->first_offset, Offset(0));
  EXPECT_EQ(follower->log_end_offset(), leader->log_end_offset());
  ASSERT_EQ(follower->epochs().size(), 2u);
  EXPECT_EQ(follower->epochs()[1].epoch, LeaderEpoch(3));
  EXPECT_EQ(follower->epochs()[1].start_offset, leader->epochs()[1].start_offset);
  ASSERT_TRUE(leader->flush().ok());
  ASSERT_TRUE(follower->flush().ok());
  EXPECT_EQ(file_bytes(first_segment(follower_dir)), file_bytes(first_segment(leader_dir)));
  // And after a reopen (recovery reads what was written).
  ASSERT_TRUE(follower->close().ok());
  follower.reset();
  auto again = open_txn_log(follower_dir, {}, false);
  EXPECT_EQ(again->log_end_offset(), leader->log_end_offset());
  EXPECT_EQ(again->epochs().size(), 2u);
}

TEST(LogReplica, ACorruptBatchIsRefusedAndNothingIsWritten) {
  TempDir leader_dir, follower_dir;
  auto leader = open_txn_log(leader_dir);
  for (int i = 0; i < 3; ++i) {
    std::vector<uint8_t> b = make_batch(2, kTxnNow, 30);
    ASSERT_TRUE(leader->append(b, LeaderEpoch(0), kTxnNow).ok());
  }
  std::vector<uint8_t> bytes = bytes_from(*leader, 0);
  bytes[bytes.size() - 5] ^= 0x40;  // a record byte of the last batch
  auto follower = open_txn_log(follower_dir);
  auto r = follower->append_replicated(bytes, kTxnNow);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kInvalidBatch);
  EXPECT_NE(r.error().message().find("CRC"), std::string::npos) << r.error().message();
  EXPECT_EQ(follower->log_end_offset(), Offset(0));
  EXPECT_EQ(follower->size_bytes(), 0u);
}

TEST(LogReplica, OffsetsBelowTheLogEndAreRefused) {
  TempDir leader_dir, follower_dir;
  auto leader = open_txn_log(leader_dir);
  std::vector<uint8_t> b = make_batch(3, kTxnNow);
  ASSERT_TRUE(leader->append(b, LeaderEpoch(0), kTxnNow).ok());
  std::vector<uint8_t> bytes = bytes_from(*leader, 0);
  auto follower = open_txn_log(follower_dir);
  ASSERT_TRUE(follower->append_replicated(bytes, kTxnNow).ok());
  auto again = follower->append_replicated(bytes, kTxnNow);  // the same batch twice
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(follower->log_end_offset(), Offset(3));
}

TEST(LogReplica, ProducersAndAbortedTransactionsFollowTheBatches) {
  TempDir leader_dir, follower_dir;
  auto leader = open_txn_log(leader_dir);
  TxnWriter w(*leader);
  w.data(kA, true, 2);        // 0-1
  w.end(kA, false);           // 2: ABORT
  w.data(kA, true, 1);        // 3: open
  auto follower = open_txn_log(follower_dir);
  std::vector<uint8_t> bytes = bytes_from(*leader, 0);
  ASSERT_TRUE(follower->append_replicated(bytes, kTxnNow).ok());
  const ProducerEntry* e = follower->producers().find(kA);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->last_sequence(), leader->producers().find(kA)->last_sequence());
  EXPECT_EQ(follower->first_unstable_offset(), Offset(3));
  auto aborted = follower->aborted_transactions(Offset(0), Offset(4));
  ASSERT_EQ(aborted.size(), 1u);
  EXPECT_EQ(aborted[0].first_offset, Offset(0));
  EXPECT_EQ(aborted[0].last_offset, Offset(2));
  // A follower that later leads goes on with the producer where the leader stopped: the
  // next sequence is accepted, a replay of the last one is a duplicate.
  std::vector<uint8_t> next = producer_batch(kA, 0, 3, true);
  auto ok = follower->append(next, LeaderEpoch(1), kTxnNow);
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_FALSE(ok->duplicate);
  std::vector<uint8_t> dup = producer_batch(kA, 0, 3, true);
  auto again = follower->append(dup, LeaderEpoch(1), kTxnNow);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->duplicate);
}

TEST(LogReplica, TruncationRemovesWholeBatchesAndTheirState) {
  TempDir dir;
  auto log = open_txn_log(dir);
  TxnWriter w(*log);
  for (int i = 0; i < 4; ++i) w.plain();  // 0-3, epoch 0
  w.data(kA, true, 3);                      // 4-6
  w.end(kA, false);                         // 7: ABORT
  std::vector<uint8_t> b = make_batch(2, kTxnNow);
  ASSERT_TRUE(log->append(b, LeaderEpoch(2), kTxnNow).ok());  // 8-9, epoch 2
  ASSERT_EQ(log->epochs().size(), 2u);
  ASSERT_EQ(log->aborted_transactions(Offset(0), Offset(10)).size(), 1u);

  // Offset 5 is inside the batch 4-6: the batch goes whole, the log ends at 4.
  auto end = log->truncate_to(Offset(5), kTxnNow);
  ASSERT_TRUE(end.ok()) << end.error().message();
  EXPECT_EQ(*end, Offset(4));
  EXPECT_EQ(log->log_end_offset(), Offset(4));
  EXPECT_EQ(log->epochs().size(), 1u);
  EXPECT_TRUE(log->aborted_transactions(Offset(0), Offset(10)).empty());
  EXPECT_EQ(log->producers().find(kA), nullptr);  // its only batches are gone
  EXPECT_EQ(log->first_unstable_offset(), std::nullopt);
  EXPECT_LE(log->recovery_point(), Offset(4));
  auto past = log->read(Offset(4), 1 << 20, true, std::nullopt);
  ASSERT_TRUE(past.ok());
  EXPECT_FALSE(*past);
  // The log goes on from there, and reopens as it was left.
  std::vector<uint8_t> more = make_batch(1, kTxnNow);
  auto r = log->append(more, LeaderEpoch(4), kTxnNow);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first_offset, Offset(4));
  ASSERT_TRUE(log->close().ok());
  log.reset();
  auto again = open_txn_log(dir, {}, false);
  EXPECT_EQ(again->log_end_offset(), Offset(5));
  ASSERT_EQ(again->epochs().size(), 2u);
  EXPECT_EQ(again->epochs()[1].epoch, LeaderEpoch(4));
  EXPECT_EQ(again->epochs()[1].start_offset, Offset(4));
}

TEST(LogReplica, TruncationAcrossSegmentsAndAboveTheEnd) {
  TempDir dir;
  LogConfig config;
  config.segment_bytes = 1024;  // a few batches per segment
  auto log = open_txn_log(dir, config);
  for (int i = 0; i < 40; ++i) {
    std::vector<uint8_t> b = make_batch(1, kTxnNow, 200);
    ASSERT_TRUE(log->append(b, LeaderEpoch(0), kTxnNow).ok());
  }
  ASSERT_GT(log->segment_count(), 5u);
  auto same = log->truncate_to(Offset(100), kTxnNow);  // past the end: nothing to do
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, Offset(40));
  auto end = log->truncate_to(Offset(7), kTxnNow);
  ASSERT_TRUE(end.ok()) << end.error().message();
  EXPECT_EQ(*end, Offset(7));
  EXPECT_EQ(log->segment_bases().back() <= Offset(7), true);
  for (int i = 0; i < 5; ++i) {
    std::vector<uint8_t> b = make_batch(1, kTxnNow, 200);
    auto r = log->append(b, LeaderEpoch(1), kTxnNow);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->first_offset, Offset(7 + i));
  }
  ASSERT_TRUE(log->close().ok());
  log.reset();
  auto again = open_txn_log(dir, config, false);
  EXPECT_EQ(again->log_end_offset(), Offset(12));
  auto below = again->truncate_to(Offset(-1), kTxnNow);
  ASSERT_FALSE(below.ok());
  EXPECT_EQ(below.error().code, StorageErrc::kOffsetOutOfRange);
}

// A follower behind its leader's log start (DeleteRecords, retention) starts over there.
TEST(LogReplica, TruncatingFullyStartsTheLogOverAtTheLeadersStart) {
  TempDir leader_dir, follower_dir;
  LogConfig config;
  config.segment_bytes = 1024;
  auto leader = open_txn_log(leader_dir, config);
  for (int i = 0; i < 40; ++i) {
    std::vector<uint8_t> b = producer_batch(kA, 0, i, false, 1);
    ASSERT_TRUE(leader->append(b, LeaderEpoch(i < 20 ? 1 : 2), kTxnNow).ok());
  }
  ASSERT_TRUE(leader->advance_log_start_offset(Offset(30), kTxnNow).ok());
  auto follower = open_txn_log(follower_dir, config);
  for (int i = 0; i < 10; ++i) {
    std::vector<uint8_t> b = producer_batch(ProducerId(7), 0, i, false, 1);
    ASSERT_TRUE(follower->append(b, LeaderEpoch(0), kTxnNow).ok());
  }
  follower->track_high_watermark();
  ASSERT_TRUE(follower->truncate_fully_and_start_at(Offset(30), kTxnNow).ok());
  EXPECT_EQ(follower->log_start_offset(), Offset(30));
  EXPECT_EQ(follower->log_end_offset(), Offset(30));
  EXPECT_EQ(follower->high_watermark(), Offset(30));
  EXPECT_EQ(follower->segment_bases(), std::vector<Offset>{Offset(30)});
  EXPECT_TRUE(follower->epochs().empty());
  EXPECT_EQ(follower->producers().find(ProducerId(7)), nullptr);
  EXPECT_TRUE(follower->snapshot_offsets().empty());
  std::vector<uint8_t> rest = bytes_from(*leader, 30);
  ASSERT_TRUE(follower->append_replicated(rest, kTxnNow).ok());
  EXPECT_EQ(follower->log_end_offset(), Offset(40));
  ASSERT_EQ(follower->epochs().size(), 1u);
  EXPECT_EQ(follower->epochs()[0].epoch, LeaderEpoch(2));
  EXPECT_EQ(follower->epochs()[0].start_offset, Offset(30));
  EXPECT_EQ(follower->producers().find(kA)->last_sequence(), leader->producers().find(kA)->last_sequence());
  // Again at a segment's own base offset (its files' names are taken over).
  const Offset base = follower->segment_bases().back();
  ASSERT_TRUE(follower->truncate_fully_and_start_at(base, kTxnNow).ok());
  std::vector<uint8_t> tail = bytes_from(*leader, base.value());
  ASSERT_TRUE(follower->append_replicated(tail, kTxnNow).ok());
  ASSERT_TRUE(follower->close().ok());
  follower.reset();
  auto again = open_txn_log(follower_dir, config, false);
  EXPECT_EQ(again->log_start_offset(), base);
  EXPECT_EQ(again->log_end_offset(), Offset(40));
  EXPECT_EQ(bytes_from(*again, base.value()), bytes_from(*leader, base.value()));
  EXPECT_FALSE(again->truncate_fully_and_start_at(Offset(-1), kTxnNow).ok());
}

TEST(LogReplica, TruncationRestoresAnEarlierTransactionsOpenState) {
  TempDir dir;
  auto log = open_txn_log(dir);
  TxnWriter w(*log);
  w.data(kA, true, 2);  // 0-1: open
  w.end(kA, true);      // 2: COMMIT
  EXPECT_EQ(log->first_unstable_offset(), std::nullopt);
  // The marker was never replicated to the new leader: truncated, the transaction is
  // open again, as on the leader before its marker.
  ASSERT_TRUE(log->truncate_to(Offset(2), kTxnNow).ok());
  EXPECT_EQ(log->first_unstable_offset(), Offset(0));
  ASSERT_NE(log->producers().find(kA), nullptr);
  EXPECT_EQ(log->producers().find(kA)->current_txn_first_offset, Offset(0));
}

TEST(LogReplica, TheHighWatermarkIsTheLogEndUntilTracked) {
  TempDir dir;
  auto log = open_txn_log(dir);
  for (int i = 0; i < 5; ++i) {
    std::vector<uint8_t> b = make_batch(2, kTxnNow);
    ASSERT_TRUE(log->append(b, LeaderEpoch(0), kTxnNow).ok());
  }
  EXPECT_EQ(log->high_watermark(), Offset(10));  // one replica: everything is committed
  log->track_high_watermark();                    // no checkpoint: from the log end
  EXPECT_EQ(log->high_watermark(), Offset(10));
  std::vector<uint8_t> b = make_batch(2, kTxnNow);
  ASSERT_TRUE(log->append(b, LeaderEpoch(0), kTxnNow).ok());
  EXPECT_EQ(log->high_watermark(), Offset(10));  // waits for the ISR now
  EXPECT_FALSE(log->raise_high_watermark(Offset(9)));  // never backwards
  EXPECT_TRUE(log->raise_high_watermark(Offset(50)));  // clamped to the log end
  EXPECT_EQ(log->high_watermark(), Offset(12));
  ASSERT_TRUE(log->truncate_to(Offset(4), kTxnNow).ok());
  EXPECT_EQ(log->high_watermark(), Offset(4));  // a truncation below it takes it down
  // A reads stops at it for consumers (the broker passes it as max_offset).
  log->untrack_high_watermark();
  EXPECT_EQ(log->high_watermark(), log->log_end_offset());
}

TEST(LogReplica, TrackingStartsAtTheCheckpointedHighWatermark) {
  TempDir dir;
  {
    auto log = open_txn_log(dir);
    for (int i = 0; i < 5; ++i) {
      std::vector<uint8_t> b = make_batch(2, kTxnNow);
      ASSERT_TRUE(log->append(b, LeaderEpoch(0), kTxnNow).ok());
    }
    ASSERT_TRUE(log->close().ok());
  }
  LogOptions o;
  o.clean_shutdown = true;
  o.now_ms = kTxnNow;
  o.high_watermark = Offset(6);
  auto log = Log::open(dir.str(), o);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ((*log)->high_watermark(), Offset(10));
  (*log)->track_high_watermark();
  EXPECT_EQ((*log)->high_watermark(), Offset(6));
}

}  // namespace
}  // namespace strata::storage

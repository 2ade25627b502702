// Transactions through the Log: markers and producer state, the first unstable offset,
// aborted transactions in the .txnindex with Kafka's last stable offsets, and refusals.
#include <gtest/gtest.h>

#include <filesystem>

#include "record/control.h"
#include "record/validate.h"
#include "storage/index_format.h"
#include "storage/txn_test_util.h"

namespace strata::storage {
namespace {

namespace fs = std::filesystem;
using testing::kTxnNow;
using testing::open_txn_log;
using testing::TempDir;
using testing::TxnWriter;

constexpr ProducerId kA{100};
constexpr ProducerId kB{200};
constexpr ProducerId kC{300};

AbortedTxn aborted(ProducerId pid, int64_t first, int64_t last, int64_t lso) {
  return AbortedTxn{pid, Offset(first), Offset(last), Offset(lso)};
}

// The batch at `offset`, read back from the log.
std::vector<uint8_t> batch_at(const Log& log, int64_t offset) {
  auto region = log.read(Offset(offset), 1 << 20, true, std::nullopt);
  EXPECT_TRUE(region.ok() && *region);
  if (!region.ok() || !*region) return {};
  std::vector<uint8_t> bytes((*region)->size);
  auto got = (*region)->file->pread_some(bytes, (*region)->position);
  EXPECT_TRUE(got.ok());
  auto view = record::frame_batch(bytes);
  EXPECT_TRUE(view.ok());
  bytes.resize(view ? view->size() : 0);
  return bytes;
}

TEST(LogTxn, MarkerEndsTheTransactionAndIsAControlBatch) {
  TempDir dir;
  auto log = open_txn_log(dir);
  TxnWriter w(*log);
  EXPECT_EQ(w.data(kA, true, 2), 0);
  EXPECT_EQ(log->first_unstable_offset(), Offset(0));
  EXPECT_EQ(log->producers().find(kA)->current_txn_first_offset, Offset(0));
  // Kafka's InvalidTxnState: non-transactional data inside the open transaction.
  auto plain = w.try_data(kA, false);
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.error().code, StorageErrc::kInvalidTxnState);
  EXPECT_EQ(log->log_end_offset(), Offset(2));
  EXPECT_EQ(w.data(kA, true), 2);
  EXPECT_EQ(log->first_unstable_offset(), Offset(0));  // still the transaction's first offset

  auto marker = w.try_end(kA, true, 3);
  ASSERT_TRUE(marker.ok()) << marker.error().message();
  EXPECT_EQ(marker->first_offset, Offset(3));
  EXPECT_EQ(marker->last_offset, Offset(3));
  EXPECT_EQ(marker->batches, 1u);
  EXPECT_EQ(log->log_end_offset(), Offset(4));
  EXPECT_EQ(log->first_unstable_offset(), std::nullopt);
  const ProducerEntry* a = log->producers().find(kA);
  EXPECT_EQ(a->coordinator_epoch, 3);
  EXPECT_EQ(a->current_txn_first_offset, Offset(-1));
  EXPECT_EQ(a->last_sequence(), Sequence(2));  // same epoch: the batches stay

  const std::vector<uint8_t> bytes = batch_at(*log, 3);
  record::BatchView b(bytes);
  EXPECT_TRUE(b.is_control());
  EXPECT_TRUE(b.is_transactional());
  EXPECT_EQ(b.base_offset(), Offset(3));
  EXPECT_EQ(b.producer_id(), kA);
  EXPECT_EQ(b.producer_epoch(), ProducerEpoch(0));
  EXPECT_EQ(b.base_sequence(), kNoSequence);
  EXPECT_EQ(b.record_count(), 1);
  EXPECT_EQ(b.crc(), b.computed_crc());
  auto end = EndTxn::of(b);
  ASSERT_TRUE(end.has_value());
  EXPECT_TRUE(end->commit);
  EXPECT_EQ(end->coordinator_epoch, 3);
  EXPECT_EQ(end->timestamp, kTxnNow);

  EXPECT_EQ(w.data(kA, false), 4);  // no transaction open: plain idempotent data is fine
  EXPECT_TRUE(testing::txn_index_files(dir).empty());  // a commit indexes nothing
}

TEST(LogTxn, FirstUnstableOffsetFollowsInterleavedTransactions) {
  TempDir dir;
  auto log = open_txn_log(dir);
  TxnWriter w(*log);
  w.data(kA);  // 0
  w.data(kB);  // 1
  w.data(kA);  // 2
  EXPECT_EQ(log->first_unstable_offset(), Offset(0));
  EXPECT_EQ(log->producers().ongoing().size(), 2u);
  EXPECT_EQ(w.end(kA, true), 3);
  EXPECT_EQ(log->first_unstable_offset(), Offset(1));
  // Aborting the only open transaction: lso is the marker's offset + 1.
  EXPECT_EQ(w.end(kB, false), 4);
  EXPECT_EQ(log->first_unstable_offset(), std::nullopt);
  w.data(kA);  // 5
  w.data(kB);  // 6
  // Aborting A while B's transaction (from 6) is open: lso is 6.
  EXPECT_EQ(w.end(kA, false), 7);
  EXPECT_EQ(log->first_unstable_offset(), Offset(6));
  EXPECT_EQ(w.end(kB, true), 8);
  EXPECT_EQ(log->first_unstable_offset(), std::nullopt);

  const std::vector<AbortedTxn> want{aborted(kB, 1, 4, 5), aborted(kA, 5, 7, 6)};
  EXPECT_EQ(log->aborted_transactions(Offset(0), Offset(9)), want);
  auto on_disk = read_txn_index_file(dir / segment_file_name(Offset(0), kTxnIndexSuffix));
  ASSERT_TRUE(on_disk.ok()) << on_disk.error().message();
  EXPECT_EQ(*on_disk, want);
}

TEST(LogTxn, MarkerWithoutAnOpenTransactionIndexesNothing) {
  TempDir dir;
  auto log = open_txn_log(dir);
  TxnWriter w(*log);
  EXPECT_EQ(w.end(kA, false, 7), 0);  // an empty transaction's ABORT
  EXPECT_EQ(log->producers().find(kA)->coordinator_epoch, 7);
  EXPECT_EQ(log->first_unstable_offset(), std::nullopt);
  EXPECT_TRUE(log->aborted_transactions(Offset(0), Offset(1)).empty());
  EXPECT_FALSE(fs::exists(dir / segment_file_name(Offset(0), kTxnIndexSuffix)));
  // The coordinator epoch of a producer without batches survives the snapshot.
  ASSERT_TRUE(log->close().ok());
  log = open_txn_log(dir);
  ASSERT_NE(log->producers().find(kA), nullptr);
  EXPECT_EQ(log->producers().find(kA)->coordinator_epoch, 7);
  auto fenced = TxnWriter(*log).try_end(kA, true, 6);
  ASSERT_FALSE(fenced.ok());
  EXPECT_EQ(fenced.error().code, StorageErrc::kTransactionCoordinatorFenced);
}

TEST(LogTxn, FencedMarkersAreRefusedAndWriteNothing) {
  TempDir dir;
  auto log = open_txn_log(dir);
  TxnWriter w(*log);
  w.set_epoch(kA, 3);
  w.data(kA);  // 0
  auto old_epoch = w.try_end(kA, false, 1, int16_t(2));
  ASSERT_FALSE(old_epoch.ok());
  EXPECT_EQ(old_epoch.error().code, StorageErrc::kInvalidProducerEpoch);
  EXPECT_EQ(w.end(kA, false, 5), 1);
  w.data(kA);  // 2
  auto old_coordinator = w.try_end(kA, true, 4);
  ASSERT_FALSE(old_coordinator.ok());
  EXPECT_EQ(old_coordinator.error().code, StorageErrc::kTransactionCoordinatorFenced);
  EXPECT_EQ(log->log_end_offset(), Offset(3));
  EXPECT_EQ(log->first_unstable_offset(), Offset(2));
  // A bumped producer epoch (the coordinator aborting for a new instance) is accepted.
  auto bumped = w.try_end(kA, false, 5, int16_t(4));
  ASSERT_TRUE(bumped.ok()) << bumped.error().message();
  EXPECT_EQ(log->producers().find(kA)->epoch, ProducerEpoch(4));
  EXPECT_TRUE(log->producers().find(kA)->empty());  // a new epoch drops the batches
  const std::vector<AbortedTxn> want{aborted(kA, 0, 1, 2), aborted(kA, 2, 3, 4)};
  EXPECT_EQ(log->aborted_transactions(Offset(0), Offset(4)), want);
}

TEST(LogTxn, ClientControlBatchesAreRefused) {
  TempDir dir;
  auto log = open_txn_log(dir);
  record::ControlBatchOptions o;
  o.producer_id = kA;
  o.producer_epoch = ProducerEpoch(0);
  std::vector<uint8_t> batch = record::build_end_txn_batch({record::ControlType::kAbort, 0}, o);
  auto r = log->append(batch, LeaderEpoch(0), kTxnNow);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kInvalidRecord);
  EXPECT_EQ(log->log_end_offset(), Offset(0));
}

// A coordinator's transactional offset commits: base sequence 0 every time, all written.
TEST(LogTxn, CoordinatorOriginSkipsDuplicateAndSequenceChecks) {
  TempDir dir;
  auto log = open_txn_log(dir);
  auto commit_offsets = [&](int16_t epoch) {
    std::vector<uint8_t> b = testing::producer_batch(kA, epoch, 0, true);
    return log->append(b, LeaderEpoch(0), kTxnNow, AppendOrigin::kCoordinator);
  };
  ASSERT_TRUE(commit_offsets(2).ok());
  auto again = commit_offsets(2);
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_FALSE(again->duplicate);
  EXPECT_EQ(again->first_offset, Offset(1));
  auto fenced = commit_offsets(1);
  ASSERT_FALSE(fenced.ok());
  EXPECT_EQ(fenced.error().code, StorageErrc::kInvalidProducerEpoch);
  EXPECT_EQ(log->first_unstable_offset(), Offset(0));
  std::vector<uint8_t> plain = testing::producer_batch(kA, 2, 5, false);
  auto outside = log->append(plain, LeaderEpoch(0), kTxnNow, AppendOrigin::kCoordinator);
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().code, StorageErrc::kInvalidTxnState);
  // The same batch from a client, its transaction open: a retry, a duplicate.
  std::vector<uint8_t> retry = testing::producer_batch(kA, 2, 0, true);
  auto dup = log->append(retry, LeaderEpoch(0), kTxnNow);
  ASSERT_TRUE(dup.ok());
  EXPECT_TRUE(dup->duplicate);
  TxnWriter w(*log);
  w.set_epoch(kA, 2);
  EXPECT_EQ(w.end(kA, true), 2);
  EXPECT_EQ(log->first_unstable_offset(), std::nullopt);
  // Once the transaction has ended, no retry: sequences reused (ProducerState::check).
  auto reused = log->append(retry, LeaderEpoch(0), kTxnNow);
  ASSERT_FALSE(reused.ok());
  EXPECT_EQ(reused.error().code, StorageErrc::kOutOfOrderSequence);
  EXPECT_NE(reused.error().message().find("reused, not retried"), std::string::npos)
      << reused.error().message();
}

TEST(LogTxn, MarkerUnderLogAppendTime) {
  TempDir dir;
  LogConfig config;
  config.message_timestamp_type = "LogAppendTime";
  auto log = open_txn_log(dir, config);
  TxnWriter w(*log);
  w.data(kA);
  auto r = w.try_end(kA, true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->log_append_time, kTxnNow);
  const std::vector<uint8_t> bytes = batch_at(*log, 1);
  record::BatchView b(bytes);
  EXPECT_EQ(b.timestamp_type(), record::TimestampType::kLogAppendTime);
  EXPECT_EQ(b.crc(), b.computed_crc());
}

TEST(LogTxn, AbortedTransactionsSpanSegments) {
  TempDir dir;
  LogConfig config;
  config.segment_bytes = 200;  // two or three batches a segment
  auto log = open_txn_log(dir, config);
  TxnWriter w(*log);
  w.data(kA);  // 0
  w.data(kA);  // 1
  w.data(kA);  // 2
  w.end(kA, false);  // 3: (A, 0, 3, lso 4)
  w.data(kB);  // 4
  w.data(kC);  // 5
  w.end(kB, false);  // 6: (B, 4, 6, lso 5)
  w.end(kC, false);  // 7: (C, 5, 7, lso 8)
  ASSERT_GT(log->segment_count(), 2u);
  const AbortedTxn a = aborted(kA, 0, 3, 4), b = aborted(kB, 4, 6, 5), c = aborted(kC, 5, 7, 8);
  using V = std::vector<AbortedTxn>;
  EXPECT_EQ(log->aborted_transactions(Offset(0), Offset(8)), (V{a, b, c}));
  EXPECT_EQ(log->aborted_transactions(Offset(0), Offset(4)), (V{a}));  // complete at a's lso
  EXPECT_EQ(log->aborted_transactions(Offset(3), Offset(5)), (V{a, b}));
  EXPECT_EQ(log->aborted_transactions(Offset(4), Offset(6)), (V{b, c}));
  EXPECT_EQ(log->aborted_transactions(Offset(7), Offset(8)), (V{c}));
  EXPECT_TRUE(log->aborted_transactions(Offset(8), Offset(9)).empty());
  // Each entry sits in the txn index of the segment holding its marker.
  const std::vector<Offset> bases = log->segment_bases();
  for (size_t i = 0; i < bases.size(); ++i) {
    const std::string path = dir / segment_file_name(bases[i], kTxnIndexSuffix);
    if (!fs::exists(path)) continue;
    auto entries = read_txn_index_file(path);
    ASSERT_TRUE(entries.ok());
    for (const AbortedTxn& t : *entries) {
      EXPECT_GE(t.last_offset, bases[i]);
      if (i + 1 < bases.size()) {
        EXPECT_LT(t.last_offset, bases[i + 1]);
      }
    }
  }
}

TEST(LogTxn, OpenTransactionsNeverExpire) {
  TempDir dir;
  auto log = open_txn_log(dir);
  TxnWriter w(*log);
  w.data(kA, true);
  w.data(kB, false);
  log->tick(kTxnNow + 2 * kProducerIdExpirationMsDefault);
  EXPECT_NE(log->producers().find(kA), nullptr);
  EXPECT_EQ(log->producers().find(kB), nullptr);
  EXPECT_EQ(log->first_unstable_offset(), Offset(0));
}

TEST(LogTxn, RetentionDeletesTxnIndexesWithTheirSegments) {
  TempDir dir;
  LogConfig config;
  config.segment_bytes = 200;
  config.file_delete_delay_ms = 1000;
  auto log = open_txn_log(dir, config);
  TxnWriter w(*log);
  for (int i = 0; i < 4; ++i) {
    w.data(kA);
    w.end(kA, false);
  }
  const auto before = testing::txn_index_files(dir);
  ASSERT_GE(before.size(), 2u);
  const Offset end = log->log_end_offset();
  ASSERT_TRUE(log->advance_log_start_offset(end, kTxnNow).ok());
  EXPECT_EQ(log->segment_count(), 1u);
  EXPECT_TRUE(log->aborted_transactions(end, Offset(end.value() + 1)).empty());
  log->tick(kTxnNow + 2000);
  for (const auto& e : fs::directory_iterator(dir.str())) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".deleted"), std::string::npos) << name;
    if (e.path().extension() == ".txnindex") {
      EXPECT_EQ(name, segment_file_name(log->segment_bases()[0], kTxnIndexSuffix));
    }
  }
}

}  // namespace
}  // namespace strata::storage

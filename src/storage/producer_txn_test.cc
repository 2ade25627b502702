// ProducerState's transaction rules on their own: opening, the ongoing set, markers,
// Kafka's last stable offset, and the ongoing set kept in step by put() and clear().
#include <gtest/gtest.h>

#include "storage/producer_state.h"

namespace strata::storage {
namespace {

constexpr ProducerId kA{1};
constexpr ProducerId kB{2};

IdempotentBatch data(ProducerId pid, int32_t seq, bool txn, int16_t epoch = 0) {
  IdempotentBatch b;
  b.producer_id = pid;
  b.epoch = ProducerEpoch(epoch);
  b.first_sequence = Sequence(seq);
  b.last_sequence = Sequence(seq);
  b.transactional = txn;
  return b;
}

EndTxn marker(ProducerId pid, bool commit, int32_t coordinator = 0, int16_t epoch = 0) {
  return EndTxn{pid, ProducerEpoch(epoch), coordinator, commit, 5};
}

TEST(ProducerTxn, TransactionalDataOpensAndMarkerCloses) {
  ProducerState s;
  s.update(data(kA, 0, true), Offset(10));
  s.update(data(kA, 1, true), Offset(11));  // same transaction
  EXPECT_EQ(s.find(kA)->current_txn_first_offset, Offset(10));
  EXPECT_EQ(s.first_unstable_offset(), Offset(10));
  EXPECT_EQ(s.check(data(kA, 2, false)).error, ProducerErrc::kInvalidTxnState);
  EXPECT_EQ(s.check(data(kA, 2, true)).error, ProducerErrc::kNone);
  auto done = s.end_txn(marker(kA, false, 3), Offset(12));
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->first_offset, Offset(10));
  EXPECT_EQ(done->last_offset, Offset(12));
  EXPECT_TRUE(done->aborted);
  EXPECT_EQ(s.find(kA)->coordinator_epoch, 3);
  EXPECT_EQ(s.find(kA)->last_timestamp, 5);
  EXPECT_EQ(s.first_unstable_offset(), std::nullopt);
  EXPECT_FALSE(s.end_txn(marker(kA, true, 3), Offset(13)).has_value());  // nothing open
}

TEST(ProducerTxn, LastStableOffsetIsTheEarliestOtherOpenTransaction) {
  ProducerState s;
  s.update(data(kA, 0, true), Offset(0));
  s.update(data(kB, 0, true), Offset(1));
  auto a = s.end_txn(marker(kA, false), Offset(2));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(s.last_stable_offset(*a), Offset(1));
  auto b = s.end_txn(marker(kB, false), Offset(3));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(s.last_stable_offset(*b), Offset(4));
}

TEST(ProducerTxn, MarkerChecks) {
  ProducerState s;
  EXPECT_EQ(s.check_marker(marker(kA, true, 0)), ProducerErrc::kNone);  // unknown producer
  s.update(data(kA, 0, true, 5), Offset(0));
  EXPECT_EQ(s.check_marker(marker(kA, true, 0, 4)), ProducerErrc::kInvalidProducerEpoch);
  (void)s.end_txn(marker(kA, true, 7, 5), Offset(1));
  EXPECT_EQ(s.check_marker(marker(kA, true, 6, 5)), ProducerErrc::kTransactionCoordinatorFenced);
  EXPECT_EQ(s.check_marker(marker(kA, true, 7, 5)), ProducerErrc::kNone);
  EXPECT_EQ(s.check_marker(marker(kA, true, 8, 6)), ProducerErrc::kNone);
}

TEST(ProducerTxn, PutAndClearKeepTheOngoingSetInStep) {
  ProducerState s;
  ProducerEntry e;
  e.current_txn_first_offset = Offset(7);
  s.put(kA, e);
  EXPECT_EQ(s.first_unstable_offset(), Offset(7));
  e.current_txn_first_offset = Offset(9);
  s.put(kA, e);
  ASSERT_EQ(s.ongoing().size(), 1u);
  EXPECT_EQ(s.ongoing().begin()->first, Offset(9));
  e.current_txn_first_offset = Offset(-1);
  s.put(kA, e);
  EXPECT_TRUE(s.ongoing().empty());
  s.update(data(kB, 0, true), Offset(3));
  s.clear();
  EXPECT_EQ(s.first_unstable_offset(), std::nullopt);
}

TEST(ProducerTxn, StagedTransactionCommitsIntoTheOngoingSet) {
  ProducerState s;
  ProducerAppend append;
  EXPECT_EQ(append.stage(s, data(kA, 0, true), Offset(4)).error, ProducerErrc::kNone);
  // Inside the same append, the staged transaction is already open.
  EXPECT_EQ(append.stage(s, data(kA, 1, false), Offset(5)).error, ProducerErrc::kInvalidTxnState);
  EXPECT_EQ(s.first_unstable_offset(), std::nullopt);  // nothing until commit
  append.commit(s);
  EXPECT_EQ(s.first_unstable_offset(), Offset(4));
}

// faults.txn seed 556573946: librdkafka aborted a transaction whose batch it had sent
// (and the partition kept), counted the batch as not written, and sent the same
// sequences at the same epoch in a later transaction. A duplicate in Kafka's rules, and
// the later transaction committed without its records; refused as out of order here.
TEST(ProducerTxn, SequencesOfAnEndedTransactionReusedAreOutOfOrderNotADuplicate) {
  ProducerState s;
  s.update(data(kA, 0, true), Offset(10));
  // Within the open transaction, a retry is a duplicate with its offsets.
  ProducerCheck retry = s.check(data(kA, 0, true));
  ASSERT_TRUE(retry.duplicate.has_value());
  EXPECT_EQ(retry.duplicate->last_offset, Offset(10));
  ASSERT_TRUE(s.end_txn(marker(kA, false), Offset(11)).has_value());
  // After the marker (no transaction open): reused.
  ProducerCheck reused = s.check(data(kA, 0, true));
  EXPECT_FALSE(reused.duplicate.has_value());
  EXPECT_EQ(reused.error, ProducerErrc::kOutOfOrderSequence);
  ASSERT_TRUE(reused.reused.has_value());
  EXPECT_EQ(reused.reused->last_offset, Offset(10));
  // In a newer transaction that is open: still a batch of the ended one.
  s.update(data(kA, 1, true), Offset(12));
  EXPECT_EQ(s.check(data(kA, 0, true)).error, ProducerErrc::kOutOfOrderSequence);
  EXPECT_TRUE(s.check(data(kA, 1, true)).duplicate.has_value());  // the open one's retry
  // An idempotent (non-transactional) producer's retries stay duplicates.
  s.update(data(kB, 0, false), Offset(13));
  EXPECT_TRUE(s.check(data(kB, 0, false)).duplicate.has_value());
}

}  // namespace
}  // namespace strata::storage

// Kafka's idempotence rules (ProducerAppendInfo) and the producer snapshot format.
#include "storage/producer_state.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "storage/producer_snapshot.h"
#include "storage/test_util.h"

namespace strata::storage {
namespace {

constexpr ProducerId kPid{1000};
constexpr int64_t kTs = 1700000000000;

IdempotentBatch batch(int16_t epoch, int32_t first_seq, int32_t records, ProducerId pid = kPid) {
  IdempotentBatch b;
  b.producer_id = pid;
  b.epoch = ProducerEpoch(epoch);
  b.first_sequence = Sequence(first_seq);
  const int64_t last = int64_t(first_seq) + records - 1;
  b.last_sequence = Sequence(int32_t(last > INT32_MAX ? last - INT32_MAX - 1 : last));
  b.offset_delta = records - 1;
  b.max_timestamp = kTs;
  return b;
}

// Checks `b` and, when it passes, records it as written at `first_offset`.
ProducerCheck write(ProducerState& s, const IdempotentBatch& b, int64_t first_offset) {
  ProducerCheck c = s.check(b);
  if (!c.duplicate && c.error == ProducerErrc::kNone) {
    s.update(b, Offset(first_offset + b.offset_delta));
  }
  return c;
}

bool accepted(const ProducerCheck& c) { return !c.duplicate && c.error == ProducerErrc::kNone; }

// ---- Sequence rules

TEST(ProducerRules, UnknownProducerMayStartAtAnySequence) {
  // Kafka 4.0 (since KIP-360): no UNKNOWN_PRODUCER_ID; a producer the partition does not
  // know (new, expired, or its data deleted) is accepted whatever its sequence.
  ProducerState s;
  EXPECT_TRUE(accepted(s.check(batch(0, 0, 1))));
  EXPECT_TRUE(accepted(s.check(batch(0, 42, 1))));
  EXPECT_TRUE(accepted(s.check(batch(7, 42, 1))));
}

TEST(ProducerRules, NextSequenceIsAcceptedAndAGapIsOutOfOrder) {
  ProducerState s;
  ASSERT_TRUE(accepted(write(s, batch(0, 0, 3), 0)));   // 0..2
  EXPECT_TRUE(accepted(s.check(batch(0, 3, 2))));
  EXPECT_EQ(s.check(batch(0, 4, 1)).error, ProducerErrc::kOutOfOrderSequence);  // gap
  EXPECT_EQ(s.check(batch(0, 1, 2)).error, ProducerErrc::kOutOfOrderSequence);  // overlap
  EXPECT_EQ(s.find(kPid)->last_sequence(), Sequence(2));
}

TEST(ProducerRules, RetryOfEachOfTheLastFiveBatchesIsADuplicateWithItsOffsets) {
  ProducerState s;
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(accepted(write(s, batch(0, i * 2, 2), 100 + i * 2)));
  for (int i = 1; i < 6; ++i) {
    const ProducerCheck c = s.check(batch(0, i * 2, 2));
    ASSERT_TRUE(c.duplicate.has_value()) << i;
    EXPECT_EQ(c.duplicate->first_offset(), Offset(100 + i * 2));
    EXPECT_EQ(c.duplicate->last_offset, Offset(101 + i * 2));
    EXPECT_EQ(c.duplicate->first_sequence(), Sequence(i * 2));
  }
  // The sixth-oldest batch fell out of the cache: just out of order now.
  const ProducerCheck oldest = s.check(batch(0, 0, 2));
  EXPECT_FALSE(oldest.duplicate);
  EXPECT_EQ(oldest.error, ProducerErrc::kOutOfOrderSequence);
}

TEST(ProducerRules, DuplicateNeedsTheSameSequenceRangeAndEpoch) {
  ProducerState s;
  ASSERT_TRUE(accepted(write(s, batch(3, 0, 4), 0)));  // 0..3
  EXPECT_FALSE(s.check(batch(3, 0, 3)).duplicate);     // 0..2: same start, other end
  EXPECT_FALSE(s.check(batch(4, 0, 4)).duplicate);     // another epoch: a new epoch's first batch
  EXPECT_TRUE(accepted(s.check(batch(4, 0, 4))));
}

TEST(ProducerRules, SequenceWrapsFromIntMaxToZero) {
  ProducerState s;
  ASSERT_TRUE(accepted(write(s, batch(0, INT32_MAX - 1, 2), 0)));  // ..INT32_MAX
  EXPECT_TRUE(accepted(s.check(batch(0, 0, 1))));
  EXPECT_EQ(s.check(batch(0, 1, 1)).error, ProducerErrc::kOutOfOrderSequence);
  // A batch that itself wraps: INT32_MAX-1, INT32_MAX, 0, 1.
  ProducerState w;
  ASSERT_TRUE(accepted(write(w, batch(0, INT32_MAX - 1, 4), 0)));
  EXPECT_EQ(w.find(kPid)->last_sequence(), Sequence(1));
  EXPECT_EQ(w.find(kPid)->batches().back().first_sequence(), Sequence(INT32_MAX - 1));
  EXPECT_TRUE(w.check(batch(0, INT32_MAX - 1, 4)).duplicate.has_value());
  EXPECT_TRUE(accepted(w.check(batch(0, 2, 1))));
}

TEST(ProducerRules, OlderEpochIsInvalidProducerEpoch) {
  ProducerState s;
  ASSERT_TRUE(accepted(write(s, batch(5, 0, 1), 0)));
  EXPECT_EQ(s.check(batch(4, 1, 1)).error, ProducerErrc::kInvalidProducerEpoch);
  EXPECT_EQ(s.check(batch(4, 0, 1)).error, ProducerErrc::kInvalidProducerEpoch);
}

TEST(ProducerRules, NewEpochMustStartAtZeroAndDropsTheOldBatches) {
  ProducerState s;
  ASSERT_TRUE(accepted(write(s, batch(1, 0, 5), 0)));
  EXPECT_EQ(s.check(batch(2, 5, 1)).error, ProducerErrc::kOutOfOrderSequence);
  ASSERT_TRUE(accepted(write(s, batch(2, 0, 1), 5)));
  EXPECT_EQ(s.find(kPid)->epoch, ProducerEpoch(2));
  EXPECT_EQ(s.find(kPid)->batches().size(), 1u);
  // The old epoch's batch is no duplicate any more; it is fenced.
  EXPECT_EQ(s.check(batch(1, 0, 5)).error, ProducerErrc::kInvalidProducerEpoch);
}

TEST(ProducerRules, ProducersAreIndependent) {
  ProducerState s;
  ASSERT_TRUE(accepted(write(s, batch(0, 0, 1, ProducerId(1)), 0)));
  ASSERT_TRUE(accepted(write(s, batch(0, 0, 1, ProducerId(2)), 1)));
  EXPECT_TRUE(accepted(s.check(batch(0, 1, 1, ProducerId(1)))));
  EXPECT_EQ(s.check(batch(0, 2, 1, ProducerId(2))).error, ProducerErrc::kOutOfOrderSequence);
}

TEST(ProducerRules, OneAppendChecksEachBatchAgainstTheOnesBeforeIt) {
  ProducerState s;
  ASSERT_TRUE(accepted(write(s, batch(0, 0, 2), 0)));  // 0..1 at offsets 0..1
  ProducerAppend a;
  EXPECT_TRUE(accepted(a.stage(s, batch(0, 2, 2), Offset(3))));
  EXPECT_EQ(a.stage(s, batch(0, 2, 2), Offset(5)).error, ProducerErrc::kOutOfOrderSequence);
  EXPECT_TRUE(accepted(a.stage(s, batch(0, 4, 1), Offset(4))));
  EXPECT_EQ(s.find(kPid)->last_sequence(), Sequence(1));  // nothing applied yet
  a.commit(s);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(s.find(kPid)->last_sequence(), Sequence(4));
  EXPECT_EQ(s.find(kPid)->batches().size(), 3u);
}

TEST(ProducerRules, ExpiryByTheLastBatchTimestamp) {
  ProducerState s;
  ASSERT_TRUE(accepted(write(s, batch(0, 0, 1), 0)));
  EXPECT_EQ(s.remove_expired(kTs + kProducerIdExpirationMsDefault - 1, kProducerIdExpirationMsDefault), 0u);
  EXPECT_EQ(s.remove_expired(kTs + kProducerIdExpirationMsDefault, kProducerIdExpirationMsDefault), 1u);
  EXPECT_TRUE(s.empty());
  EXPECT_TRUE(accepted(s.check(batch(0, 9, 1))));  // forgotten: any sequence again
}

// ---- Snapshot format

std::vector<uint8_t> hex(std::initializer_list<uint8_t> b) { return b; }

ProducerState one_producer() {
  ProducerState s;
  s.update(batch(2, 5, 5), Offset(41));  // sequences 5..9, offsets 37..41
  return s;
}

TEST(ProducerSnapshot, OneEntryBytesAreKafkas) {
  // Computed by hand from ProducerSnapshot.json v1; the CRC-32C (of the bytes from the
  // count on) with an independent bitwise implementation.
  const std::vector<uint8_t> want = hex({
      0x00, 0x01,                                      // version 1
      0x44, 0xAB, 0xB9, 0x3E,                          // crc
      0x00, 0x00, 0x00, 0x01,                          // one entry
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xE8,  // producerId 1000
      0x00, 0x02,                                      // epoch 2
      0x00, 0x00, 0x00, 0x09,                          // lastSequence 9
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x29,  // lastOffset 41
      0x00, 0x00, 0x00, 0x04,                          // offsetDelta 4
      0x00, 0x00, 0x01, 0x8B, 0xCF, 0xE5, 0x68, 0x00,  // timestamp 1700000000000
      0xFF, 0xFF, 0xFF, 0xFF,                          // coordinatorEpoch -1
      0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // currentTxnFirstOffset -1
  });
  EXPECT_EQ(encode_producer_snapshot(one_producer()), want);
}

TEST(ProducerSnapshot, EmptyStateIsTenBytes) {
  EXPECT_EQ(encode_producer_snapshot(ProducerState{}),
            hex({0x00, 0x01, 0x48, 0x67, 0x4B, 0xC7, 0x00, 0x00, 0x00, 0x00}));
}

TEST(ProducerSnapshot, RoundTripKeepsTheLastBatchOfEachProducer) {
  ProducerState s;
  s.update(batch(0, 0, 2, ProducerId(7)), Offset(1));
  s.update(batch(0, 2, 3, ProducerId(7)), Offset(4));
  s.update(batch(9, 0, 1, ProducerId(3)), Offset(5));
  ProducerEntry no_batch;  // e.g. only ended a transaction
  no_batch.epoch = ProducerEpoch(4);
  no_batch.coordinator_epoch = 12;
  no_batch.last_timestamp = kTs;
  s.put(ProducerId(5), no_batch);
  auto decoded = decode_producer_snapshot(encode_producer_snapshot(s));
  ASSERT_TRUE(decoded.ok()) << decoded.error().message();
  ASSERT_EQ(decoded->size(), 3u);
  EXPECT_EQ((*decoded)[0].first, ProducerId(3));  // by producer id
  EXPECT_EQ((*decoded)[1].first, ProducerId(5));
  EXPECT_EQ((*decoded)[2].first, ProducerId(7));
  const ProducerEntry& p7 = (*decoded)[2].second;
  ASSERT_EQ(p7.batches().size(), 1u);
  EXPECT_EQ(p7.batches()[0], (ProducerBatch{Sequence(4), Offset(4), 2, kTs}));
  EXPECT_EQ(p7.epoch, ProducerEpoch(0));
  EXPECT_EQ(p7.last_timestamp, kTs);
  EXPECT_EQ(p7.current_txn_first_offset, Offset(-1));
  const ProducerEntry& p5 = (*decoded)[1].second;
  EXPECT_TRUE(p5.empty());
  EXPECT_EQ(p5.epoch, ProducerEpoch(4));
  EXPECT_EQ(p5.coordinator_epoch, 12);
  EXPECT_EQ(p5.last_timestamp, kTs);
}

// Each corruption a reader must refuse, on a valid one-entry file.
void expect_corrupt(std::vector<uint8_t> bytes, const char* why) {
  auto r = decode_producer_snapshot(bytes);
  ASSERT_FALSE(r.ok()) << why;
  EXPECT_EQ(r.error().code, StorageErrc::kCorruptSnapshot) << why;
}

TEST(ProducerSnapshot, ChecksumMismatch) {
  auto bytes = encode_producer_snapshot(one_producer());
  bytes[20] ^= 0x01;  // inside the entry's lastSequence
  expect_corrupt(bytes, "flipped entry bit");
  bytes = encode_producer_snapshot(one_producer());
  bytes[kSnapshotCrcPos] ^= 0x80;
  expect_corrupt(bytes, "flipped crc bit");
}

TEST(ProducerSnapshot, BadVersion) {
  auto bytes = encode_producer_snapshot(one_producer());
  bytes[1] = 2;
  expect_corrupt(bytes, "version 2");
}

TEST(ProducerSnapshot, TruncatedFile) {
  const auto bytes = encode_producer_snapshot(one_producer());
  for (size_t n : {size_t(0), size_t(1), size_t(9), bytes.size() - 1}) {
    expect_corrupt(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(n)), "truncated");
  }
}

TEST(ProducerSnapshot, CountDisagreesWithTheBytes) {
  auto bytes = encode_producer_snapshot(one_producer());
  store_be32(&bytes[kSnapshotCountPos], uint32_t(-1));
  expect_corrupt(bytes, "negative count");
  store_be32(&bytes[kSnapshotCountPos], 0x7fffffff);
  expect_corrupt(bytes, "huge count");
  bytes = encode_producer_snapshot(one_producer());
  bytes.push_back(0);
  expect_corrupt(bytes, "trailing byte");
}

TEST(ProducerSnapshot, FileRoundTripLeavesNoTemporary) {
  testing::TempDir dir;
  const std::string path = dir / "00000000000000000042.snapshot";
  for (SnapshotSync sync : {SnapshotSync::kNow, SnapshotSync::kLater}) {
    auto w = write_producer_snapshot(path, encode_producer_snapshot(one_producer()), sync);
    ASSERT_TRUE(w.ok()) << w.error().message();
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    auto r = read_producer_snapshot(path);
    ASSERT_TRUE(r.ok()) << r.error().message();
    ASSERT_EQ(r->size(), 1u);
    EXPECT_EQ((*r)[0].second.last_sequence(), Sequence(9));
  }
  // A shorter state replaces a longer file exactly.
  ASSERT_TRUE(write_producer_snapshot(path, encode_producer_snapshot(ProducerState{}),
                                      SnapshotSync::kNow).ok());
  EXPECT_EQ(std::filesystem::file_size(path), kSnapshotHeaderSize);
  std::ofstream(path, std::ios::binary | std::ios::app) << "x";
  auto r = read_producer_snapshot(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kCorruptSnapshot);
  EXPECT_NE(r.error().message().find(path), std::string::npos);
}

}  // namespace
}  // namespace strata::storage

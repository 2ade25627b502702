// dump-log on producer snapshots: files written by the storage writer, printed line for
// line as Kafka's DumpLogSegments prints them (docs/formats/dump-log-output.md 3.4), and
// each way a file can fail Kafka's checks.
#include "tools/dump_snapshot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "record/crc32c.h"
#include "storage/producer_snapshot.h"
#include "tools/dump_log.h"

namespace strata::tools {
namespace {

using storage::ProducerBatch;
using storage::ProducerEntry;
using storage::ProducerState;

constexpr int64_t kTs = 1700000000000;

// A batch as the broker records it (its first sequence is last_seq - the offset delta).
ProducerBatch batch(int32_t last_seq, int64_t first_offset, int64_t last_offset,
                    int64_t max_timestamp) {
  return {Sequence(last_seq), Offset(last_offset), int32_t(last_offset - first_offset),
          max_timestamp};
}

// Producer 1000: two idempotent batches, sequences 0-4 at offsets 0-4, then 5-9 at
// 10-14 (the snapshot keeps the last). Producer 2000: epoch 3, a transaction opened at
// offset 20 (sequences 0-2 at 20-22), coordinator epoch 7 from an earlier marker.
ProducerState two_producers() {
  ProducerState state;
  ProducerEntry a;
  a.add_batch(ProducerEpoch(0), batch(4, 0, 4, kTs + 4));
  a.add_batch(ProducerEpoch(0), batch(9, 10, 14, kTs + 14));
  state.put(ProducerId(1000), a);
  ProducerEntry b;
  b.add_batch(ProducerEpoch(3), batch(2, 20, 22, kTs + 22));
  b.coordinator_epoch = 7;
  b.current_txn_first_offset = Offset(20);
  state.put(ProducerId(2000), b);
  return state;
}

const std::string kLine1000 =
    "producerId: 1000 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: "
    "OptionalLong.empty lastTimestamp: 1700000000014 firstSequence: 5 lastSequence: 9 "
    "lastOffset: 14 offsetDelta: 4 timestamp: 1700000000014\n";
const std::string kLine2000 =
    "producerId: 2000 producerEpoch: 3 coordinatorEpoch: 7 currentTxnFirstOffset: "
    "OptionalLong[20] lastTimestamp: 1700000000022 firstSequence: 0 lastSequence: 2 "
    "lastOffset: 22 offsetDelta: 2 timestamp: 1700000000022\n";

class DumpSnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("strata-dump-snapshot-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `state` with the broker's own snapshot writer.
  std::string write_state(const ProducerState& state,
                          const std::string& name = "00000000000000000023.snapshot") {
    const std::string path = (dir_ / name).string();
    const auto bytes = storage::encode_producer_snapshot(state);
    auto written = storage::write_producer_snapshot(path, bytes, storage::SnapshotSync::kNow);
    EXPECT_TRUE(written.ok());
    return path;
  }
  std::vector<uint8_t> read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void overwrite(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }

  // Runs dump-log on `files`; returns stdout and sets status_ and err_.
  std::string dump(const std::vector<std::string>& files) {
    std::ostringstream out, err;
    status_ = run_dump_log({.files = files}, out, err);
    err_ = err.str();
    return out.str();
  }
  // Expects `path` to be refused with `message`, printing no entry.
  void expect_refused(const std::string& path, const std::string& message) {
    EXPECT_EQ(dump({path}), "Dumping " + path + "\n");
    EXPECT_EQ(err_, message + "\n");
    EXPECT_EQ(status_, 1);
  }

  std::filesystem::path dir_;
  int status_ = -1;
  std::string err_;
};

TEST_F(DumpSnapshotTest, TwoProducersMatchKafka) {
  const auto path = write_state(two_producers());
  EXPECT_EQ(dump({path}), "Dumping " + path + "\n" + kLine1000 + kLine2000);
  EXPECT_EQ(err_, "");
  EXPECT_EQ(status_, 0);
}

// Kafka's Scala tool prints a space after lastTimestamp before the batch part, which a
// producer without a batch does not have: its line ends in that space. A batch whose
// sequences wrapped past INT32_MAX has a firstSequence near INT32_MAX.
TEST_F(DumpSnapshotTest, NoBatchEndsWithSpaceAndSequencesWrap) {
  ProducerState state;
  ProducerEntry no_batch;
  no_batch.epoch = ProducerEpoch(2);
  no_batch.last_timestamp = kTs;
  state.put(ProducerId(5), no_batch);
  ProducerEntry wrapped;
  wrapped.add_batch(ProducerEpoch(0), batch(1, 100, 104, kTs + 104));  // sequences 2147483645..1
  state.put(ProducerId(6), wrapped);
  const auto path = write_state(state);
  EXPECT_EQ(dump({path}),
            "Dumping " + path +
                "\n"
                "producerId: 5 producerEpoch: 2 coordinatorEpoch: -1 currentTxnFirstOffset: "
                "OptionalLong.empty lastTimestamp: 1700000000000 \n"
                "producerId: 6 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: "
                "OptionalLong.empty lastTimestamp: 1700000000104 firstSequence: 2147483645 "
                "lastSequence: 1 lastOffset: 104 offsetDelta: 4 timestamp: 1700000000104\n");
  EXPECT_EQ(status_, 0);
}

TEST_F(DumpSnapshotTest, EmptySnapshotPrintsNothing) {
  const auto path = write_state(ProducerState{});
  EXPECT_EQ(dump({path}), "Dumping " + path + "\n");
  EXPECT_EQ(err_, "");
  EXPECT_EQ(status_, 0);
}

TEST_F(DumpSnapshotTest, ChecksumMismatch) {
  const auto path = write_state(two_producers());
  auto bytes = read(path);
  const uint32_t stored = load_be32(&bytes[storage::kSnapshotCrcPos]);
  bytes[storage::kSnapshotHeaderSize + 9] ^= 0x01;  // producer 1000's epoch
  overwrite(path, bytes);
  const uint32_t computed = record::crc32c(Bytes(bytes).subspan(storage::kSnapshotCountPos));
  ASSERT_NE(stored, computed);
  expect_refused(path, "Snapshot is corrupt (CRC is no longer valid). Stored crc: " +
                           std::to_string(stored) + ". Computed crc: " + std::to_string(computed));
}

TEST_F(DumpSnapshotTest, TruncatedInAnEntry) {
  const auto path = write_state(two_producers());
  auto bytes = read(path);
  ASSERT_EQ(bytes.size(), 102u);
  bytes.resize(80);
  overwrite(path, bytes);
  expect_refused(path,
                 "Snapshot failed schema validation: the file is 80 bytes, too short for "
                 "its 2 entries (102 bytes)");
}

TEST_F(DumpSnapshotTest, ShorterThanHeader) {
  const auto path = write_state(two_producers());
  auto bytes = read(path);
  bytes.resize(7);
  overwrite(path, bytes);
  expect_refused(path,
                 "Snapshot failed schema validation: the file is 7 bytes, shorter than the "
                 "10-byte header");
}

// A crash between the writer's rename and its fsync can leave an empty file.
TEST_F(DumpSnapshotTest, EmptyFile) {
  const auto path = (dir_ / "00000000000000000023.snapshot").string();
  overwrite(path, {});
  expect_refused(path,
                 "Snapshot failed schema validation: the file is 0 bytes, shorter than the "
                 "10-byte header");
}

TEST_F(DumpSnapshotTest, UnknownVersion) {
  const auto path = write_state(two_producers());
  auto bytes = read(path);
  bytes[1] = 2;
  overwrite(path, bytes);
  expect_refused(path,
                 "Snapshot failed schema validation: Snapshot contained an unknown file "
                 "version 2");
}

TEST_F(DumpSnapshotTest, NegativeCount) {
  const auto path = write_state(two_producers());
  auto bytes = read(path);
  store_be32(&bytes[storage::kSnapshotCountPos], 0xffffffffu);
  overwrite(path, bytes);
  expect_refused(path,
                 "Snapshot failed schema validation: non-nullable field producerEntries "
                 "was serialized as null");
}

TEST_F(DumpSnapshotTest, CountLargerThanTheFile) {
  const auto path = write_state(two_producers());
  auto bytes = read(path);
  store_be32(&bytes[storage::kSnapshotCountPos], 1000);
  overwrite(path, bytes);
  expect_refused(path,
                 "Snapshot failed schema validation: Tried to allocate a collection of "
                 "size 1000, but there are only 92 bytes remaining.");
}

// Kafka reads a file with bytes after its last entry when the CRC covers them; Strata's
// broker refuses it, which the dump notes.
TEST_F(DumpSnapshotTest, TrailingBytesUnderAValidCrcArePrintedWithANote) {
  const auto path = write_state(two_producers());
  auto bytes = read(path);
  bytes.insert(bytes.end(), {0xde, 0xad, 0xbe});
  store_be32(&bytes[storage::kSnapshotCrcPos],
             record::crc32c(Bytes(bytes).subspan(storage::kSnapshotCountPos)));
  overwrite(path, bytes);
  EXPECT_EQ(dump({path}), "Dumping " + path + "\n" + kLine1000 + kLine2000);
  EXPECT_EQ(err_,
            "Note: Strata's broker would not load " + path + ": 3 bytes follow the last entry\n");
  EXPECT_EQ(status_, 0);
}

TEST_F(DumpSnapshotTest, CorruptFileDoesNotStopTheDump) {
  const auto bad = write_state(two_producers(), "00000000000000000010.snapshot");
  auto bytes = read(bad);
  bytes.resize(50);
  overwrite(bad, bytes);
  const auto good = write_state(two_producers());
  EXPECT_EQ(dump({bad, good}),
            "Dumping " + bad + "\nDumping " + good + "\n" + kLine1000 + kLine2000);
  EXPECT_EQ(err_,
            "Snapshot failed schema validation: the file is 50 bytes, too short for its 2 "
            "entries (102 bytes)\n");
  EXPECT_EQ(status_, 1);
}

TEST_F(DumpSnapshotTest, MissingFile) {
  const auto path = (dir_ / "00000000000000000023.snapshot").string();
  expect_refused(path, "Error: cannot read " + path + ": No such file or directory");
}

}  // namespace
}  // namespace strata::tools

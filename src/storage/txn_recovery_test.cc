// Transactions across restarts: a clean reopen (from the snapshot), an unclean one (torn
// tail, snapshots and txn indexes gone: everything replayed), and damaged .txnindex files,
// which are rebuilt by recovering their segment as Kafka does on a failed sanity check.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

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
constexpr ProducerId kD{400};

LogConfig small_segments() {
  LogConfig config;
  config.segment_bytes = 300;  // three or four batches a segment
  return config;
}

// Interleaved transactions over many segments: aborts whose transactions began segments
// earlier, aborts while others are open (lso below the marker), and two still open.
void workload(TxnWriter& w) {
  w.data(kA);
  w.data(kB);
  w.plain();
  w.data(kA, true, 3);
  w.end(kA, false, 1);  // lso: B's first offset
  w.data(kC);
  w.data(kB);
  w.end(kB, true, 1);
  w.data(kD);
  w.data(kC, true, 2);
  w.end(kC, false, 2);  // lso: D's first offset
  w.data(kA);
  w.plain();
  w.end(kD, false, 2);  // lso: A's first offset
  w.data(kB);
  w.data(kA);
  w.data(kC, false);
}

struct TxnState {
  std::map<Offset, ProducerId> ongoing;
  std::map<std::string, std::string> index_files;
  std::vector<AbortedTxn> aborted;
  Offset end;
  std::map<int64_t, int32_t> coordinator_epochs;
  bool operator==(const TxnState&) const = default;
};

TxnState state_of(const Log& log, const TempDir& dir) {
  TxnState s;
  s.ongoing = log.producers().ongoing();
  s.index_files = testing::txn_index_files(dir);
  s.aborted = log.aborted_transactions(log.log_start_offset(), log.log_end_offset());
  s.end = log.log_end_offset();
  for (const auto& [id, entry] : log.producers().sorted()) {
    s.coordinator_epochs[id.value()] = entry->coordinator_epoch;
  }
  return s;
}

// Writes the workload, closes the log cleanly; returns the state it had.
TxnState write_and_close(const TempDir& dir) {
  auto log = open_txn_log(dir, small_segments());
  TxnWriter w(*log);
  workload(w);
  EXPECT_GT(log->segment_count(), 4u);
  EXPECT_EQ(log->producers().ongoing().size(), 2u);
  EXPECT_EQ(log->aborted_transactions(Offset(0), log->log_end_offset()).size(), 3u);
  TxnState s = state_of(*log, dir);
  EXPECT_TRUE(log->close().ok());
  return s;
}

std::string txn_index_path(const TempDir& dir, Offset base) {
  return dir / segment_file_name(base, kTxnIndexSuffix);
}

// The base of a segment, not the last, whose txn index has entries.
Offset indexed_inner_segment(const TempDir& dir) {
  auto log = open_txn_log(dir, small_segments());
  const std::vector<Offset> bases = log->segment_bases();
  for (size_t i = 0; i + 1 < bases.size(); ++i) {
    if (fs::exists(txn_index_path(dir, bases[i])) && fs::file_size(txn_index_path(dir, bases[i])) > 0) {
      return bases[i];
    }
  }
  ADD_FAILURE() << "no inner segment with aborted transactions";
  return Offset(-1);
}

TEST(LogTxnRecovery, WorkloadHasKafkasLastStableOffsets) {
  TempDir dir;
  const TxnState s = write_and_close(dir);
  ASSERT_EQ(s.aborted.size(), 3u);
  // A aborted while B was open: lso = B's first offset (1); C while D: D's; D while A: A's.
  EXPECT_EQ(s.aborted[0].producer_id, kA);
  EXPECT_EQ(s.aborted[0].last_stable_offset, Offset(1));
  EXPECT_EQ(s.aborted[1].producer_id, kC);
  EXPECT_EQ(s.aborted[1].last_stable_offset, s.aborted[2].first_offset);
  EXPECT_EQ(s.aborted[2].producer_id, kD);
  EXPECT_LT(s.aborted[2].last_stable_offset, s.aborted[2].last_offset);
  EXPECT_EQ(s.coordinator_epochs.at(kB.value()), 1);
  EXPECT_EQ(s.coordinator_epochs.at(kD.value()), 2);
}

TEST(LogTxnRecovery, CleanReopenRestoresOpenTransactionsFromTheSnapshot) {
  TempDir dir;
  const TxnState before = write_and_close(dir);
  auto snapshot = read_producer_snapshot(dir / segment_file_name(before.end, kSnapshotSuffix));
  ASSERT_TRUE(snapshot.ok());
  size_t open = 0;
  for (const auto& [id, entry] : *snapshot) open += entry.current_txn_first_offset.value() >= 0;
  EXPECT_EQ(open, 2u);
  auto log = open_txn_log(dir, small_segments());
  EXPECT_EQ(log->recovery_report().segments_recovered, 0u);
  EXPECT_EQ(state_of(*log, dir), before);
  EXPECT_EQ(log->first_unstable_offset(), before.ongoing.begin()->first);
  // The transactions go on: B's abort now has A's open transaction as its lso.
  TxnWriter w(*log);
  const int64_t marker = w.end(kB, false, 3);
  const auto aborted = log->aborted_transactions(Offset(marker), Offset(marker + 1));
  ASSERT_EQ(aborted.size(), 1u);
  EXPECT_EQ(aborted[0].last_stable_offset, log->first_unstable_offset().value());
}

TEST(LogTxnRecovery, UncleanStopRebuildsOpenTransactionsAndTxnIndexes) {
  TempDir dir;
  const TxnState before = write_and_close(dir);
  {
    // One more batch, torn by the crash; then the snapshots and txn indexes are lost too.
    auto log = open_txn_log(dir, small_segments());
    TxnWriter(*log).plain();
    ASSERT_TRUE(log->flush().ok());
  }
  const std::vector<Offset> bases = open_txn_log(dir, small_segments())->segment_bases();
  const std::string last = dir / segment_file_name(bases.back(), kLogSuffix);
  fs::resize_file(last, fs::file_size(last) - 5);
  testing::remove_files_with(dir, ".snapshot");
  testing::remove_files_with(dir, ".txnindex");
  auto log = open_txn_log(dir, small_segments(), false, Offset(0));
  EXPECT_GT(log->recovery_report().bytes_truncated, 0u);
  EXPECT_EQ(state_of(*log, dir), before);
}

TEST(LogTxnRecovery, UncleanStopFromAMiddleRecoveryPointRebuildsTheSame) {
  TempDir dir;
  const TxnState before = write_and_close(dir);
  const Offset inner = indexed_inner_segment(dir);
  // Everything from the segment holding `inner` is recovered, its txn index included,
  // from the producer state at that segment's base.
  auto log = open_txn_log(dir, small_segments(), false, Offset(inner.value() + 1));
  EXPECT_GT(log->recovery_report().segments_recovered, 1u);
  EXPECT_EQ(state_of(*log, dir), before);
}

TEST(LogTxnRecovery, CorruptTxnIndexIsRebuiltByRecoveringItsSegment) {
  const auto damage = std::vector<std::function<void(const std::string&)>>{
      [](const std::string& path) {  // an unknown version
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(0);
        f.put(char(0x7f));
      },
      [](const std::string& path) {  // a torn entry at the end
        std::ofstream(path, std::ios::app | std::ios::binary).write("garbage", 7);
      },
      [](const std::string& path) {  // an entry past the segment's end
        const auto bytes = encode_aborted_txn({kA, Offset(0), Offset(1 << 30), Offset(1 << 30)});
        std::ofstream(path, std::ios::app | std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
      },
  };
  for (size_t i = 0; i < damage.size(); ++i) {
    SCOPED_TRACE("damage " + std::to_string(i));
    TempDir dir;
    const TxnState before = write_and_close(dir);
    damage[i](txn_index_path(dir, indexed_inner_segment(dir)));
    auto log = open_txn_log(dir, small_segments());
    EXPECT_GT(log->recovery_report().segments_recovered, 0u);
    EXPECT_EQ(state_of(*log, dir), before);
  }
}

TEST(LogTxnRecovery, TruncatedSegmentDropsTheAbortsAfterTheCut) {
  TempDir dir;
  const TxnState before = write_and_close(dir);
  const Offset inner = indexed_inner_segment(dir);
  // Cut the inner segment in the middle of its data: it and everything after it go.
  const std::string path = dir / segment_file_name(inner, kLogSuffix);
  fs::resize_file(path, 10);
  auto log = open_txn_log(dir, small_segments(), false, Offset(0));
  EXPECT_EQ(log->log_end_offset(), inner);
  for (const AbortedTxn& t : log->aborted_transactions(Offset(0), inner)) {
    EXPECT_LT(t.last_offset, inner);
  }
  for (const auto& [name, bytes] : testing::txn_index_files(dir)) {
    EXPECT_TRUE(before.index_files.contains(name)) << name;
  }
  // What stays open is what was open at the cut.
  for (const auto& [first, id] : log->producers().ongoing()) EXPECT_LT(first, inner);
}

}  // namespace
}  // namespace strata::storage

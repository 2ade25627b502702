// Shared by the transaction tests: transactional producers writing through a Log, and the
// txn index files of a log directory.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "storage/log.h"
#include "storage/test_util.h"

namespace strata::storage::testing {

inline constexpr int64_t kTxnNow = 1700000000000;

inline std::unique_ptr<Log> open_txn_log(const TempDir& dir, LogConfig config = {},
                                         bool clean = true, Offset recovery_point = Offset(0),
                                         int64_t now = kTxnNow) {
  LogOptions o;
  o.config = config;
  o.clean_shutdown = clean;
  o.now_ms = now;
  o.recovery_point = recovery_point;
  auto log = Log::open(dir.str(), o);
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message());
  return log.ok() ? std::move(*log) : nullptr;
}

// A data batch of `records` records from `pid`, transactional when `txn`.
inline std::vector<uint8_t> producer_batch(ProducerId pid, int16_t epoch, int32_t seq, bool txn,
                                           int records = 1, int64_t ts = kTxnNow) {
  record::BatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = ProducerEpoch(epoch);
  o.base_sequence = Sequence(seq);
  o.transactional = txn;
  record::BatchBuilder b(o);
  for (int i = 0; i < records; ++i) b.append(ts, std::nullopt, as_bytes("value"));
  return std::move(b.finish()).value();
}

// Producers at epoch 0 (unless changed) writing through a Log, sequences kept here.
class TxnWriter {
 public:
  explicit TxnWriter(Log& log) : log_(log) {}

  // Appends a batch; returns the result (the sequence advances only on success).
  Result<AppendResult, StorageError> try_data(ProducerId pid, bool txn, int records = 1) {
    std::vector<uint8_t> b = producer_batch(pid, epochs_[pid], seqs_[pid], txn, records);
    auto r = log_.append(b, LeaderEpoch(0), kTxnNow);
    if (r) seqs_[pid] += records;
    return r;
  }
  // Appends a batch that must succeed; its first offset.
  int64_t data(ProducerId pid, bool txn = true, int records = 1) {
    auto r = try_data(pid, txn, records);
    EXPECT_TRUE(r.ok()) << r.error().message();
    return r.ok() ? r->first_offset.value() : -1;
  }
  Result<AppendResult, StorageError> try_end(ProducerId pid, bool commit, int32_t coordinator = 0,
                                             std::optional<int16_t> epoch = std::nullopt) {
    const TxnMarker m{pid, ProducerEpoch(epoch.value_or(epochs_[pid])), coordinator, commit};
    return log_.append_marker(m, LeaderEpoch(0), kTxnNow);
  }
  // Writes a marker that must succeed; its offset.
  int64_t end(ProducerId pid, bool commit, int32_t coordinator = 0) {
    auto r = try_end(pid, commit, coordinator);
    EXPECT_TRUE(r.ok()) << r.error().message();
    return r.ok() ? r->first_offset.value() : -1;
  }
  void plain() {
    std::vector<uint8_t> b = make_batch(1, kTxnNow);
    auto r = log_.append(b, LeaderEpoch(0), kTxnNow);
    EXPECT_TRUE(r.ok());
  }
  void set_epoch(ProducerId pid, int16_t epoch) {
    epochs_[pid] = epoch;
    seqs_[pid] = 0;
  }

 private:
  Log& log_;
  std::map<ProducerId, int16_t> epochs_;
  std::map<ProducerId, int32_t> seqs_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The non-empty .txnindex files of a directory, name -> bytes (an empty file and no file
// mean the same: no aborted transaction).
inline std::map<std::string, std::string> txn_index_files(const TempDir& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir.str())) {
    if (e.path().extension() != ".txnindex") continue;
    std::string bytes = slurp(e.path().string());
    if (!bytes.empty()) out[e.path().filename().string()] = std::move(bytes);
  }
  return out;
}

inline void remove_files_with(const TempDir& dir, const std::string& extension) {
  for (const auto& e : std::filesystem::directory_iterator(dir.str())) {
    if (e.path().extension() == extension) std::filesystem::remove(e.path());
  }
}

}  // namespace strata::storage::testing

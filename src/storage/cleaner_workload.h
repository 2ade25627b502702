// A random keyed workload for the cleaner tests, with its model: overwrites, tombstones,
// keyless records, idempotent producers, transactions committed and aborted, all codecs.
// The model's `expected` is what a cleaning must leave (Kafka's rules, log_cleaner.h).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "storage/cleaner_test_util.h"

namespace strata::storage::testing {

struct Model {
  std::map<int64_t, Rec> records;  // every data record appended, by offset
  std::set<int64_t> aborted;       // offsets of records of aborted transactions

  // What a cleaning at `now_ms` that mapped everything below `end` leaves of `before`.
  std::map<int64_t, Rec> expected(const LogContents& before, int64_t end, int64_t now_ms) const {
    std::map<std::string, int64_t> latest;
    for (const auto& [offset, rec] : records) {
      if (offset < end && rec.key && !aborted.contains(offset)) latest[*rec.key] = offset;
    }
    std::map<int64_t, Rec> out;
    for (const auto& [offset, rec] : before.records) {
      if (offset < end) {
        if (aborted.contains(offset) || !rec.key || latest.at(*rec.key) != offset) continue;
        const std::optional<int64_t> horizon = before.horizon_of.at(offset);
        if (!rec.value && horizon && now_ms >= *horizon) continue;
      }
      out[offset] = rec;
    }
    return out;
  }
};

class Workload {
 public:
  static constexpr int kKeys = 40;

  Workload(Log& log, Model& model, uint64_t seed) : log_(&log), model_(model), rng_(seed) {}
  // After the test reopens the log.
  void set_log(Log& log) { log_ = &log; }

  // `steps` appends or markers; transactions may stay open.
  void run(int steps, int64_t now_ms) {
    for (int i = 0; i < steps; ++i) step(now_ms + i);
  }
  // Ends every open transaction.
  void end_all(int64_t now_ms) {
    for (auto& [pid, p] : producers_) {
      if (!p.open.empty()) end(pid, pick(3) != 0, now_ms);
    }
  }
  // Rolls the active segment (segment.ms made tiny for one append of "~roll<n>"), so
  // everything before is cleanable.
  void roll(int64_t now_ms) {
    const LogConfig saved = log_->config();
    LogConfig c = saved;
    c.segment_ms = 1;
    log_->set_config(c);
    put({{"~roll" + std::to_string(rolls_++), "r", now_ms + 10}});
    log_->set_config(saved);
  }
  void put(const std::vector<Rec>& recs, const BatchSpec& spec = {}) {
    auto b = keyed_batch(recs, spec);
    auto r = log_->append(b, LeaderEpoch(0), recs.front().timestamp);
    ASSERT_TRUE(r.ok()) << r.error().message();
    for (size_t i = 0; i < recs.size(); ++i)
      model_.records[r->first_offset.value() + int64_t(i)] = recs[i];
  }

 private:
  struct Producer {
    int32_t seq = 0;
    std::vector<int64_t> open;  // offsets of its open transaction's records
  };

  uint64_t pick(uint64_t n) { return rng_() % n; }

  std::vector<Rec> random_records(int64_t now_ms) {
    std::vector<Rec> recs(1 + pick(5));
    for (Rec& r : recs) {
      if (pick(40) != 0) r.key = "k" + std::to_string(pick(kKeys));
      if (pick(7) != 0)
        r.value = "v" + std::to_string(rng_() % 100000) + std::string(pick(60), 'x');
      r.timestamp = now_ms;
    }
    return recs;
  }

  void end(ProducerId pid, bool commit, int64_t now_ms) {
    Producer& p = producers_[pid];
    auto r =
        log_->append_marker(TxnMarker{pid, ProducerEpoch(0), 0, commit}, LeaderEpoch(0), now_ms);
    ASSERT_TRUE(r.ok()) << r.error().message();
    if (!commit) model_.aborted.insert(p.open.begin(), p.open.end());
    p.open.clear();
  }

  void step(int64_t now_ms) {
    static const record::Codec kCodecs[] = {record::Codec::kNone, record::Codec::kNone,
                                            record::Codec::kGzip, record::Codec::kSnappy,
                                            record::Codec::kLz4,  record::Codec::kZstd};
    BatchSpec spec;
    spec.codec = kCodecs[pick(6)];
    const uint64_t kind = pick(10);
    std::vector<Rec> recs = random_records(now_ms);
    if (kind < 5) return put(recs, spec);  // plain
    const ProducerId pid(kind < 7 ? 100 + int64_t(pick(2)) : 200 + int64_t(pick(3)));
    Producer& p = producers_[pid];
    spec.producer_id = pid;
    spec.epoch = ProducerEpoch(0);
    spec.base_sequence = Sequence(p.seq);
    spec.transactional = pid.value() >= 200;
    if (spec.transactional && !p.open.empty() && pick(3) == 0)
      return end(pid, pick(2) == 0, now_ms);
    const int64_t first = log_->log_end_offset().value();
    put(recs, spec);
    p.seq += int32_t(recs.size());
    if (spec.transactional) {
      for (size_t i = 0; i < recs.size(); ++i) p.open.push_back(first + int64_t(i));
    }
  }

  Log* log_;
  Model& model_;
  std::mt19937_64 rng_;
  std::map<ProducerId, Producer> producers_;
  int rolls_ = 0;
};

}  // namespace strata::storage::testing

// The leader's replication rules (broker/replication.h) on a real log: the high
// watermark is the ISR's least log end and waits for min.insync.replicas, acks=all waits
// complete or time out, and the ISR shrinks for a lagging follower and grows for one
// that caught up, but not for one that went quiet.
#include "broker/replication.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "broker/errors.h"
#include "record/batch_builder.h"

namespace strata::broker {
namespace {

constexpr int64_t kNow = 1700000000000;
constexpr int64_t kLag = 3000;
const storage::TopicPartition kTp{"rep", PartitionId(0)};

class ReplicationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("strata-replication-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    storage::LogOptions o;
    o.now_ms = kNow;
    o.clean_shutdown = true;
    o.config.min_insync_replicas = 2;
    auto log = storage::Log::open(dir_.string(), o);
    ASSERT_TRUE(log.ok());
    log_ = std::move(*log);
    log_->track_high_watermark();  // as the broker does once it knows the partition is replicated
    meta_.leader = 1;
    meta_.leader_epoch = 4;
    meta_.replicas = {1, 2, 3};
    meta_.isr = {1, 2, 3};
  }
  void TearDown() override {
    log_.reset();
    std::filesystem::remove_all(dir_);
  }
  // Appends `n` records as the leader; the log end after.
  int64_t append(int n) {
    record::BatchBuilder b(record::BatchOptions{});
    for (int i = 0; i < n; ++i) b.append(kNow, std::nullopt, as_bytes("v"));
    std::vector<uint8_t> batch = std::move(b.finish()).value();
    EXPECT_TRUE(log_->append(batch, LeaderEpoch(meta_.leader_epoch), kNow).ok());
    repl_.after_leader_append(kTp, meta_, *log_, now_);
    return log_->log_end_offset().value();
  }
  void fetch(int32_t follower, int64_t offset) {
    repl_.on_follower_fetch(kTp, meta_, follower, offset, *log_, now_);
  }
  std::vector<IsrChange> changes() {
    return repl_.isr_changes(now_, 1000, [this](const storage::TopicPartition&) { return &meta_; });
  }

  std::filesystem::path dir_;
  std::unique_ptr<storage::Log> log_;
  PartitionMeta meta_;
  Replication repl_{1, kLag};
  int64_t now_ = kNow;
};

TEST_F(ReplicationTest, TheHighWatermarkIsTheLeastLogEndOfTheIsr) {
  EXPECT_EQ(append(10), 10);
  EXPECT_EQ(log_->high_watermark(), Offset(0));  // no follower has fetched
  fetch(2, 10);
  EXPECT_EQ(log_->high_watermark(), Offset(0));  // follower 3 is in the ISR, unknown
  fetch(3, 6);
  EXPECT_EQ(log_->high_watermark(), Offset(6));
  fetch(3, 10);
  EXPECT_EQ(log_->high_watermark(), Offset(10));
  fetch(3, 8);  // a follower that truncated: the high watermark stays
  EXPECT_EQ(log_->high_watermark(), Offset(10));
}

TEST_F(ReplicationTest, AcksAllWaitsForTheHighWatermarkOrTimesOut) {
  append(5);
  int16_t first = -1, second = -1;
  repl_.wait_for_high_watermark(kTp, 5, now_ + 1000, *log_, [&](int16_t e) { first = e; });
  fetch(2, 5);
  EXPECT_EQ(first, -1);
  fetch(3, 5);
  EXPECT_EQ(first, kafka_error::kNone);
  append(5);
  repl_.wait_for_high_watermark(kTp, 10, now_ + 1000, *log_, [&](int16_t e) { second = e; });
  repl_.expire(now_ + 999);
  EXPECT_EQ(second, -1);
  repl_.expire(now_ + 1000);
  EXPECT_EQ(second, kafka_error::kRequestTimedOut);
}

// A waiting acks=all write completes when the view drops the member it waited for,
// with no later fetch or append (the leader's own ISR shrink, or a dead broker removed).
TEST_F(ReplicationTest, AnIsrShrinkRaisesTheHighWatermarkAtOnce) {
  append(5);
  fetch(2, 5);
  int16_t got = -1;
  repl_.wait_for_high_watermark(kTp, 5, now_ + 1000, *log_, [&](int16_t e) { got = e; });
  EXPECT_EQ(got, -1);  // 3 is in the ISR and has not fetched
  meta_.isr = {1, 2};
  EXPECT_TRUE(repl_.on_state_change(kTp, meta_, *log_, now_));
  EXPECT_EQ(log_->high_watermark(), Offset(5));
  EXPECT_EQ(got, kafka_error::kNone);
}

TEST_F(ReplicationTest, NothingCommitsBelowMinInsyncReplicas) {
  meta_.isr = {1};  // min.insync.replicas is 2
  append(5);
  EXPECT_EQ(log_->high_watermark(), Offset(0));
  meta_.isr = {1, 2};
  fetch(2, 5);
  EXPECT_EQ(log_->high_watermark(), Offset(5));
}

TEST_F(ReplicationTest, ALaggingFollowerLeavesTheIsrAndRejoinsOnceCaughtUp) {
  append(10);
  fetch(2, 10);
  fetch(3, 4);
  EXPECT_TRUE(changes().empty());
  now_ += kLag + 1;  // follower 2 caught up at kNow, 3 never did
  fetch(2, 10);
  auto c = changes();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].isr, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(c[0].leader_epoch, 4);
  EXPECT_TRUE(changes().empty());  // proposed: not again until the retry time
  meta_.isr = {1, 2};               // the view brings it back
  EXPECT_EQ(log_->high_watermark(), Offset(4));
  fetch(2, 10);
  EXPECT_EQ(log_->high_watermark(), Offset(10));
  fetch(3, 10);  // 3 catches up
  c = changes();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].isr, (std::vector<int32_t>{1, 2, 3}));
}

TEST_F(ReplicationTest, AFollowerKeepingPaceWithConstantWritesStaysInSync) {
  // The leader is always ahead by the last batch, yet each fetch reaches where the leader
  // was at the one before: caught up (Kafka's rule), never dropped.
  int64_t have = 0;  // what each follower holds: the leader's end at its previous fetch
  int64_t end = append(5);
  for (int round = 0; round < 10; ++round) {
    fetch(2, have);
    fetch(3, have);
    have = end;
    now_ += 1000;
    end = append(5);
  }
  EXPECT_TRUE(changes().empty());
  // One that stops fetching is dropped after the lag time.
  for (int round = 0; round < 5; ++round) {
    fetch(2, have);
    have = end;
    now_ += 1000;
    end = append(5);
  }
  auto c = changes();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].isr, (std::vector<int32_t>{1, 2}));
}

TEST_F(ReplicationTest, AQuietFollowerIsNotAddedBackFromItsLastPosition) {
  append(10);
  fetch(2, 10);
  fetch(3, 10);
  meta_.isr = {1, 2};  // 3 was dropped (it died at offset 10)
  now_ += kLag + 1;
  fetch(2, 10);
  for (const IsrChange& c : changes()) {
    EXPECT_EQ(std::count(c.isr.begin(), c.isr.end(), 3), 0) << "a dead follower came back";
  }
}

TEST_F(ReplicationTest, ANewLeaderEpochForgetsTheFollowers) {
  append(10);
  fetch(2, 10);
  fetch(3, 10);
  EXPECT_EQ(log_->high_watermark(), Offset(10));
  meta_.leader_epoch = 5;  // leading again, later
  append(5);
  EXPECT_EQ(log_->high_watermark(), Offset(10));  // followers unknown at epoch 5
  fetch(2, 15);
  fetch(3, 15);
  EXPECT_EQ(log_->high_watermark(), Offset(15));
}

TEST_F(ReplicationTest, AMemberWhoseBrokerLeftIsDroppedAtOnce) {
  append(10);
  fetch(2, 10);
  fetch(3, 10);
  auto c = repl_.isr_changes(now_, 1000, [this](const storage::TopicPartition&) { return &meta_; },
                             [](int32_t node) { return node != 3; });
  ASSERT_EQ(c.size(), 1u);  // well within the lag time
  EXPECT_EQ(c[0].isr, (std::vector<int32_t>{1, 2}));
}

TEST_F(ReplicationTest, AWaitOnAPartitionNoLongerLedFails) {
  append(5);
  int16_t got = -1;
  repl_.wait_for_high_watermark(kTp, 5, now_ + 1000, *log_, [&](int16_t e) { got = e; });
  repl_.isr_changes(now_, 1000, [](const storage::TopicPartition&) -> const PartitionMeta* { return nullptr; });
  EXPECT_EQ(got, kafka_error::kNotLeaderOrFollower);
}

// Throttles apply to a move's new replicas until they are in sync.
TEST(ReplicationThrottleTest, OnlyAddingReplicasOutOfTheIsrAreThrottled) {
  PartitionMeta p;
  p.replicas = {1, 2, 3, 4};
  p.isr = {1, 2, 3};
  p.adding_replicas = {4};
  p.removing_replicas = {1};
  EXPECT_TRUE(Replication::throttled(p, 4));
  EXPECT_FALSE(Replication::throttled(p, 2));
  EXPECT_FALSE(Replication::throttled(p, 1));
  p.isr.push_back(4);  // caught up: the move completes without its throttle
  EXPECT_FALSE(Replication::throttled(p, 4));
}

TEST(ReplicationThrottleTest, AThrottleHoldsAtMostOneSecondOfItsRate) {
  ReplicationThrottle t;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(t.open(1000));
  EXPECT_LE(t.allowance(1 << 20), 1000);  // never more than a second's worth
  EXPECT_GE(t.allowance(1 << 20), 40);
  EXPECT_EQ(t.allowance(10), 10);
  t.spend(5000);  // one whole batch may overdraw it; the debt is paid back over time
  EXPECT_FALSE(t.open(1000));
  EXPECT_EQ(t.allowance(1 << 20), 1);
}

}  // namespace
}  // namespace strata::broker

// The transaction coordinator's state machine against an in-memory log and marker
// writer: producer ids and epochs, fencing, commit and abort, KIP-890 epoch bumps,
// timeouts, expiry and resuming from the log.
#include "txn/coordinator.h"

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <gtest/gtest.h>

#include "txn/errors.h"

namespace strata::txn {
namespace {

struct Stored {
  int32_t partition;
  std::string id;
  std::optional<TxnValue> value;
};

// What a callback slot holds until the coordinator answers (no Kafka code is -2).
constexpr KafkaError kUnanswered = static_cast<KafkaError>(-2);

class FakeLog : public TxnLog {
 public:
  explicit FakeLog(asio::io_context& io) : io_(io) {}
  void append(int32_t partition, std::vector<uint8_t> key, std::optional<std::vector<uint8_t>> value,
              std::function<void(KafkaError)> done) override {
    if (fail) {
      asio::post(io_, [done] { done(errc::kKafkaStorageError); });
      return;
    }
    Stored s{partition, *decode_txn_key(key), std::nullopt};
    if (value) s.value = *decode_txn_value(*value);
    records.push_back({partition, key, value});
    stored.push_back(std::move(s));
    asio::post(io_, [done] { done(errc::kNone); });
  }
  struct Raw {
    int32_t partition;
    std::vector<uint8_t> key;
    std::optional<std::vector<uint8_t>> value;
  };
  std::vector<Raw> records;
  std::vector<Stored> stored;
  bool fail = false;

 private:
  asio::io_context& io_;
};

class FakeMarkers : public MarkerWriter {
 public:
  explicit FakeMarkers(asio::io_context& io) : io_(io) {}
  void write(int32_t, MarkerRequest r, std::function<void(KafkaError)> done) override {
    sent.push_back(r);
    if (hold) {
      held.push_back(std::move(done));
      return;
    }
    const KafkaError e = failures > 0 ? errc::kKafkaStorageError : errc::kNone;
    if (failures > 0) --failures;
    asio::post(io_, [done, e] { done(e); });
  }
  // Answers the held writes with `error`; later writes are answered at once.
  void release(KafkaError error) {
    hold = false;
    for (auto& d : held) asio::post(io_, [d, error] { d(error); });
    held.clear();
  }
  std::vector<MarkerRequest> sent;
  int failures = 0;
  bool hold = false;
  std::vector<std::function<void(KafkaError)>> held;

 private:
  asio::io_context& io_;
};

class TxnCoordinatorTest : public ::testing::Test {
 protected:
  TxnCoordinatorTest() { make(); }

  void make() {
    coord = std::make_unique<TxnCoordinator>(
        config, log, markers, [this](int32_t) { return io.get_executor(); },
        [this]() -> Result<int64_t, std::string> { return next_pid++; }, [this] { return now; });
  }
  void load_all() {
    for (int32_t p = 0; p < coord->partitions(); ++p) coord->finish_load(p);
  }
  void drain() {
    io.restart();
    io.poll();
  }
  PidAndEpoch init(const std::string& id, int64_t pid = -1, int16_t epoch = -1,
                   int32_t timeout = 60000) {
    PidAndEpoch out{kUnanswered};
    coord->init_producer_id({id, timeout, pid, epoch}, [&](PidAndEpoch r) { out = r; });
    drain();
    return out;
  }
  KafkaError add(const std::string& id, PidAndEpoch p, const std::string& topic, int32_t part) {
    KafkaError out = kUnanswered;
    coord->add_partitions(id, p.producer_id, p.producer_epoch, {{topic, {part}}},
                          [&](KafkaError e) { out = e; });
    drain();
    return out;
  }
  PidAndEpoch end(const std::string& id, PidAndEpoch p, bool commit, bool bump = false) {
    PidAndEpoch out{kUnanswered};
    coord->end_txn(id, p.producer_id, p.producer_epoch, commit, bump,
                   [&](PidAndEpoch r) { out = r; });
    drain();
    return out;
  }
  TxnState state(const std::string& id) { return coord->describe(id).state; }

  TxnConfig config;
  asio::io_context io;
  FakeLog log{io};
  FakeMarkers markers{io};
  int64_t next_pid = 1000;
  int64_t now = 1'700'000'000'000;
  std::unique_ptr<TxnCoordinator> coord;
};

TEST_F(TxnCoordinatorTest, InitAllocatesOnceThenBumpsTheEpoch) {
  load_all();
  PidAndEpoch a = init("t1");
  EXPECT_EQ(a.error, errc::kNone);
  EXPECT_EQ(a.producer_id, 1000);
  EXPECT_EQ(a.producer_epoch, 0);
  PidAndEpoch b = init("t1");
  EXPECT_EQ(b.producer_id, 1000);
  EXPECT_EQ(b.producer_epoch, 1);
  ASSERT_EQ(log.stored.size(), 2u);
  EXPECT_EQ(log.stored[1].value->state, TxnState::kEmpty);
  EXPECT_EQ(log.stored[1].partition, partition_for_txn("t1", 50));
}

TEST_F(TxnCoordinatorTest, InitChecksTheRequest) {
  load_all();
  EXPECT_EQ(init("", -1, -1).error, errc::kInvalidRequest);
  EXPECT_EQ(init("t", -1, -1, 0).error, errc::kInvalidTransactionTimeout);
  EXPECT_EQ(init("t", -1, -1, config.max_timeout_ms + 1).error, errc::kInvalidTransactionTimeout);
}

TEST_F(TxnCoordinatorTest, NotLoadedPartitionsAnswerCoordinatorNotAvailable) {
  EXPECT_EQ(init("t1").error, errc::kCoordinatorNotAvailable);
}

TEST_F(TxnCoordinatorTest, CommitWritesPrepareMarkersThenComplete) {
  load_all();
  PidAndEpoch p = init("t1");
  EXPECT_EQ(add("t1", p, "a", 0), errc::kNone);
  EXPECT_EQ(add("t1", p, "b", 3), errc::kNone);
  EXPECT_EQ(add("t1", p, "a", 0), errc::kNone);  // already in: nothing written
  EXPECT_EQ(state("t1"), TxnState::kOngoing);
  ASSERT_EQ(log.stored.size(), 3u);
  EXPECT_EQ(log.stored[2].value->partitions,
            (std::vector<TxnTopicPartitions>{{"a", {0}}, {"b", {3}}}));
  PidAndEpoch e = end("t1", p, true);
  EXPECT_EQ(e.error, errc::kNone);
  EXPECT_EQ(e.producer_epoch, p.producer_epoch);  // TV1: the epoch stays
  ASSERT_EQ(markers.sent.size(), 1u);
  EXPECT_TRUE(markers.sent[0].commit);
  EXPECT_EQ(markers.sent[0].producer_id, p.producer_id);
  EXPECT_EQ(markers.sent[0].partitions.size(), 2u);
  ASSERT_EQ(log.stored.size(), 5u);
  EXPECT_EQ(log.stored[3].value->state, TxnState::kPrepareCommit);
  EXPECT_EQ(log.stored[4].value->state, TxnState::kCompleteCommit);
  EXPECT_TRUE(log.stored[4].value->partitions.empty());
  EXPECT_EQ(state("t1"), TxnState::kCompleteCommit);
  // A retried EndTxn with the same outcome succeeds; the other outcome does not.
  EXPECT_EQ(end("t1", p, true).error, errc::kNone);
  EXPECT_EQ(end("t1", p, false).error, errc::kInvalidTxnState);
  // The next transaction starts from no partitions.
  EXPECT_EQ(add("t1", p, "c", 1), errc::kNone);
  EXPECT_EQ(coord->describe("t1").partitions, (std::vector<TxnTopicPartitions>{{"c", {1}}}));
}

TEST_F(TxnCoordinatorTest, ProducerChecks) {
  load_all();
  PidAndEpoch p = init("t1");
  EXPECT_EQ(add("nope", p, "a", 0), errc::kInvalidProducerIdMapping);
  EXPECT_EQ(add("t1", {errc::kNone, p.producer_id + 1, p.producer_epoch}, "a", 0),
            errc::kInvalidProducerIdMapping);
  EXPECT_EQ(add("t1", {errc::kNone, p.producer_id, int16_t(p.producer_epoch + 1)}, "a", 0),
            errc::kProducerFenced);
  EXPECT_EQ(end("t1", p, true).error, errc::kInvalidTxnState);  // TV1: nothing ongoing
  EXPECT_EQ(coord->verify("t1", p.producer_id, p.producer_epoch, "a", 0), errc::kInvalidTxnState);
  EXPECT_EQ(add("t1", p, "a", 0), errc::kNone);
  EXPECT_EQ(coord->verify("t1", p.producer_id, p.producer_epoch, "a", 0), errc::kNone);
  EXPECT_EQ(coord->verify("t1", p.producer_id, p.producer_epoch, "a", 1), errc::kInvalidTxnState);
}

TEST_F(TxnCoordinatorTest, NewInstanceFencesAndAbortsTheOngoingTransaction) {
  load_all();
  PidAndEpoch old = init("t1");
  ASSERT_EQ(add("t1", old, "a", 0), errc::kNone);
  EXPECT_EQ(init("t1").error, errc::kConcurrentTransactions);
  ASSERT_EQ(markers.sent.size(), 1u);
  EXPECT_FALSE(markers.sent[0].commit);
  EXPECT_EQ(markers.sent[0].producer_epoch, old.producer_epoch + 1);  // fences the old one
  EXPECT_EQ(state("t1"), TxnState::kCompleteAbort);
  PidAndEpoch fresh = init("t1");
  EXPECT_EQ(fresh.error, errc::kNone);
  EXPECT_EQ(fresh.producer_epoch, old.producer_epoch + 2);
  EXPECT_EQ(end("t1", old, true).error, errc::kProducerFenced);
  EXPECT_EQ(add("t1", old, "a", 0), errc::kProducerFenced);
}

TEST_F(TxnCoordinatorTest, Kip360RetryOfInitGetsTheSameEpochAndStaleOnesAreFenced) {
  load_all();
  PidAndEpoch p0 = init("t1");
  PidAndEpoch p1 = init("t1", p0.producer_id, p0.producer_epoch);
  EXPECT_EQ(p1.producer_epoch, p0.producer_epoch + 1);
  PidAndEpoch again = init("t1", p0.producer_id, p0.producer_epoch);  // the same init, retried
  EXPECT_EQ(again.error, errc::kNone);
  EXPECT_EQ(again.producer_epoch, p1.producer_epoch);
  EXPECT_EQ(init("t1", p0.producer_id + 7, 0).error, errc::kProducerFenced);
}

TEST_F(TxnCoordinatorTest, Tv2EndBumpsTheEpochSoADelayedEndTxnCannotEndTheNextTransaction) {
  load_all();
  PidAndEpoch p = init("t1");
  ASSERT_EQ(add("t1", p, "a", 0), errc::kNone);
  PidAndEpoch e = end("t1", p, true, true);
  ASSERT_EQ(e.error, errc::kNone);
  EXPECT_EQ(e.producer_epoch, p.producer_epoch + 1);
  EXPECT_EQ(markers.sent.back().producer_epoch, e.producer_epoch);
  // A retry of that EndTxn (old epoch) gets the same answer.
  PidAndEpoch retry = end("t1", p, true, true);
  EXPECT_EQ(retry.error, errc::kNone);
  EXPECT_EQ(retry.producer_epoch, e.producer_epoch);
  // The next transaction uses the new epoch; the delayed EndTxn cannot end it.
  ASSERT_EQ(add("t1", e, "a", 0), errc::kNone);
  EXPECT_NE(end("t1", p, false, true).error, errc::kNone);
  EXPECT_EQ(state("t1"), TxnState::kOngoing);
  EXPECT_EQ(end("t1", e, false, true).error, errc::kNone);
  EXPECT_EQ(state("t1"), TxnState::kCompleteAbort);
}

TEST_F(TxnCoordinatorTest, Tv2EpochExhaustionMovesToTheNextProducerId) {
  load_all();
  PidAndEpoch p = init("t1");
  // Drive the epoch to the last one a producer may use.
  TxnValue v;
  v.producer_id = p.producer_id;
  v.producer_epoch = int16_t(32766);
  v.timeout_ms = 60000;
  v.state = TxnState::kCompleteCommit;
  coord->replay(partition_for_txn("t1", 50), encode_txn_key("t1"), encode_txn_value(v));
  PidAndEpoch high{errc::kNone, p.producer_id, int16_t(32766)};
  ASSERT_EQ(add("t1", high, "a", 0), errc::kNone);
  PidAndEpoch e = end("t1", high, true, true);
  ASSERT_EQ(e.error, errc::kNone);
  EXPECT_NE(e.producer_id, p.producer_id);
  EXPECT_EQ(e.producer_epoch, 0);
  EXPECT_EQ(markers.sent.back().producer_id, p.producer_id);  // the id that wrote the data
  EXPECT_EQ(markers.sent.back().producer_epoch, 32767);
  EXPECT_EQ(coord->describe("t1").producer_id, e.producer_id);
  ASSERT_EQ(add("t1", e, "a", 0), errc::kNone);
}

TEST_F(TxnCoordinatorTest, TimedOutTransactionsAreAbortedAndTheProducerFenced) {
  load_all();
  PidAndEpoch p = init("t1", -1, -1, 1000);
  ASSERT_EQ(add("t1", p, "a", 0), errc::kNone);
  now += 500;
  coord->tick(partition_for_txn("t1", 50));
  drain();
  EXPECT_EQ(state("t1"), TxnState::kOngoing);
  now += 600;
  coord->tick(partition_for_txn("t1", 50));
  drain();
  EXPECT_EQ(state("t1"), TxnState::kCompleteAbort);
  ASSERT_EQ(markers.sent.size(), 1u);
  EXPECT_FALSE(markers.sent[0].commit);
  EXPECT_EQ(end("t1", p, true).error, errc::kProducerFenced);
}

TEST_F(TxnCoordinatorTest, MarkerFailuresAreRetriedUntilWritten) {
  load_all();
  config.marker_retry_backoff_ms = 1;
  make();
  load_all();
  PidAndEpoch p = init("t1");
  ASSERT_EQ(add("t1", p, "a", 0), errc::kNone);
  markers.failures = 2;
  EXPECT_EQ(end("t1", p, false).error, errc::kNone);
  for (int i = 0; i < 100 && state("t1") != TxnState::kCompleteAbort; ++i) {
    io.restart();
    io.run_one_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(state("t1"), TxnState::kCompleteAbort);
  EXPECT_EQ(markers.sent.size(), 3u);
  EXPECT_EQ(add("t1", p, "a", 0), errc::kNone);
}

// While the ended transaction's markers are written, the producer's next
// AddPartitionsToTxn and a retried EndTxn wait for the completion instead of failing
// with CONCURRENT_TRANSACTIONS (up to kParkedMax of them); InitProducerId does not wait.
TEST_F(TxnCoordinatorTest, RequestsDuringTheMarkerRoundWaitForTheCompletion) {
  load_all();
  PidAndEpoch p = init("t1");
  ASSERT_EQ(add("t1", p, "a", 0), errc::kNone);
  markers.hold = true;  // the markers are written when the test says so
  ASSERT_EQ(end("t1", p, true).error, errc::kNone);
  std::vector<KafkaError> answers;
  // (A client sends the next AddPartitionsToTxn only once its EndTxn is answered.)
  coord->end_txn("t1", p.producer_id, p.producer_epoch, true, false,
                 [&](PidAndEpoch r) { answers.push_back(r.error); });
  coord->add_partitions("t1", p.producer_id, p.producer_epoch, {{"b", {0}}},
                        [&](KafkaError e) { answers.push_back(e); });
  EXPECT_EQ(init("t1").error, errc::kConcurrentTransactions);
  EXPECT_TRUE(answers.empty());
  markers.release(errc::kNone);
  drain();
  // The EndTxn retry (same outcome) succeeds; the add opens the next transaction.
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0], errc::kNone);
  EXPECT_EQ(answers[1], errc::kNone);
  EXPECT_EQ(state("t1"), TxnState::kOngoing);
  EXPECT_EQ(coord->describe("t1").partitions, (std::vector<TxnTopicPartitions>{{"b", {0}}}));
}

// A failed marker write answers the waiting requests CONCURRENT_TRANSACTIONS (the
// coordinator goes on retrying the markers; the clients retry their requests).
TEST_F(TxnCoordinatorTest, AFailedMarkerWriteReleasesTheWaitingRequests) {
  load_all();
  PidAndEpoch p = init("t1");
  ASSERT_EQ(add("t1", p, "a", 0), errc::kNone);
  markers.hold = true;
  ASSERT_EQ(end("t1", p, true).error, errc::kNone);
  KafkaError answer = kUnanswered;
  coord->add_partitions("t1", p.producer_id, p.producer_epoch, {{"a", {0}}},
                        [&](KafkaError e) { answer = e; });
  markers.release(errc::kKafkaStorageError);
  drain();
  EXPECT_EQ(answer, errc::kConcurrentTransactions);
  coord->shutdown(partition_for_txn("t1", 50));
}

TEST_F(TxnCoordinatorTest, TooManyWaitingRequestsAreConcurrent) {
  load_all();
  markers.hold = true;  // markers never complete in this test
  PidAndEpoch p = init("t1");
  ASSERT_EQ(add("t1", p, "a", 0), errc::kNone);
  ASSERT_EQ(end("t1", p, true).error, errc::kNone);
  int parked = 0;
  for (int i = 0; i < 8; ++i) {
    coord->add_partitions("t1", p.producer_id, p.producer_epoch, {{"a", {0}}},
                          [&](KafkaError) { ++parked; });
  }
  EXPECT_EQ(add("t1", p, "a", 0), errc::kConcurrentTransactions);
  EXPECT_EQ(end("t1", p, true).error, errc::kConcurrentTransactions);
  EXPECT_EQ(parked, 0);
  coord->shutdown(partition_for_txn("t1", 50));
}

TEST_F(TxnCoordinatorTest, ReplayResumesPreparedTransactions) {
  load_all();
  PidAndEpoch p = init("t1");
  ASSERT_EQ(add("t1", p, "a", 0), errc::kNone);
  PidAndEpoch q = init("t2");
  ASSERT_EQ(add("t2", q, "b", 1), errc::kNone);
  markers.failures = 1000000;
  ASSERT_EQ(end("t1", p, true).error, errc::kNone);  // PrepareCommit written, markers pending
  for (int32_t part = 0; part < coord->partitions(); ++part) coord->shutdown(part);
  drain();
  // A new coordinator (a restart) replays what was written.
  auto records = log.records;
  markers.sent.clear();
  markers.failures = 0;
  log.stored.clear();
  make();
  for (const auto& r : records) {
    std::optional<Bytes> v;
    if (r.value) v = Bytes(*r.value);
    coord->replay(r.partition, Bytes(r.key), v);
  }
  load_all();
  drain();
  ASSERT_EQ(markers.sent.size(), 1u);
  EXPECT_TRUE(markers.sent[0].commit);
  EXPECT_EQ(state("t1"), TxnState::kCompleteCommit);
  EXPECT_EQ(state("t2"), TxnState::kOngoing);  // resolved later by its timeout
  EXPECT_EQ(coord->describe("t2").partitions, (std::vector<TxnTopicPartitions>{{"b", {1}}}));
  PidAndEpoch next = init("t1");
  EXPECT_EQ(next.producer_id, p.producer_id);
  EXPECT_EQ(next.producer_epoch, p.producer_epoch + 1);
}

TEST_F(TxnCoordinatorTest, IdleIdsExpireWithATombstone) {
  config.id_expiration_ms = 1000;
  config.remove_expired_interval_ms = 100;
  make();
  load_all();
  PidAndEpoch p = init("t1");
  PidAndEpoch q = init("t2");
  ASSERT_EQ(add("t2", q, "a", 0), errc::kNone);
  (void)p;
  now += 2000;
  for (int32_t part = 0; part < coord->partitions(); ++part) coord->tick(part);
  drain();
  EXPECT_EQ(coord->describe("t1").error, errc::kTransactionalIdNotFound);
  ASSERT_FALSE(log.stored.empty());
  bool tombstoned = false;
  for (const auto& s : log.stored) tombstoned |= s.id == "t1" && !s.value;
  EXPECT_TRUE(tombstoned);
  // t2 had an ongoing transaction: its timeout (60 s) had not passed, it stays.
  EXPECT_EQ(state("t2"), TxnState::kOngoing);
}

TEST_F(TxnCoordinatorTest, ListFiltersByStateProducerAndDuration) {
  load_all();
  PidAndEpoch p = init("t1");
  ASSERT_EQ(add("t1", p, "a", 0), errc::kNone);
  init("t2");
  auto all = [&](const TxnFilter& f) {
    std::vector<std::string> ids;
    for (int32_t part = 0; part < coord->partitions(); ++part) {
      for (const auto& l : coord->list(part, f)) ids.push_back(l.transactional_id);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  EXPECT_EQ(all({}), (std::vector<std::string>{"t1", "t2"}));
  EXPECT_EQ(all({.states = {"Ongoing"}}), (std::vector<std::string>{"t1"}));
  EXPECT_EQ(all({.producer_ids = {p.producer_id}}), (std::vector<std::string>{"t1"}));
  now += 5000;
  // Kafka's duration filter: t2 has no transaction (start -1) and always passes.
  EXPECT_EQ(all({.min_duration_ms = 4000}), (std::vector<std::string>{"t1", "t2"}));
  EXPECT_EQ(all({.min_duration_ms = 5000}), (std::vector<std::string>{"t2"}));
}

}  // namespace
}  // namespace strata::txn

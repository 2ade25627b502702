#include "group/coordinator.h"

#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <gtest/gtest.h>

#include "group/errors.h"

namespace strata::group {
namespace {

using namespace std::chrono_literals;

// An in-memory __consumer_offsets: keeps every record; answers on the io_context.
struct FakeLog : OffsetsLog {
  explicit FakeLog(asio::io_context& io_in) : io(io_in) {}
  void append(int32_t partition, std::vector<Record> records,
              std::function<void(KafkaError)> done) override {
    if (fail == errc::kNone) {
      for (Record& r : records) written.emplace_back(partition, std::move(r));
    }
    asio::post(io, [done, e = fail] { done(e); });
  }
  void append_transactional(int32_t partition, int64_t producer_id, int16_t, std::vector<Record> records,
                            std::function<void(KafkaError)> done) override {
    txn_producers.push_back(producer_id);
    append(partition, std::move(records), std::move(done));
  }
  std::vector<int64_t> txn_producers;
  asio::io_context& io;
  std::vector<std::pair<int32_t, Record>> written;
  KafkaError fail = errc::kNone;
};

template <class T>
using Slot = std::shared_ptr<std::optional<T>>;

class CoordinatorTest : public ::testing::Test {
 protected:
  CoordinatorTest() {
    config.group_initial_rebalance_delay_ms = 0;
    config.group_min_session_timeout_ms = 10;
    coord = make();
  }
  std::unique_ptr<GroupCoordinator> make() {
    return std::make_unique<GroupCoordinator>(config, 4, log,
                                              [this](int32_t) { return io.get_executor(); });
  }

  JoinRequest request(const std::string& member, std::optional<std::string> instance = {},
                      int32_t session_ms = 10000) {
    JoinRequest r;
    r.group_id = "g";
    r.member_id = member;
    r.group_instance_id = std::move(instance);
    r.client_id = "client";
    r.client_host = "/127.0.0.1";
    r.session_timeout_ms = session_ms;
    r.rebalance_timeout_ms = 2000;
    r.protocol_type = "consumer";
    r.protocols = {{"range", {0, 1, 0, 0, 0, 1, 0, 1, 't'}}};
    r.require_known_member_id = true;
    return r;
  }
  Slot<JoinResult> join(JoinRequest r) {
    auto slot = std::make_shared<std::optional<JoinResult>>();
    coord->join(std::move(r), [slot](JoinResult res) { *slot = std::move(res); });
    return slot;
  }
  Slot<SyncResult> sync(const std::string& member, int32_t generation,
                        std::vector<std::pair<std::string, std::vector<uint8_t>>> assignments = {}) {
    auto slot = std::make_shared<std::optional<SyncResult>>();
    SyncRequest r{"g", member, std::nullopt, generation, std::nullopt, std::nullopt, std::move(assignments)};
    coord->sync(std::move(r), [slot](SyncResult res) { *slot = std::move(res); });
    return slot;
  }
  template <class Pred>
  bool run_until(Pred done, std::chrono::milliseconds limit = 3000ms) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < end) {
      if (io.stopped()) io.restart();
      io.run_one_for(5ms);
    }
    return done();
  }
  void settle() {
    io.restart();
    io.poll();
  }
  // KIP-394 join: MEMBER_ID_REQUIRED, then the real join with the handed-out id.
  std::pair<std::string, Slot<JoinResult>> join_new(std::optional<std::string> instance = {},
                                                    int32_t session_ms = 10000) {
    std::string id;
    if (!instance) {
      auto first = join(request("", instance, session_ms));
      settle();
      EXPECT_TRUE(*first);
      EXPECT_EQ((*first)->error, errc::kMemberIdRequired);
      id = (*first)->member_id;
      return {id, join(request(id, instance, session_ms))};
    }
    auto slot = join(request("", instance, session_ms));
    return {"", slot};
  }
  GroupState state() { return coord->describe("g").state; }

  asio::io_context io;
  FakeLog log{io};
  GroupConfig config;
  std::unique_ptr<GroupCoordinator> coord;
};

TEST_F(CoordinatorTest, TwoMembersRebalanceAndShareTheLeadersAssignment) {
  auto [a, ja] = join_new();
  ASSERT_TRUE(run_until([&] { return bool(*ja); }));
  EXPECT_EQ((*ja)->error, errc::kNone);
  EXPECT_EQ((*ja)->generation, 1);
  EXPECT_EQ((*ja)->leader, a);
  EXPECT_EQ((*ja)->protocol_name, "range");
  ASSERT_EQ((*ja)->members.size(), 1u);
  auto sa = sync(a, 1, {{a, {9}}});
  ASSERT_TRUE(run_until([&] { return bool(*sa); }));
  EXPECT_EQ((*sa)->assignment, std::vector<uint8_t>{9});
  EXPECT_EQ(state(), GroupState::kStable);
  ASSERT_FALSE(log.written.empty());  // the group record, before the answer

  auto [b, jb] = join_new();
  settle();
  EXPECT_FALSE(*jb);  // parked until the current members rejoin
  EXPECT_EQ(state(), GroupState::kPreparingRebalance);
  EXPECT_EQ(coord->heartbeat({"g", a, std::nullopt, 1}), errc::kRebalanceInProgress);
  auto ja2 = join(request(a));
  ASSERT_TRUE(run_until([&] { return *ja2 && *jb; }));
  EXPECT_EQ((*ja2)->generation, 2);
  EXPECT_EQ((*jb)->generation, 2);
  EXPECT_EQ((*ja2)->members.size(), 2u);  // the leader learns every member
  EXPECT_TRUE((*jb)->members.empty());
  EXPECT_EQ((*jb)->leader, a);

  auto sb = sync(b, 2);
  settle();
  EXPECT_FALSE(*sb);  // waits for the leader
  auto sa2 = sync(a, 2, {{a, {1}}, {b, {2}}});
  ASSERT_TRUE(run_until([&] { return *sa2 && *sb; }));
  EXPECT_EQ((*sb)->assignment, std::vector<uint8_t>{2});
  EXPECT_EQ((*sa2)->assignment, std::vector<uint8_t>{1});
  EXPECT_EQ(state(), GroupState::kStable);
  EXPECT_EQ(coord->heartbeat({"g", b, std::nullopt, 2}), errc::kNone);
  EXPECT_EQ(coord->heartbeat({"g", b, std::nullopt, 1}), errc::kIllegalGeneration);
  EXPECT_EQ(coord->heartbeat({"g", "nobody", std::nullopt, 2}), errc::kUnknownMemberId);
}

TEST_F(CoordinatorTest, InconsistentProtocolsAreRejected) {
  auto [a, ja] = join_new();
  ASSERT_TRUE(run_until([&] { return bool(*ja); }));
  JoinRequest other = request("");
  other.protocols = {{"roundrobin", {}}};
  auto j = join(other);
  settle();
  ASSERT_TRUE(*j);
  EXPECT_EQ((*j)->error, errc::kInconsistentGroupProtocol);
  JoinRequest bad = request("");
  bad.session_timeout_ms = 1;
  auto j2 = join(bad);
  settle();
  EXPECT_EQ((*j2)->error, errc::kInvalidSessionTimeout);
}

TEST_F(CoordinatorTest, SessionExpiryRemovesTheMemberAndEmptiesTheGroup) {
  auto [a, ja] = join_new(std::nullopt, 50);
  ASSERT_TRUE(run_until([&] { return bool(*ja); }));
  auto sa = sync(a, 1, {{a, {9}}});
  ASSERT_TRUE(run_until([&] { return bool(*sa); }));
  ASSERT_TRUE(run_until([&] { return state() == GroupState::kEmpty; }));
  EXPECT_EQ(coord->heartbeat({"g", a, std::nullopt, 1}), errc::kUnknownMemberId);
  // The empty generation is recorded too.
  auto v = decode_group_value(*log.written.back().second.value);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->generation, 2);
  EXPECT_TRUE(v->members.empty());
}

TEST_F(CoordinatorTest, StaticMemberRestartKeepsGenerationAndAssignment) {
  auto ja = join(request("", std::string("i1")));
  ASSERT_TRUE(run_until([&] { return bool(*ja); }));
  const std::string a = (*ja)->member_id;
  auto jb = join(request("", std::string("i2")));
  auto ja2 = join(request(a, std::string("i1")));
  ASSERT_TRUE(run_until([&] { return *jb && *ja2; }));
  const std::string b = (*jb)->member_id;
  const int32_t gen = (*jb)->generation;
  EXPECT_EQ(gen, 2);
  EXPECT_EQ((*ja2)->leader, a);
  auto s2 = sync(b, gen);
  auto s1 = sync(a, gen, {{a, {1}}, {b, {2}}});
  ASSERT_TRUE(run_until([&] { return *s1 && *s2; }));
  ASSERT_EQ(state(), GroupState::kStable);

  // "Restart" of i1: a join without member id.
  auto again = join(request("", std::string("i1")));
  ASSERT_TRUE(run_until([&] { return bool(*again); }));
  EXPECT_EQ((*again)->error, errc::kNone);
  EXPECT_EQ((*again)->generation, gen);  // no rebalance
  const std::string a2 = (*again)->member_id;
  EXPECT_NE(a2, a);
  EXPECT_EQ(state(), GroupState::kStable);
  auto s3 = sync(a2, gen);
  ASSERT_TRUE(run_until([&] { return bool(*s3); }));
  EXPECT_EQ((*s3)->assignment, std::vector<uint8_t>{1});
  EXPECT_EQ(coord->heartbeat({"g", b, std::string("i2"), gen}), errc::kNone);
  EXPECT_EQ(coord->heartbeat({"g", a, std::string("i1"), gen}), errc::kFencedInstanceId);
}

TEST_F(CoordinatorTest, CommitsAreCheckedAgainstTheGeneration) {
  auto commit = [&](MemberRef m, std::string metadata = "") {
    auto slot = std::make_shared<std::optional<std::vector<KafkaError>>>();
    coord->commit(m, {{"t", 0, 42, 3, std::move(metadata), -1}},
                  [slot](std::vector<KafkaError> e) { *slot = std::move(e); });
    run_until([&] { return bool(*slot); });
    return slot->value().at(0);
  };
  EXPECT_EQ(commit({"g", "", std::nullopt, 5}), errc::kIllegalGeneration);  // no such group
  EXPECT_EQ(commit({"g", "", std::nullopt, -1}), errc::kNone);                         // simple consumer
  auto f = coord->fetch_offsets("g", std::vector<std::pair<std::string, std::vector<int32_t>>>{{"t", {0, 1}}});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].offset, 42);
  EXPECT_EQ(f[0].leader_epoch, 3);
  EXPECT_EQ(f[1].offset, -1);
  EXPECT_EQ(commit({"g", "", std::nullopt, -1}, std::string(5000, 'x')), errc::kOffsetMetadataTooLarge);

  auto [a, ja] = join_new();
  ASSERT_TRUE(run_until([&] { return bool(*ja); }));
  EXPECT_EQ(commit({"g", a, std::nullopt, 1}), errc::kRebalanceInProgress);  // not synced yet
  auto sa = sync(a, 1, {{a, {}}});
  ASSERT_TRUE(run_until([&] { return bool(*sa); }));
  EXPECT_EQ(commit({"g", a, std::nullopt, 1}), errc::kNone);
  EXPECT_EQ(commit({"g", a, std::nullopt, 0}), errc::kIllegalGeneration);
  EXPECT_EQ(commit({"g", "x", std::nullopt, 1}), errc::kUnknownMemberId);
  EXPECT_EQ(commit({"g", "", std::nullopt, -1}), errc::kUnknownMemberId);  // group is active
}

// TxnOffsetCommit: offsets are pending (unstable) until the producer's marker, then
// committed or dropped; a marker that arrives before the write is durable (a fenced
// producer's transaction aborted at once) still finds them.
TEST_F(CoordinatorTest, TransactionalOffsetsWaitForTheMarker) {
  auto txn_commit = [&](int64_t pid, int64_t offset) {
    auto slot = std::make_shared<std::optional<std::vector<KafkaError>>>();
    TxnCommitRequest r{"g", pid, 0, -1, "", std::nullopt, {{"t", 0, offset, -1, "", -1}}};
    coord->txn_commit(std::move(r), [slot](std::vector<KafkaError> e) { *slot = std::move(e); });
    return slot;
  };
  using Wanted = std::vector<std::pair<std::string, std::vector<int32_t>>>;
  auto fetch = [&](bool stable) { return coord->fetch_offsets("g", Wanted{{"t", {0}}}, stable).at(0); };
  const int32_t p = coord->partition_for("g");

  auto first = txn_commit(7, 10);
  ASSERT_TRUE(run_until([&] { return bool(*first); }));
  EXPECT_EQ(first->value().at(0), errc::kNone);
  EXPECT_EQ(log.txn_producers.back(), 7);
  EXPECT_EQ(fetch(false).offset, -1);
  EXPECT_EQ(fetch(true).error, errc::kUnstableOffsetCommit);
  coord->complete_txn(p, 7, true);
  EXPECT_EQ(fetch(true).offset, 10);

  auto second = txn_commit(7, 20);
  coord->complete_txn(p, 7, false);  // before the write's callback
  ASSERT_TRUE(run_until([&] { return bool(*second); }));
  EXPECT_EQ(fetch(true).error, errc::kNone);
  EXPECT_EQ(fetch(true).offset, 10);
}

TEST_F(CoordinatorTest, ReplayRebuildsGroupsAndOffsets) {
  auto [a, ja] = join_new();
  ASSERT_TRUE(run_until([&] { return bool(*ja); }));
  auto sa = sync(a, 1, {{a, {7}}});
  ASSERT_TRUE(run_until([&] { return bool(*sa); }));
  auto done = std::make_shared<bool>(false);
  coord->commit({"g", a, std::nullopt, 1}, {{"t", 3, 99, -1, "meta", -1}},
                [done](std::vector<KafkaError>) { *done = true; });
  ASSERT_TRUE(run_until([&] { return *done; }));
  coord->commit({"other", "", std::nullopt, -1}, {{"t", 0, 5, -1, "", -1}},
                [done](std::vector<KafkaError>) { *done = true; });
  settle();

  auto fresh = make();
  for (const auto& [p, r] : log.written) {
    std::optional<Bytes> value;
    if (r.value) value = Bytes(*r.value);
    fresh->replay(p, r.key, value);
  }
  for (int32_t p = 0; p < 4; ++p) fresh->finish_load(p);
  GroupDescription d = fresh->describe("g");
  EXPECT_EQ(d.state, GroupState::kStable);
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].member_id, a);
  EXPECT_EQ(d.members[0].assignment, std::vector<uint8_t>{7});
  EXPECT_EQ(fresh->heartbeat({"g", a, std::nullopt, 1}), errc::kNone);  // the member carries on
  auto f = fresh->fetch_offsets("g", std::nullopt);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].offset, 99);
  EXPECT_EQ(f[0].metadata, "meta");
  EXPECT_EQ(fresh->describe("other").state, GroupState::kEmpty);
}

TEST_F(CoordinatorTest, OnlyEmptyGroupsCanBeDeleted) {
  auto [a, ja] = join_new();
  ASSERT_TRUE(run_until([&] { return bool(*ja); }));
  auto deleted = [&](const std::string& g) {
    auto slot = std::make_shared<std::optional<KafkaError>>();
    coord->delete_group(g, [slot](KafkaError e) { *slot = e; });
    run_until([&] { return bool(*slot); });
    return slot->value();
  };
  EXPECT_EQ(deleted("g"), errc::kNonEmptyGroup);
  EXPECT_EQ(deleted("nope"), errc::kGroupIdNotFound);
  auto left = coord->leave("g", {{a, std::nullopt}});
  ASSERT_EQ(left.members.size(), 1u);
  EXPECT_EQ(left.members[0], errc::kNone);
  ASSERT_TRUE(run_until([&] { return state() == GroupState::kEmpty; }));
  EXPECT_EQ(deleted("g"), errc::kNone);
  EXPECT_FALSE(coord->describe("g").exists);
  EXPECT_FALSE(log.written.back().second.value);  // a tombstone
}

TEST_F(CoordinatorTest, OffsetsOfEmptyGroupsExpire) {
  config.offsets_retention_minutes = 0;
  coord = make();
  auto done = std::make_shared<bool>(false);
  coord->commit({"g", "", std::nullopt, -1}, {{"t", 0, 1, -1, "", -1}},
                [done](std::vector<KafkaError>) { *done = true; });
  ASSERT_TRUE(run_until([&] { return *done; }));
  coord->expire(coord->partition_for("g"), wall_ms() + 1);
  EXPECT_FALSE(coord->describe("g").exists);
  EXPECT_TRUE(coord->fetch_offsets("g", std::nullopt).empty());
}

TEST_F(CoordinatorTest, AFailedGroupWriteFailsTheSyncAndRebalances) {
  auto [a, ja] = join_new();
  ASSERT_TRUE(run_until([&] { return bool(*ja); }));
  log.fail = errc::kKafkaStorageError;
  auto sa = sync(a, 1, {{a, {9}}});
  ASSERT_TRUE(run_until([&] { return bool(*sa); }));
  EXPECT_EQ((*sa)->error, errc::kCoordinatorNotAvailable);
  EXPECT_EQ(state(), GroupState::kPreparingRebalance);
}

}  // namespace
}  // namespace strata::group

// Consumer-protocol groups (KIP-848): records, assignors, reconciliation, and the
// coordinator's heartbeat over an in-memory __consumer_offsets.
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <gtest/gtest.h>

#include "group/assignors.h"
#include "group/coordinator.h"
#include "group/errors.h"
#include "group/reconcile.h"

namespace strata::group {
namespace {

using namespace std::chrono_literals;

std::vector<uint8_t> bytes(std::initializer_list<int> v) {
  std::vector<uint8_t> out;
  for (int b : v) out.push_back(uint8_t(b));
  return out;
}

Uuid topic_id(uint8_t n) {
  Uuid id;
  id.bytes[15] = n;
  return id;
}

TEST(ConsumerRecords, TargetMetadataKeyAndValueBytes) {
  EXPECT_EQ(encode_key(ConsumerKey{ConsumerRecord::kTargetMetadata, "g1", ""}), bytes({0, 6, 0, 2, 'g', '1'}));
  EXPECT_EQ(encode_value(TargetMetadataValue{5}), bytes({0, 0, 0, 0, 0, 5, 0}));
}

TEST(ConsumerRecords, MemberKeyCarriesTheMemberId) {
  EXPECT_EQ(encode_key(ConsumerKey{ConsumerRecord::kCurrentAssignment, "g", "m"}), bytes({0, 8, 0, 1, 'g', 0, 1, 'm'}));
  auto k = decode_key(bytes({0, 8, 0, 1, 'g', 0, 1, 'm'}));
  ASSERT_TRUE(k.ok()) << k.error();
  const auto& ck = std::get<ConsumerKey>(*k);
  EXPECT_EQ(ck.type, ConsumerRecord::kCurrentAssignment);
  EXPECT_EQ(ck.group, "g");
  EXPECT_EQ(ck.sub, "m");
}

TEST(ConsumerRecords, GroupEpochWithHashTagRoundTrips) {
  const auto b = encode_value(ConsumerGroupMetadataValue{3, 0x0102030405060708});
  // version 0, epoch 3, one tagged field: tag 0, size 8, the hash.
  EXPECT_EQ(b, bytes({0, 0, 0, 0, 0, 3, 1, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8}));
  auto d = decode_group_metadata_value(b);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->epoch, 3);
  EXPECT_EQ(d->metadata_hash, 0x0102030405060708);
  EXPECT_EQ(encode_value(ConsumerGroupMetadataValue{3, 0}), bytes({0, 0, 0, 0, 0, 3, 0}));
}

TEST(ConsumerRecords, MemberAndAssignmentValuesRoundTrip) {
  ConsumerMemberValue m;
  m.instance_id = "i";
  m.client_id = "c";
  m.client_host = "/127.0.0.1";
  m.subscribed_topic_names = {"a", "b"};
  m.subscribed_topic_regex = "t.*";
  m.rebalance_timeout_ms = 300000;
  m.server_assignor = "range";
  auto dm = decode_member_value(encode_value(m));
  ASSERT_TRUE(dm.ok()) << dm.error();
  EXPECT_EQ(dm->instance_id, "i");
  EXPECT_EQ(dm->rack_id, std::nullopt);
  EXPECT_EQ(dm->subscribed_topic_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(dm->subscribed_topic_regex, "t.*");
  EXPECT_EQ(dm->server_assignor, "range");
  CurrentAssignmentValue c{4, 3, 1, {{topic_id(1), {0, 2}}}, {{topic_id(2), {5}}}};
  auto dc = decode_current_assignment_value(encode_value(c));
  ASSERT_TRUE(dc.ok()) << dc.error();
  EXPECT_EQ(dc->member_epoch, 4);
  EXPECT_EQ(dc->previous_member_epoch, 3);
  EXPECT_EQ(dc->state, 1);
  ASSERT_EQ(dc->assigned.size(), 1u);
  EXPECT_EQ(dc->assigned[0].partitions, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(dc->pending_revocation[0].topic_id, topic_id(2));
  auto dr = decode_regex_value(encode_value(RegexValue{{"t1", "t2"}, 7, 1000}));
  ASSERT_TRUE(dr.ok());
  EXPECT_EQ(dr->topics.size(), 2u);
  EXPECT_FALSE(decode_target_metadata_value(bytes({0, 0, 0, 0})).ok());  // truncated
}

AssignorInput homogeneous(int members, int32_t partitions) {
  AssignorInput in;
  in.partitions[topic_id(1)] = partitions;
  for (int i = 0; i < members; ++i) in.members["m" + std::to_string(i)] = AssignorMember{std::nullopt, {topic_id(1)}, {}};
  return in;
}

TEST(Assignors, UniformBalancesAndMovesOnlyWhatMust) {
  AssignorInput in = homogeneous(3, 6);
  auto first = assign("uniform", in);
  ASSERT_TRUE(first.ok());
  for (const auto& [id, a] : *first) EXPECT_EQ(partition_count(a), 2u) << id;
  // A fourth member: sizes 2, 2, 1, 1; old members keep only partitions they had, and
  // the one partition the newcomer gets is the only one that moves.
  for (auto& [id, m] : in.members) m.previous = first->at(id);
  in.members["m3"] = AssignorMember{std::nullopt, {topic_id(1)}, {}};
  auto second = assign("uniform", in);
  ASSERT_TRUE(second.ok());
  size_t moved = 0, total = 0;
  for (const auto& [id, a] : *second) {
    total += partition_count(a);
    EXPECT_GE(partition_count(a), 1u);
    EXPECT_LE(partition_count(a), 2u);
    if (id != "m3") {
      EXPECT_TRUE(is_subset(a, first->at(id))) << id << " got a partition it did not have";
      moved += partition_count(first->at(id)) - partition_count(a);
    }
  }
  EXPECT_EQ(total, 6u);
  EXPECT_EQ(moved, 1u);
  EXPECT_EQ(partition_count(second->at("m3")), 1u);
}

TEST(Assignors, UniformHeterogeneousGivesEachTopicToItsSubscribers) {
  AssignorInput in;
  in.partitions[topic_id(1)] = 4;
  in.partitions[topic_id(2)] = 2;
  in.members["a"] = AssignorMember{std::nullopt, {topic_id(1)}, {}};
  in.members["b"] = AssignorMember{std::nullopt, {topic_id(1), topic_id(2)}, {}};
  auto out = assign("uniform", in);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->at("a").contains(topic_id(2)));
  EXPECT_EQ(partition_count(out->at("a")) + partition_count(out->at("b")), 6u);
  EXPECT_EQ(partition_count(out->at("a")), 3u);
}

TEST(Assignors, RangePutsStaticMembersFirstThenIds) {
  AssignorInput in = homogeneous(0, 5);
  in.members["z"] = AssignorMember{std::string("i1"), {topic_id(1)}, {}};
  in.members["a"] = AssignorMember{std::nullopt, {topic_id(1)}, {}};
  auto out = assign("range", in);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->at("z").at(topic_id(1)), (std::set<int32_t>{0, 1, 2}));
  EXPECT_EQ(out->at("a").at(topic_id(1)), (std::set<int32_t>{3, 4}));
}

TEST(Reconcile, RevokesBeforeAssigning) {
  ConsumerMember m;
  m.id = "m";
  m.epoch = 1;
  m.assigned = {{topic_id(1), {0, 1}}};
  const Assignment target{{topic_id(1), {1, 2}}};
  const std::optional<Assignment> owned = m.assigned;
  auto owner = [](const Uuid&, int32_t p) { return p == 0 || p == 1 ? 1 : -1; };
  auto next = reconcile({m, 2, target, owned, owner});
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->state, MemberState::kUnrevokedPartitions);
  EXPECT_EQ(next->epoch, 1);
  EXPECT_EQ(next->assigned, (Assignment{{topic_id(1), {1}}}));
  EXPECT_EQ(next->pending_revocation, (Assignment{{topic_id(1), {0}}}));
  // Still owning 0: nothing changes. Once it reports {1}: epoch 2 with {1, 2}.
  auto again = reconcile({*next, 2, target, owned, owner});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->state, MemberState::kUnrevokedPartitions);
  const std::optional<Assignment> revoked = Assignment{{topic_id(1), {1}}};
  auto done = reconcile({*next, 2, target, revoked, owner});
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, MemberState::kStable);
  EXPECT_EQ(done->epoch, 2);
  EXPECT_EQ(done->assigned, target);
}

TEST(Reconcile, WaitsForPartitionsOthersStillHold) {
  ConsumerMember m;
  m.id = "m";
  const Assignment target{{topic_id(1), {0, 1}}};
  auto owner = [](const Uuid&, int32_t p) { return p == 0 ? 3 : -1; };
  auto next = reconcile({m, 4, target, std::optional<Assignment>(Assignment{}), owner});
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->state, MemberState::kUnreleasedPartitions);
  EXPECT_EQ(next->epoch, 4);
  EXPECT_EQ(next->assigned, (Assignment{{topic_id(1), {1}}}));
}

// -- The coordinator -----------------------------------------------------------------

struct FakeLog : OffsetsLog {
  explicit FakeLog(asio::io_context& io_in) : io(io_in) {}
  void append(int32_t partition, std::vector<Record> records, std::function<void(KafkaError)> done) override {
    for (Record& r : records) written.emplace_back(partition, std::move(r));
    asio::post(io, [done] { done(errc::kNone); });
  }
  void append_transactional(int32_t partition, int64_t, int16_t, std::vector<Record> records,
                            std::function<void(KafkaError)> done) override {
    append(partition, std::move(records), std::move(done));
  }
  asio::io_context& io;
  std::vector<std::pair<int32_t, Record>> written;
};

struct FakeTopics : TopicView {
  std::vector<TopicInfo> topics;
  std::optional<TopicInfo> find(const std::string& name) const override {
    for (const auto& t : topics) {
      if (t.name == name) return t;
    }
    return std::nullopt;
  }
  std::optional<TopicInfo> find(const Uuid& id) const override {
    for (const auto& t : topics) {
      if (t.id == id) return t;
    }
    return std::nullopt;
  }
  void each(const std::function<void(const TopicInfo&)>& f) const override {
    for (const auto& t : topics) f(t);
  }
};

class ConsumerCoordinatorTest : public ::testing::Test {
 protected:
  ConsumerCoordinatorTest() {
    topics.topics = {{topic_id(1), "orders", 6}, {topic_id(2), "other", 2}};
    coord = make();
  }
  std::unique_ptr<GroupCoordinator> make() {
    return std::make_unique<GroupCoordinator>(config, 4, log, [this](int32_t) { return io.get_executor(); });
  }
  ConsumerHeartbeat join(const std::string& member, std::optional<std::string> instance = {}) {
    ConsumerHeartbeat h;
    h.group_id = "g";
    h.member_id = member;
    h.member_epoch = 0;
    h.instance_id = std::move(instance);
    h.rebalance_timeout_ms = 60000;
    h.subscribed_topic_names = std::vector<std::string>{"orders"};
    h.owned = Assignment{};
    h.client_id = "c";
    h.client_host = "/127.0.0.1";
    return h;
  }
  ConsumerHeartbeat beat(const std::string& member, int32_t epoch, std::optional<Assignment> owned) {
    ConsumerHeartbeat h;
    h.group_id = "g";
    h.member_id = member;
    h.member_epoch = epoch;
    h.owned = std::move(owned);
    return h;
  }
  ConsumerHeartbeatResult send(ConsumerHeartbeat h) {
    std::optional<ConsumerHeartbeatResult> out;
    coord->consumer_heartbeat(std::move(h), topics, [&out](ConsumerHeartbeatResult r) { out = std::move(r); });
    while (!out) io.run_one();
    io.restart();
    return *out;
  }
  // The member's current assignment as the coordinator last answered it.
  Assignment held(const std::string& member) {
    auto d = coord->consumer_describe("g");
    for (const auto& m : d.members) {
      if (m.member.id == member) return m.member.assigned;
    }
    return {};
  }

  asio::io_context io;
  FakeLog log{io};
  FakeTopics topics;
  GroupConfig config;
  std::unique_ptr<GroupCoordinator> coord;
};

TEST_F(ConsumerCoordinatorTest, FirstMemberGetsEverythingAtEpochOne) {
  auto r = send(join("a"));
  ASSERT_EQ(r.error, errc::kNone) << r.message.value_or("");
  EXPECT_EQ(r.member_id, "a");
  EXPECT_EQ(r.member_epoch, 1);
  EXPECT_EQ(r.heartbeat_interval_ms, 5000);
  ASSERT_TRUE(r.assignment);
  EXPECT_EQ(partition_count(*r.assignment), 6u);
  auto d = coord->consumer_describe("g");
  EXPECT_EQ(d.state, ConsumerGroupState::kStable);
  EXPECT_EQ(d.group_epoch, 1);
  EXPECT_EQ(d.assignment_epoch, 1);
  EXPECT_EQ(d.assignor, "uniform");
  // Kafka's order of the first join: member, group epoch, target member, target epoch, current.
  std::vector<int16_t> types;
  for (const auto& [p, rec] : log.written) types.push_back(int16_t(load_be16(rec.key.data())));
  EXPECT_EQ(types, (std::vector<int16_t>{5, 3, 7, 6, 8}));
}

TEST_F(ConsumerCoordinatorTest, SecondMemberWaitsForTheFirstToRevoke) {
  auto a = send(join("a"));
  auto b = send(join("b"));
  ASSERT_EQ(b.error, errc::kNone);
  EXPECT_EQ(b.member_epoch, 2);
  ASSERT_TRUE(b.assignment);
  EXPECT_TRUE(b.assignment->empty());  // a still holds everything
  // a hears of the new epoch: it must give up three partitions first.
  auto a2 = send(beat("a", 1, held("a")));
  EXPECT_EQ(a2.member_epoch, 1);
  ASSERT_TRUE(a2.assignment);
  EXPECT_EQ(partition_count(*a2.assignment), 3u);
  // a acknowledges the revocation: epoch 2; then b gets the three freed partitions.
  auto a3 = send(beat("a", 1, *a2.assignment));
  EXPECT_EQ(a3.member_epoch, 2);
  auto b2 = send(beat("b", 2, Assignment{}));
  ASSERT_TRUE(b2.assignment);
  EXPECT_EQ(partition_count(*b2.assignment), 3u);
  EXPECT_FALSE(contains_any(*b2.assignment, *a2.assignment));
  EXPECT_EQ(coord->consumer_describe("g").state, ConsumerGroupState::kStable);
}

TEST_F(ConsumerCoordinatorTest, EpochRulesFenceStaleAndFutureMembers) {
  send(join("a"));
  EXPECT_EQ(send(beat("a", 5, std::nullopt)).error, errc::kFencedMemberEpoch);
  EXPECT_EQ(send(beat("nobody", 1, std::nullopt)).error, errc::kUnknownMemberId);
  send(join("b"));
  auto a2 = send(beat("a", 1, held("a")));
  send(beat("a", 1, *a2.assignment));  // now at epoch 2, previous 1
  // The previous epoch with a subset of its partitions is a lost answer: accepted.
  EXPECT_EQ(send(beat("a", 1, *a2.assignment)).error, errc::kNone);
  // The previous epoch claiming more than it has is fenced.
  EXPECT_EQ(send(beat("a", 1, Assignment{{topic_id(1), {0, 1, 2, 3, 4, 5}}})).error, errc::kFencedMemberEpoch);
}

TEST_F(ConsumerCoordinatorTest, LeavingFreesPartitionsAndBumpsTheEpoch) {
  send(join("a"));
  send(join("b"));
  auto a2 = send(beat("a", 1, held("a")));
  send(beat("a", 1, *a2.assignment));
  send(beat("b", 2, Assignment{}));
  auto leave = send(beat("b", -1, std::nullopt));
  EXPECT_EQ(leave.error, errc::kNone);
  EXPECT_EQ(leave.member_epoch, -1);
  // The leave moved the group to epoch 3; a takes b's partitions at once (nobody holds them).
  auto a3 = send(beat("a", 2, *a2.assignment));
  EXPECT_EQ(a3.member_epoch, 3);
  ASSERT_TRUE(a3.assignment);
  EXPECT_EQ(partition_count(*a3.assignment), 6u);
}

TEST_F(ConsumerCoordinatorTest, StaticMemberComesBackWithItsPartitions) {
  auto a = send(join("a1", "inst-a"));
  ASSERT_EQ(a.error, errc::kNone);
  // Another process with the same instance id while a1 is active: refused.
  EXPECT_EQ(send(join("a2", "inst-a")).error, errc::kUnreleasedInstanceId);
  auto leave = beat("a1", -2, std::nullopt);
  leave.instance_id = "inst-a";
  EXPECT_EQ(send(leave).member_epoch, -2);
  auto back = send(join("a2", "inst-a"));
  ASSERT_EQ(back.error, errc::kNone) << back.message.value_or("");
  ASSERT_TRUE(back.assignment);
  EXPECT_EQ(*back.assignment, *a.assignment);
  EXPECT_EQ(back.member_epoch, 1);  // no rebalance: the group epoch did not move
  EXPECT_EQ(coord->consumer_describe("g").group_epoch, 1);
}

TEST_F(ConsumerCoordinatorTest, RejectsBadRequests) {
  auto h = join("a");
  h.owned = Assignment{{topic_id(1), {0}}};
  EXPECT_EQ(send(h).error, errc::kInvalidRequest);
  h = join("a");
  h.server_assignor = "sticky";
  EXPECT_EQ(send(h).error, errc::kUnsupportedAssignor);
  h = join("a");
  h.subscribed_topic_regex = "orders(";
  EXPECT_EQ(send(h).error, errc::kInvalidRegularExpression);
  h = join("");
  EXPECT_EQ(send(h).error, errc::kInvalidRequest);  // v1 needs a member id
  config.consumer_max_size = 1;
  coord = make();
  EXPECT_EQ(send(join("a")).error, errc::kNone);
  EXPECT_EQ(send(join("b")).error, errc::kGroupMaxSizeReached);
}

TEST_F(ConsumerCoordinatorTest, RegexSubscriptionFollowsNewTopics) {
  auto h = join("a");
  h.subscribed_topic_names = std::vector<std::string>{};
  h.subscribed_topic_regex = "o.*";
  auto r = send(h);
  ASSERT_EQ(r.error, errc::kNone) << r.message.value_or("");
  EXPECT_EQ(partition_count(*r.assignment), 8u);  // orders and other
  topics.topics.push_back({topic_id(3), "orders-eu", 3});
  topics.topics.push_back({topic_id(4), "__consumer_offsets", 50});
  auto r2 = send(beat("a", r.member_epoch, *r.assignment));
  EXPECT_EQ(r2.member_epoch, r.member_epoch + 1);
  ASSERT_TRUE(r2.assignment);
  EXPECT_EQ(partition_count(*r2.assignment), 11u);
}

TEST_F(ConsumerCoordinatorTest, ReplayRebuildsTheGroup) {
  send(join("a"));
  send(join("b", "inst-b"));
  auto a2 = send(beat("a", 1, held("a")));
  send(beat("a", 1, *a2.assignment));
  send(beat("b", 2, Assignment{}));
  const auto before = coord->consumer_describe("g");
  coord->shutdown(partition_for_group("g", 4));
  auto reloaded = make();
  for (auto& [p, rec] : log.written) {
    std::optional<Bytes> value;
    if (rec.value) value = Bytes(*rec.value);
    reloaded->replay(p, Bytes(rec.key), value);
  }
  reloaded->finish_load(partition_for_group("g", 4));
  const auto after = reloaded->consumer_describe("g");
  ASSERT_EQ(after.error, errc::kNone);
  EXPECT_EQ(after.group_epoch, before.group_epoch);
  EXPECT_EQ(after.assignment_epoch, before.assignment_epoch);
  ASSERT_EQ(after.members.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(after.members[i].member.epoch, before.members[i].member.epoch);
    EXPECT_EQ(after.members[i].member.assigned, before.members[i].member.assigned);
    EXPECT_EQ(after.members[i].target, before.members[i].target);
    EXPECT_EQ(after.members[i].member.instance_id, before.members[i].member.instance_id);
  }
  reloaded->shutdown(partition_for_group("g", 4));
}

TEST_F(ConsumerCoordinatorTest, CommitsNeedTheMembersCurrentEpoch) {
  auto a = send(join("a"));
  auto commit = [this](const std::string& member, int32_t epoch, bool v9) {
    std::optional<std::vector<KafkaError>> out;
    MemberRef m{"g", member, std::nullopt, epoch, v9};
    coord->commit(m, {CommitPartition{"orders", 0, 5}}, [&out](std::vector<KafkaError> e) { out = std::move(e); });
    while (!out) io.run_one();
    io.restart();
    return out->at(0);
  };
  EXPECT_EQ(commit("a", a.member_epoch, true), errc::kNone);
  EXPECT_EQ(commit("a", a.member_epoch + 1, true), errc::kStaleMemberEpoch);
  EXPECT_EQ(commit("a", a.member_epoch, false), errc::kUnsupportedVersion);
  EXPECT_EQ(commit("x", a.member_epoch, true), errc::kUnknownMemberId);
  EXPECT_EQ(coord->check_offset_fetch("g", std::string("a"), a.member_epoch + 1), errc::kStaleMemberEpoch);
  EXPECT_EQ(coord->check_offset_fetch("g", std::nullopt, -1), errc::kNone);
}

// TxnOffsetCommit v3+ to a consumer-protocol group: the named member must exist and
// commit at its current epoch; ILLEGAL_GENERATION (not STALE_MEMBER_EPOCH) otherwise, as
// Kafka, so a transactional producer aborts. Without a member the commit is accepted.
TEST_F(ConsumerCoordinatorTest, TransactionalCommitsCheckTheMemberEpoch) {
  auto a = send(join("a"));
  auto txn_commit = [this](const std::string& member, int32_t epoch) {
    std::optional<std::vector<KafkaError>> out;
    TxnCommitRequest r{"g", 7, 0, epoch, member, std::nullopt, {{"orders", 0, 5, -1, "", -1}}};
    coord->txn_commit(std::move(r), [&out](std::vector<KafkaError> e) { out = std::move(e); });
    while (!out) io.run_one();
    io.restart();
    return out->at(0);
  };
  EXPECT_EQ(txn_commit("a", a.member_epoch), errc::kNone);
  EXPECT_EQ(txn_commit("a", a.member_epoch + 1), errc::kIllegalGeneration);
  EXPECT_EQ(txn_commit("x", a.member_epoch), errc::kUnknownMemberId);
  EXPECT_EQ(txn_commit("", -1), errc::kNone);
}

}  // namespace
}  // namespace strata::group

#include "cluster/keys.h"

#include <gtest/gtest.h>

#include "cluster/controller.h"
#include "cluster/elections.h"
#include "cluster/reassignment.h"
#include "cluster/placement.h"

#include <map>

namespace strata::cluster {
namespace {

TEST(Keys, NamesAndParsesUnderAChroot) {
  Keys k("/prod");
  EXPECT_EQ(k.broker(3), "/prod/brokers/ids/3");
  EXPECT_EQ(k.partition_state("t.1", 7), "/prod/brokers/topics/t.1/partitions/7/state");
  auto s = k.parse("/prod/brokers/topics/t.1/partitions/7/state");
  EXPECT_EQ(s.kind, Keys::Parsed::Kind::kPartitionState);
  EXPECT_EQ(s.topic, "t.1");
  EXPECT_EQ(s.partition, 7);
  EXPECT_EQ(k.parse("/prod/brokers/ids/3").node_id, 3);
  EXPECT_EQ(k.parse("/prod/brokers/topics/t").kind, Keys::Parsed::Kind::kTopic);
  EXPECT_EQ(k.parse("/prod/config/topics/t").kind, Keys::Parsed::Kind::kTopicConfig);
  EXPECT_EQ(k.parse("/prod/controller").kind, Keys::Parsed::Kind::kController);
  EXPECT_EQ(k.broker_config("<default>"), "/prod/config/brokers/<default>");
  EXPECT_EQ(k.parse("/prod/config/brokers/<default>").kind, Keys::Parsed::Kind::kBrokerConfig);
  EXPECT_EQ(k.parse("/prod/config/brokers/<default>").entity, "<default>");
  EXPECT_EQ(k.parse(k.broker_config("12")).entity, "12");
  for (const char* other : {"/other/controller", "/prod/brokers/ids/x", "/prod/brokers/ids/-1",
                            "/prod/config/brokers/x", "/prod/config/brokers/-2", "/prod/config/brokers/",
                            "/prod/brokers/topics/t/partitions/x/state", "/prod/brokers/topics/",
                            "/prod/brokers/topics/t/partitions/1/stat", "/prodcontroller"}) {
    EXPECT_EQ(k.parse(other).kind, Keys::Parsed::Kind::kOther) << other;
  }
  EXPECT_EQ(Keys("").controller(), "/controller");
}

TEST(Keys, ValuesRoundTrip) {
  BrokerRegistration r{2, {{"PLAINTEXT", "127.0.0.1", 9093}, {"SSL", "::1", 9094}}, "rack-a", 1733140000000, "dir"};
  auto back = decode_registration(2, encode_registration(r));
  ASSERT_TRUE(back.ok()) << back.error();
  ASSERT_EQ(back->endpoints.size(), 2u);
  EXPECT_EQ(back->endpoints[1].host, "::1");
  EXPECT_EQ(back->endpoints[1].port, 9094);
  EXPECT_EQ(back->rack, "rack-a");
  EXPECT_EQ(back->timestamp_ms, 1733140000000);
  EXPECT_EQ(back->directory_id, "dir");

  TopicAssignment a{"mWzxnM5aQ9yd0OTnYclYqA", {{1, 2}, {2, 3}, {3, 1}}};
  auto ab = decode_assignment(encode_assignment(a));
  ASSERT_TRUE(ab.ok()) << ab.error();
  EXPECT_EQ(ab->replicas, a.replicas);
  EXPECT_EQ(ab->topic_id, a.topic_id);
  EXPECT_TRUE(ab->adding.empty() && ab->removing.empty());
  a.replicas[0] = {2, 3, 1};
  a.adding[0] = {3};
  a.removing[0] = {1};
  ab = decode_assignment(encode_assignment(a));
  ASSERT_TRUE(ab.ok()) << ab.error();
  EXPECT_EQ(ab->adding, a.adding);
  EXPECT_EQ(ab->removing, a.removing);
  EXPECT_TRUE(ab->moving(0));
  EXPECT_FALSE(ab->moving(1));
  EXPECT_FALSE(decode_assignment(R"({"partitions":{"0":[1]},"adding_replicas":{"1":[2]}})").ok());

  PartitionState s{2, 5, {2, 3}, 7, 1234};
  auto sb = decode_partition_state(encode_partition_state(s));
  ASSERT_TRUE(sb.ok()) << sb.error();
  EXPECT_EQ(*sb, s);

  auto c = decode_controller(encode_controller({3, 77, 1}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->broker_id, 3);
  EXPECT_EQ(c->broker_epoch, 77);
  EXPECT_EQ(*decode_cluster_id(encode_cluster_id("abc")), "abc");
  auto cfg = decode_topic_config(encode_topic_config({{"cleanup.policy", "compact"}}));
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->at("cleanup.policy"), "compact");
}

// What Kafka's own ZooKeeper-era brokers write reads too (a registration with jmx_port,
// a string timestamp and no directory_id).
TEST(Keys, ReadsKafkasRegistration) {
  auto r = decode_registration(
      1, R"({"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},
      "endpoints":["PLAINTEXT://kafka-1:9092"],"jmx_port":-1,"port":9092,"host":"kafka-1",
      "version":5,"timestamp":"1700000000000"})");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->endpoints[0].host, "kafka-1");
  EXPECT_FALSE(r->rack.has_value());
}

TEST(Keys, BadValuesAreErrors) {
  EXPECT_FALSE(decode_assignment(R"({"partitions":{"0":[1],"2":[1]}})").ok());  // a gap
  EXPECT_FALSE(decode_assignment(R"({"partitions":{"0":[]}})").ok());
  EXPECT_FALSE(decode_assignment(R"({"partitions":{"0":[-1]}})").ok());
  EXPECT_FALSE(decode_assignment(R"({"partitions":{"0":["a"]}})").ok());
  EXPECT_FALSE(decode_partition_state(R"({"leader":-2,"leader_epoch":0,"isr":[]})").ok());
  EXPECT_FALSE(decode_partition_state(R"({"leader":1,"leader_epoch":0})").ok());
  EXPECT_FALSE(decode_partition_state(R"({"leader":1,"leader_epoch":99999999999,"isr":[1]})").ok());
  EXPECT_FALSE(decode_registration(1, R"({"endpoints":["nonsense"]})").ok());
  EXPECT_FALSE(decode_registration(1, R"({"endpoints":[]})").ok());
  EXPECT_FALSE(decode_controller(R"({"brokerid":"x"})").ok());
  EXPECT_FALSE(decode_topic_config(R"({"config":{"a":1}})").ok());
  EXPECT_FALSE(decode_cluster_id("[]").ok());
}

ClusterView view_with(std::vector<int32_t> live) {
  ClusterView v;
  for (int32_t n : live) v.brokers[n] = LiveBroker{};
  return v;
}

TEST(Controller, NewPartitionsGetTheirFirstLiveReplica) {
  ClusterView v = view_with({1, 2});
  v.topics["t"] = TopicEntry{{"id", {{1, 2}, {3, 2}, {3}}}, 5, 5};
  auto plan = plan_state_changes(v, 9);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].state.leader, 1);
  EXPECT_EQ(plan[1].state.leader, 2);  // 3 is not alive
  EXPECT_EQ(plan[2].state.leader, -1);
  EXPECT_EQ(plan[2].state.isr, std::vector<int32_t>{3});
  EXPECT_EQ(plan[0].state.controller_epoch, 9);
  EXPECT_EQ(plan[0].mod_revision, 0);
}

TEST(Controller, ALostLeaderIsReplacedOrLeavesThePartitionLeaderless) {
  ClusterView v = view_with({2});
  v.topics["t"] = TopicEntry{{"id", {{1, 2}, {1}}}, 5, 5};
  v.states[{"t", 0}] = StateEntry{{1, 4, {1, 2}, 4, 1}, 11};
  v.states[{"t", 1}] = StateEntry{{1, 0, {1}, 0, 1}, 12};
  auto plan = plan_state_changes(v, 9);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].state.leader, 2);
  EXPECT_EQ(plan[0].state.isr, std::vector<int32_t>{2});
  EXPECT_EQ(plan[0].state.leader_epoch, 5);
  EXPECT_EQ(plan[0].mod_revision, 11);
  EXPECT_EQ(plan[1].state.leader, -1);
  EXPECT_EQ(plan[1].state.isr, std::vector<int32_t>{1});  // kept: no unclean election
  EXPECT_EQ(plan[1].state.leader_epoch, 1);
  // Broker 1 returns: it leads its partition again, with a new epoch.
  v.brokers[1] = LiveBroker{};
  v.states[{"t", 1}] = StateEntry{plan[1].state, 13};
  v.states[{"t", 0}] = StateEntry{plan[0].state, 14};
  auto back = plan_state_changes(v, 9);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].partition, 1);
  EXPECT_EQ(back[0].state.leader, 1);
  EXPECT_EQ(back[0].state.leader_epoch, 2);
  EXPECT_TRUE(plan_state_changes(view_with({1, 2}), 9).empty());
}

// unclean.leader.election.enable: only where the policy allows it, a live replica outside
// the ISR leads a partition whose ISR members are all gone, as the ISR's only member.
TEST(Controller, UncleanElectionOnlyWhereAllowed) {
  ClusterView v = view_with({3});
  v.topics["safe"] = TopicEntry{{"id", {{1, 2, 3}}}, 5, 5};
  v.topics["risky"] = TopicEntry{{"id", {{1, 2, 3}, {3, 1, 2}}}, 6, 6};
  v.states[{"safe", 0}] = StateEntry{{1, 4, {1, 2}, 4, 1}, 11};
  v.states[{"risky", 0}] = StateEntry{{1, 4, {1, 2}, 4, 1}, 12};
  v.states[{"risky", 1}] = StateEntry{{-1, 7, {1}, 7, 1}, 13};  // already leaderless
  v.configs["risky"] = ConfigEntry{{{"unclean.leader.election.enable", "true"}}, 14};
  const UncleanElection by_override = [](const std::map<std::string, std::string>& o) {
    return o.count("unclean.leader.election.enable") != 0;
  };
  auto plan = plan_state_changes(v, 9, by_override);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].topic, "risky");
  EXPECT_EQ(plan[0].state.leader, 3);
  EXPECT_EQ(plan[0].state.isr, std::vector<int32_t>{3});
  EXPECT_EQ(plan[0].state.leader_epoch, 5);
  EXPECT_TRUE(plan[0].unclean);
  EXPECT_EQ(plan[1].state.leader, 3);
  EXPECT_EQ(plan[1].state.leader_epoch, 8);
  EXPECT_TRUE(plan[1].unclean);
  EXPECT_EQ(plan[2].topic, "safe");
  EXPECT_EQ(plan[2].state.leader, -1);
  EXPECT_EQ(plan[2].state.isr, (std::vector<int32_t>{1, 2}));
  EXPECT_FALSE(plan[2].unclean);
  // Without a policy nothing is elected uncleanly; with one, a live ISR member still wins.
  for (const auto& c : plan_state_changes(v, 9)) EXPECT_EQ(c.state.leader, -1);
  v.brokers[2] = LiveBroker{};
  for (const auto& c : plan_state_changes(v, 9, by_override)) {
    EXPECT_EQ(c.state.leader, c.partition == 1 && c.topic == "risky" ? 3 : 2) << c.topic << c.partition;
  }
}

// ElectLeaders' rules (KIP-183, KIP-460): preferred only to a live in-sync first replica,
// unclean only where the leader is gone; a new leader bumps both epochs.
TEST(Elections, PreferredAndUncleanRules) {
  ClusterView v = view_with({1, 2});
  const PartitionState led_by_2{2, 4, {1, 2}, 6, 1};
  auto preferred = elect(v, led_by_2, {1, 2, 3}, ElectionType::kPreferred);
  ASSERT_TRUE(preferred.ok());
  EXPECT_EQ(preferred->leader, 1);
  EXPECT_EQ(preferred->leader_epoch, 5);
  EXPECT_EQ(preferred->partition_epoch, 7);
  EXPECT_EQ(preferred->isr, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(elect(v, {1, 4, {1, 2}, 6, 1}, {1, 2, 3}, ElectionType::kPreferred).error(),
            KafkaError::kElectionNotNeeded);
  // The preferred replica out of the ISR, or not alive: no preferred election.
  EXPECT_EQ(elect(v, {2, 4, {2}, 6, 1}, {1, 2, 3}, ElectionType::kPreferred).error(),
            KafkaError::kPreferredLeaderNotAvailable);
  EXPECT_EQ(elect(v, {2, 4, {2, 3}, 6, 1}, {3, 2, 1}, ElectionType::kPreferred).error(),
            KafkaError::kPreferredLeaderNotAvailable);
  // Unclean: not needed while the leader lives; a live ISR member first; else a live
  // replica alone in the ISR; else nobody.
  EXPECT_EQ(elect(v, led_by_2, {1, 2, 3}, ElectionType::kUnclean).error(), KafkaError::kElectionNotNeeded);
  auto from_isr = elect(v, {3, 4, {3, 2}, 6, 1}, {3, 2, 1}, ElectionType::kUnclean);
  ASSERT_TRUE(from_isr.ok());
  EXPECT_EQ(from_isr->leader, 2);
  EXPECT_EQ(from_isr->isr, (std::vector<int32_t>{3, 2}));
  auto outside = elect(v, {-1, 4, {3}, 6, 1}, {3, 1, 2}, ElectionType::kUnclean);
  ASSERT_TRUE(outside.ok());
  EXPECT_EQ(outside->leader, 1);
  EXPECT_EQ(outside->isr, std::vector<int32_t>{1});
  EXPECT_EQ(elect(v, {-1, 4, {3}, 6, 1}, {3, 4}, ElectionType::kUnclean).error(),
            KafkaError::kEligibleLeadersNotAvailable);
}

// KIP-455's sets: the full set is the target then the origin's leavers; a new target
// keeps the origin; the origin again, a reordering or a cancel settle at once.
TEST(Reassignment, RequestsShapeTheAssignment) {
  TopicAssignment a{"id", {{1, 2, 3}, {1, 2}}};
  ASSERT_TRUE(reassign(a, 0, std::vector<int32_t>{2, 3, 4}).ok());
  EXPECT_EQ(a.replicas[0], (std::vector<int32_t>{2, 3, 4, 1}));
  EXPECT_EQ(a.adding[0], std::vector<int32_t>{4});
  EXPECT_EQ(a.removing[0], std::vector<int32_t>{1});
  EXPECT_EQ(target_of(a, 0), (std::vector<int32_t>{2, 3, 4}));
  EXPECT_EQ(origin_of(a, 0), (std::vector<int32_t>{2, 3, 1}));  // as Kafka: in the full set's order
  ASSERT_TRUE(reassign(a, 0, std::vector<int32_t>{5, 2, 3}).ok());  // origin kept
  EXPECT_EQ(a.replicas[0], (std::vector<int32_t>{5, 2, 3, 1}));
  EXPECT_EQ(a.adding[0], std::vector<int32_t>{5});
  ASSERT_TRUE(reassign(a, 0, std::nullopt).ok());  // cancel: the origin back
  EXPECT_EQ(a.replicas[0], (std::vector<int32_t>{2, 3, 1}));
  EXPECT_FALSE(a.moving(0));
  EXPECT_EQ(reassign(a, 0, std::nullopt).error(), KafkaError::kNoReassignmentInProgress);
  ASSERT_TRUE(reassign(a, 1, std::vector<int32_t>{2, 1}).ok());  // reordered: at once
  EXPECT_EQ(a.replicas[1], (std::vector<int32_t>{2, 1}));
  EXPECT_FALSE(a.moving(1));
  ASSERT_TRUE(reassign(a, 1, std::vector<int32_t>{2}).ok());  // shrinking is a move too
  EXPECT_EQ(a.removing[1], std::vector<int32_t>{1});
}

// The controller completes a move once every target replica is in the ISR, dropping
// the removed ones (a removed leader hands over); a cancelled move's leftovers leave
// the ISR.
TEST(Reassignment, CompletesOnceTheTargetIsInSync) {
  ClusterView v = view_with({1, 2, 3, 4});
  TopicAssignment a{"id", {{1, 2, 3}, {1, 2}}};
  ASSERT_TRUE(reassign(a, 0, std::vector<int32_t>{2, 3, 4}).ok());
  v.topics["t"] = TopicEntry{a, 5, 20};
  v.states[{"t", 0}] = StateEntry{{1, 3, {1, 2, 3}, 6, 1}, 21};
  v.states[{"t", 1}] = StateEntry{{1, 3, {1, 2, 4}, 6, 1}, 22};  // 4 left by a cancelled move
  auto steps = plan_reassignment_steps(v, 9);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_FALSE(steps[0].assignment.has_value());  // 4 has not caught up with t-0
  ASSERT_EQ(steps[0].states.size(), 1u);
  EXPECT_EQ(steps[0].states[0].partition, 1);
  EXPECT_EQ(steps[0].states[0].state.isr, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(steps[0].states[0].state.leader_epoch, 3);
  v.states[{"t", 1}] = StateEntry{steps[0].states[0].state, 23};
  v.states[{"t", 0}] = StateEntry{{1, 3, {1, 2, 3, 4}, 7, 1}, 24};  // 4 joined the ISR
  steps = plan_reassignment_steps(v, 9);
  ASSERT_EQ(steps.size(), 1u);
  ASSERT_TRUE(steps[0].assignment.has_value());
  EXPECT_EQ(steps[0].assignment->replicas[0], (std::vector<int32_t>{2, 3, 4}));
  EXPECT_FALSE(steps[0].assignment->moving(0));
  EXPECT_EQ(steps[0].assignment_revision, 20);
  EXPECT_EQ(steps[0].completed, std::vector<int32_t>{0});
  ASSERT_EQ(steps[0].states.size(), 1u);
  const PartitionState& s = steps[0].states[0].state;
  EXPECT_EQ(s.leader, 2);  // 1 is removed: the first target replica in the ISR leads
  EXPECT_EQ(s.leader_epoch, 4);
  EXPECT_EQ(s.partition_epoch, 8);
  EXPECT_EQ(s.isr, (std::vector<int32_t>{2, 3, 4}));
  EXPECT_EQ(steps[0].states[0].mod_revision, 24);
}

// The automatic rebalance moves a broker's preferred partitions back only once the share
// it does not lead exceeds leader.imbalance.per.broker.percentage.
TEST(Elections, RebalanceOnlyAboveTheImbalanceShare) {
  ClusterView v = view_with({1, 2, 3});
  v.topics["t"] = TopicEntry{{"id", {{1, 2, 3}, {1, 3, 2}, {1, 2, 3}, {2, 1, 3}, {3, 1, 2}}}, 5, 5};
  v.states[{"t", 0}] = StateEntry{{2, 3, {1, 2, 3}, 3, 1}, 11};  // broker 1 prefers, 2 leads
  v.states[{"t", 1}] = StateEntry{{1, 3, {1, 2, 3}, 3, 1}, 12};
  v.states[{"t", 2}] = StateEntry{{1, 3, {1, 2, 3}, 3, 1}, 13};
  v.states[{"t", 3}] = StateEntry{{2, 3, {1, 2, 3}, 3, 1}, 14};
  v.states[{"t", 4}] = StateEntry{{1, 3, {1, 2}, 3, 1}, 15};  // 3 prefers but is out of the ISR
  EXPECT_TRUE(plan_preferred_elections(v, 9, 40).empty());  // broker 1: 1 of 3 not led, 33 %
  auto plan = plan_preferred_elections(v, 9, 10);
  ASSERT_EQ(plan.size(), 1u);  // t-4 is imbalanced too, but 3 cannot lead it
  EXPECT_EQ(plan[0].partition, 0);
  EXPECT_EQ(plan[0].state.leader, 1);
  EXPECT_EQ(plan[0].state.leader_epoch, 4);
  EXPECT_EQ(plan[0].state.controller_epoch, 9);
  EXPECT_EQ(plan[0].mod_revision, 11);
}

}  // namespace
}  // namespace strata::cluster

namespace strata::cluster {
namespace {

TEST(Placement, SpreadsLeadersAndReplicasEvenly) {
  auto a = assign_replicas({{1, {}}, {2, {}}, {3, {}}}, 12, 2, 0, 0);
  ASSERT_TRUE(a.ok()) << a.error();
  std::map<int32_t, int> leaders, replicas;
  for (const auto& r : *a) {
    ASSERT_EQ(r.size(), 2u);
    EXPECT_NE(r[0], r[1]);
    ++leaders[r[0]];
    for (int32_t n : r) ++replicas[n];
  }
  EXPECT_EQ(leaders, (std::map<int32_t, int>{{1, 4}, {2, 4}, {3, 4}}));
  EXPECT_EQ(replicas, (std::map<int32_t, int>{{1, 8}, {2, 8}, {3, 8}}));
}

TEST(Placement, PutsReplicasOnDifferentRacks) {
  auto a = assign_replicas({{1, "a"}, {2, "a"}, {3, "b"}, {4, "b"}}, 8, 2, 1, 0);
  ASSERT_TRUE(a.ok()) << a.error();
  for (const auto& r : *a) {
    const bool rack_a0 = r[0] <= 2, rack_a1 = r[1] <= 2;
    EXPECT_NE(rack_a0, rack_a1) << r[0] << "," << r[1];
  }
}

TEST(Placement, RefusesWhatCannotBePlaced) {
  auto a = assign_replicas({{1, {}}}, 3, 2, 0, 0);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().find("only 1 broker(s) are registered"), std::string::npos);
  EXPECT_FALSE(assign_replicas({{1, "a"}, {2, {}}}, 1, 1, 0, 0).ok());
  EXPECT_FALSE(assign_replicas({}, 1, 1, 0, 0).ok());
}

}  // namespace
}  // namespace strata::cluster

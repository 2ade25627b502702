// ClusterNode against a real etcd: registration, election, failover, fencing, and the
// controller's partition states.
#include "cluster/node.h"

#include <gtest/gtest.h>

#include <thread>

#include "cluster/controller.h"
#include "cluster/etcd_process.h"

namespace strata::cluster {
namespace {

using namespace std::chrono_literals;

class NodeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(etcd.ok()) << "etcd did not start"; }

  NodeOptions options(int32_t id, std::string dir = "") {
    NodeOptions o;
    o.connect.endpoints = {etcd.endpoint()};
    o.connect.chroot = "/test";
    o.node_id = id;
    o.endpoints = {{"PLAINTEXT", "127.0.0.1", 9000 + id}};
    o.directory_id = dir.empty() ? "dir-" + std::to_string(id) : dir;
    o.session_timeout = 2000ms;
    o.request_timeout = 1000ms;
    return o;
  }

  std::unique_ptr<ClusterNode> joined(int32_t id, std::string dir = "") {
    auto n = std::make_unique<ClusterNode>(options(id, dir));
    EXPECT_TRUE(fetch_cluster_id(n->etcd(), n->keys(), "cid").ok());
    auto r = n->join({});
    EXPECT_TRUE(r.ok()) << r.error();
    return n;
  }

  // Waits until `pred(view)` holds on `node` (up to 10 s).
  template <class Pred>
  bool eventually(ClusterNode& node, Pred pred) {
    for (int i = 0; i < 500; ++i) {
      if (auto v = node.view(); v && pred(*v)) return true;
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  EtcdProcess etcd;
};

TEST_F(NodeTest, BrokersSeeEachOtherAndOneIsController) {
  auto a = joined(1);
  auto b = joined(2);
  for (ClusterNode* n : {a.get(), b.get()}) {
    EXPECT_TRUE(eventually(*n, [](const ClusterView& v) { return v.brokers.size() == 2 && v.controller; }));
  }
  EXPECT_EQ(a->view()->cluster_id, "cid");
  EXPECT_EQ(a->view()->controller->broker_id, b->view()->controller->broker_id);
  EXPECT_EQ((a->controller_epoch() != 0) + (b->controller_epoch() != 0), 1);
  EXPECT_GT(b->broker_epoch(), a->broker_epoch());
  EXPECT_EQ(a->view()->brokers.at(2).registration.endpoints[0].port, 9002);
}

TEST_F(NodeTest, TheFirstClusterIdWins) {
  ClusterNode a(options(1)), b(options(2));
  EXPECT_EQ(*fetch_cluster_id(a.etcd(), a.keys(), "first"), "first");
  EXPECT_EQ(*fetch_cluster_id(b.etcd(), b.keys(), "second"), "first");
}

TEST_F(NodeTest, AControllerThatLeavesIsReplaced) {
  auto a = joined(1);
  ASSERT_TRUE(eventually(*a, [](const ClusterView& v) { return v.controller.has_value(); }));
  auto b = joined(2);
  ASSERT_TRUE(eventually(*b, [](const ClusterView& v) { return v.controller && v.brokers.size() == 2; }));
  ASSERT_NE(a->controller_epoch(), 0);
  const int64_t old = a->controller_epoch();
  a->leave();
  // leave() resigns and then revokes its lease: two revisions, so wait for both.
  ASSERT_TRUE(eventually(*b, [](const ClusterView& v) { return v.controller && v.controller->broker_id == 2; }));
  EXPECT_GT(b->controller_epoch(), old);
  EXPECT_TRUE(eventually(*b, [](const ClusterView& v) { return v.brokers.count(1) == 0; }))
      << "its registration goes with its lease";
}

TEST_F(NodeTest, ARestartedIncarnationTakesOverItsRegistration) {
  NodeOptions o = options(1, "same-dir");
  ClusterNode first(o);
  ASSERT_TRUE(first.join({}).ok());
  // A second process with the same log dir (the first was killed: its lease lives on).
  ClusterNode second(o);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = second.join({});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1500ms);  // no wait for the old lease
  EXPECT_GT(second.broker_epoch(), first.broker_epoch());
}

TEST_F(NodeTest, AClashingNodeIdIsRefused) {
  auto a = joined(1, "dir-a");
  ClusterNode clash(options(1, "dir-b"));
  auto r = clash.join({});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("node.id 1 is already registered by a live broker (127.0.0.1:9001)"),
            std::string::npos)
      << r.error();
  EXPECT_TRUE(eventually(*a, [](const ClusterView& v) { return v.brokers.count(1) == 1; }));
}

TEST_F(NodeTest, TheControllerWritesStatesAndMovesLeadersOfALostBroker) {
  auto a = joined(1);
  auto b = joined(2);
  ASSERT_TRUE(eventually(*a, [](const ClusterView& v) { return v.controller && v.brokers.size() == 2; }));
  // A topic with partitions on both brokers, written as CreateTopics writes it.
  TxnRequest t;
  t.success.push_back({Op::Kind::kPut, a->keys().topic("t"), "",
                       encode_assignment({"id", {{1, 2}, {2, 1}, {1}, {2}}}), 0});
  ASSERT_TRUE(a->etcd().txn(t).ok());
  ASSERT_TRUE(eventually(*b, [](const ClusterView& v) { return v.states.size() == 4; }));
  auto v = b->view();
  EXPECT_EQ(v->state("t", 0)->state.leader, 1);
  EXPECT_EQ(v->state("t", 1)->state.leader, 2);
  // Broker 1 goes (the controller among them, if it was): 2 leads what it can.
  ClusterNode* survivor = b.get();
  a->leave();
  ASSERT_TRUE(eventually(*survivor, [](const ClusterView& w) {
    const StateEntry* s0 = w.state("t", 0);
    const StateEntry* s2 = w.state("t", 2);
    return s0 && s2 && s0->state.leader == 2 && s2->state.leader == -1;
  }));
  v = survivor->view();
  EXPECT_EQ(v->state("t", 0)->state.leader_epoch, 1);
  EXPECT_EQ(v->state("t", 0)->state.isr, std::vector<int32_t>{2});
  EXPECT_EQ(v->state("t", 2)->state.isr, std::vector<int32_t>{1});
  // Broker 1 returns and leads its partition again.
  auto again = joined(1);
  ASSERT_TRUE(eventually(*survivor, [](const ClusterView& w) {
    const StateEntry* s2 = w.state("t", 2);
    return s2 && s2->state.leader == 1;
  }));
  EXPECT_EQ(survivor->view()->state("t", 2)->state.leader_epoch, 2);
}

TEST_F(NodeTest, APausedControllerIsFenced) {
  auto a = joined(1);
  ASSERT_TRUE(eventually(*a, [](const ClusterView& v) { return v.controller.has_value(); }));
  const int64_t stale = a->controller_epoch();
  ASSERT_NE(stale, 0);
  // Its lease is revoked as if it had expired while the broker was paused.
  ASSERT_TRUE(a->etcd().revoke(a->view()->brokers.at(1).lease).ok());
  auto b = joined(2);
  ASSERT_TRUE(eventually(*b, [](const ClusterView& v) { return v.controller && v.controller->broker_id == 2; }));
  // A write fenced by the stale epoch changes nothing.
  ClusterView view = *b->view();
  view.topics["late"] = TopicEntry{{"id", {{2}}}, 1, 1};
  EXPECT_TRUE(run_controller(a->etcd(), a->keys(), view, stale).fenced);
  EXPECT_TRUE(a->etcd().range(a->keys().partition_state("late", 0))->kvs.empty());
  // And the paused broker comes back as an ordinary member under a new session.
  EXPECT_TRUE(eventually(*b, [](const ClusterView& v) { return v.brokers.count(1) == 1; }));
}

TEST_F(NodeTest, BrokersKeepTheirViewWhileEtcdIsDownAndResume) {
  auto a = joined(1);
  ASSERT_TRUE(eventually(*a, [](const ClusterView& v) { return v.controller.has_value(); }));
  etcd.kill();
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(a->view()->brokers.size(), 1u);  // the last view stands
  ASSERT_TRUE(etcd.restart());
  TxnRequest t;
  t.success.push_back({Op::Kind::kPut, a->keys().topic("after"), "", encode_assignment({"id", {{1}}}), 0});
  ASSERT_TRUE(a->etcd().txn(t).ok());
  EXPECT_TRUE(eventually(*a, [](const ClusterView& v) { return v.state("after", 0) != nullptr; }));
}

}  // namespace
}  // namespace strata::cluster

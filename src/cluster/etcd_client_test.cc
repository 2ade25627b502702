// EtcdClient and EtcdWatch against a real etcd process (etcd_process.h).
#include "cluster/etcd_client.h"

#include <gtest/gtest.h>

#include <thread>

#include "cluster/etcd_process.h"

namespace strata::cluster {
namespace {

using namespace std::chrono_literals;

TEST(EtcdConnect, ParsesHostsAndChroot) {
  auto c = parse_etcd_connect("10.0.0.1:2379,h2:23790/strata/prod/");
  ASSERT_TRUE(c.ok()) << c.error();
  ASSERT_EQ(c->endpoints.size(), 2u);
  EXPECT_EQ(c->endpoints[0].host, "10.0.0.1");
  EXPECT_EQ(c->endpoints[1].port, 23790);
  EXPECT_EQ(c->chroot, "/strata/prod");
  auto plain = parse_etcd_connect("localhost");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->endpoints[0].port, 2379);
  EXPECT_EQ(plain->chroot, "");
  for (const char* bad : {"", "/x", "h:0", "h:99999", "h:x", ",", "h:1/a//b"}) {
    EXPECT_FALSE(parse_etcd_connect(bad).ok()) << bad;
  }
}

class EtcdClientTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(etcd.ok()) << "etcd did not start"; }
  EtcdClient client_for() { return EtcdClient({{etcd.endpoint()}, 500ms, 2000ms}); }
  EtcdProcess etcd;
};

TEST_F(EtcdClientTest, CreateOnlyIfAbsentThenRead) {
  EtcdClient c = client_for();
  TxnRequest create;
  create.compare.push_back({"/k", Compare::Target::kCreate, Compare::Result::kEqual, 0, ""});
  create.success.push_back({Op::Kind::kPut, "/k", "", "first", 0});
  create.failure.push_back({Op::Kind::kRange, "/k", "", "", 0});
  auto first = c.txn(create);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->succeeded);
  create.success[0].value = "second";
  auto again = c.txn(create);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->succeeded);
  ASSERT_EQ(again->ranges.size(), 1u);
  ASSERT_EQ(again->ranges[0].kvs.size(), 1u);
  EXPECT_EQ(again->ranges[0].kvs[0].value, "first");
  EXPECT_EQ(again->ranges[0].kvs[0].create_revision, first->revision);
}

TEST_F(EtcdClientTest, PrefixRangeAndDelete) {
  EtcdClient c = client_for();
  TxnRequest puts;
  for (std::string k : {"/p/a", "/p/b", "/q"}) puts.success.push_back({Op::Kind::kPut, k, "", k, 0});
  ASSERT_TRUE(c.txn(puts).ok());
  auto r = c.range("/p/", prefix_end("/p/"));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->kvs.size(), 2u);
  EXPECT_EQ(r->kvs[0].key, "/p/a");
  TxnRequest del;
  del.success.push_back({Op::Kind::kDelete, "/p/", prefix_end("/p/"), "", 0});
  ASSERT_TRUE(c.txn(del).ok());
  EXPECT_TRUE(c.range("/p/", prefix_end("/p/"))->kvs.empty());
  EXPECT_EQ(c.range("/q")->kvs.size(), 1u);
}

TEST_F(EtcdClientTest, KeysOfARevokedLeaseVanish) {
  EtcdClient c = client_for();
  auto lease = c.grant(30);
  ASSERT_TRUE(lease.ok()) << lease.error().message;
  EXPECT_EQ(lease->ttl_s, 30);
  TxnRequest put;
  put.success.push_back({Op::Kind::kPut, "/eph", "", "x", lease->id});
  ASSERT_TRUE(c.txn(put).ok());
  auto kv = c.range("/eph");
  ASSERT_EQ(kv->kvs.size(), 1u);
  EXPECT_EQ(kv->kvs[0].lease, lease->id);
  auto ttl = c.keepalive(lease->id);
  ASSERT_TRUE(ttl.ok()) << ttl.error().message;
  EXPECT_GT(*ttl, 0);
  ASSERT_TRUE(c.revoke(lease->id).ok());
  EXPECT_TRUE(c.range("/eph")->kvs.empty());
  auto gone = c.keepalive(lease->id);
  EXPECT_TRUE(!gone.ok() || *gone == 0);
  auto bad = c.revoke(lease->id);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, EtcdError::Kind::kRejected);
}

TEST_F(EtcdClientTest, WatchSeesPutsAndDeletesInOrder) {
  EtcdClient c = client_for();
  auto start = c.range("/w/", prefix_end("/w/"));
  ASSERT_TRUE(start.ok());
  EtcdWatch watch(etcd.endpoint(), 500ms);
  std::vector<WatchEvent> seen;
  std::thread t([&] {
    auto r = watch.run("/w/", prefix_end("/w/"), start->revision + 1, [&](const WatchMessage& m) {
      for (const auto& e : m.events) seen.push_back(e);
      return seen.size() < 3;
    });
    EXPECT_TRUE(r.ok()) << r.error().message;
  });
  TxnRequest ops;
  ops.success.push_back({Op::Kind::kPut, "/w/1", "", "a", 0});
  ASSERT_TRUE(c.txn(ops).ok());
  ops.success[0].value = "b";
  ASSERT_TRUE(c.txn(ops).ok());
  TxnRequest del;
  del.success.push_back({Op::Kind::kDelete, "/w/1", "", "", 0});
  ASSERT_TRUE(c.txn(del).ok());
  t.join();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].kv.value, "a");
  EXPECT_EQ(seen[1].kv.value, "b");
  EXPECT_TRUE(seen[2].is_delete);
  EXPECT_LT(seen[0].kv.mod_revision, seen[1].kv.mod_revision);
}

TEST_F(EtcdClientTest, StopEndsAQuietWatch) {
  EtcdWatch watch(etcd.endpoint(), 500ms);
  std::atomic<bool> created{false};
  std::thread t([&] {
    auto r = watch.run("/quiet", "", 0, [&](const WatchMessage& m) {
      if (m.created) created = true;
      return true;
    });
    EXPECT_TRUE(r.ok());
  });
  for (int i = 0; i < 100 && !created; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(created);
  const auto t0 = std::chrono::steady_clock::now();
  watch.stop();
  t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

TEST_F(EtcdClientTest, AWatchSilentForItsQuietBoundEndsQuiet) {
  EtcdClient c = client_for();
  EtcdWatch watch(etcd.endpoint(), 500ms, 400ms);
  int messages = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = watch.run("/silent", "", 0, [&](const WatchMessage&) {
    ++messages;  // the creation notice, then nothing
    return true;
  });
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, EtcdError::Kind::kQuiet) << r.error().message;
  EXPECT_EQ(messages, 1);
  EXPECT_GE(took, 350ms);
  EXPECT_LT(took, 3s);
}

TEST_F(EtcdClientTest, ADeadEtcdIsUnavailableNotAHang) {
  EtcdClient c = client_for();
  ASSERT_TRUE(c.range("/x").ok());
  EtcdWatch watch(etcd.endpoint(), 500ms);
  std::optional<Result<void, EtcdError>> ended;
  std::thread t([&] { ended.emplace(watch.run("/x", "", 0, [](const WatchMessage&) { return true; })); });
  std::this_thread::sleep_for(200ms);
  etcd.kill();
  t.join();
  ASSERT_TRUE(ended.has_value());
  ASSERT_FALSE(ended->ok());
  EXPECT_EQ(ended->error().kind, EtcdError::Kind::kUnavailable);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = c.range("/x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, EtcdError::Kind::kUnavailable);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  ASSERT_TRUE(etcd.restart());
  EXPECT_TRUE(c.range("/x").ok());  // the client reconnects by itself
}

TEST_F(EtcdClientTest, FailsOverToAnotherEndpoint) {
  EtcdClient c({{{"127.0.0.1", 1}, etcd.endpoint()}, 500ms, 2000ms});
  EXPECT_TRUE(c.range("/x").ok());
}

}  // namespace
}  // namespace strata::cluster

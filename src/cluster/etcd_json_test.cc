#include "cluster/etcd_json.h"

#include <gtest/gtest.h>

#include "cluster/base64.h"

namespace strata::cluster {
namespace {

TEST(Base64, RoundTripsEveryLengthAndByte) {
  std::string bytes;
  for (int i = 0; i < 300; ++i) {
    auto text = base64_encode(bytes);
    EXPECT_EQ(text.size() % 4, 0u);
    auto back = base64_decode(text);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(*back, bytes);
    bytes.push_back(char(i * 37));
  }
  EXPECT_EQ(base64_encode("/brokers/ids/1"), "L2Jyb2tlcnMvaWRzLzE=");
}

TEST(Base64, RejectsWhatIsNotBase64) {
  EXPECT_FALSE(base64_decode("abc").ok());
  EXPECT_FALSE(base64_decode("ab$=").ok());
}

TEST(EtcdJson, PrefixEndIsTheNextKey) {
  EXPECT_EQ(prefix_end("/a/"), "/a0");
  EXPECT_EQ(prefix_end("ab\xff"), "ac");
  EXPECT_EQ(prefix_end("\xff\xff"), std::string(1, '\0'));
}

// Shapes as the 3.4 gateway sends them: int64 as strings, zero fields left out.
TEST(EtcdJson, ParsesARange) {
  auto r = parse_range(R"({"header":{"cluster_id":"14841639068965178418","member_id":"10276657743932975437","revision":"7","raft_term":"2"},
    "kvs":[{"key":"L2NsdXN0ZXIvaWQ=","create_revision":"2","mod_revision":"5","version":"3",
    "value":"eyJ2IjoxfQ==","lease":"7587869"}],"count":"1"})");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->revision, 7);
  ASSERT_EQ(r->kvs.size(), 1u);
  EXPECT_EQ(r->kvs[0].key, "/cluster/id");
  EXPECT_EQ(r->kvs[0].value, "{\"v\":1}");
  EXPECT_EQ(r->kvs[0].create_revision, 2);
  EXPECT_EQ(r->kvs[0].mod_revision, 5);
  EXPECT_EQ(r->kvs[0].version, 3);
  EXPECT_EQ(r->kvs[0].lease, 7587869);
  EXPECT_EQ(r->count, 1);
}

TEST(EtcdJson, AnEmptyRangeHasNoKvs) {
  auto r = parse_range(R"({"header":{"revision":"3"}})");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->kvs.empty());
  EXPECT_EQ(r->count, 0);
}

TEST(EtcdJson, ParsesATxnThatFailed) {
  auto t = parse_txn(R"({"header":{"revision":"9"},"responses":[{"response_range":{"header":{"revision":"9"},
    "kvs":[{"key":"YQ==","create_revision":"4","mod_revision":"4","version":"1","value":"Yg=="}],"count":"1"}}]})");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_FALSE(t->succeeded);
  EXPECT_EQ(t->revision, 9);
  ASSERT_EQ(t->ranges.size(), 1u);
  EXPECT_EQ(t->ranges[0].kvs[0].value, "b");
}

TEST(EtcdJson, ParsesATxnThatSucceeded) {
  auto t = parse_txn(R"({"header":{"revision":"10"},"succeeded":true,"responses":[{"response_put":{"header":{"revision":"10"}}}]})");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->succeeded);
  EXPECT_TRUE(t->ranges.empty());
}

TEST(EtcdJson, ParsesWatchMessages) {
  auto created = parse_watch_message(R"({"result":{"header":{"revision":"4"},"created":true}})");
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(created->created);
  auto events = parse_watch_message(R"({"result":{"header":{"revision":"6"},"events":[
    {"kv":{"key":"YQ==","create_revision":"5","mod_revision":"5","version":"1","value":"MQ=="}},
    {"type":"DELETE","kv":{"key":"Yg==","mod_revision":"6"}}]}})");
  ASSERT_TRUE(events.ok()) << events.error();
  ASSERT_EQ(events->events.size(), 2u);
  EXPECT_FALSE(events->events[0].is_delete);
  EXPECT_EQ(events->events[0].kv.value, "1");
  EXPECT_TRUE(events->events[1].is_delete);
  EXPECT_EQ(events->events[1].kv.key, "b");
  auto compacted = parse_watch_message(
      R"({"result":{"header":{"revision":"90"},"canceled":true,"compact_revision":"50"}})");
  ASSERT_TRUE(compacted.ok());
  EXPECT_TRUE(compacted->canceled);
  EXPECT_EQ(compacted->compact_revision, 50);
  // What the gateway sends when a member without a leader ends a require-leader watch.
  auto no_leader = parse_watch_message(
      R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader"}})");
  ASSERT_FALSE(no_leader.ok());
  EXPECT_NE(no_leader.error().find("no leader"), std::string::npos) << no_leader.error();
}

TEST(EtcdJson, ParsesLeases) {
  auto g = parse_lease_grant(R"({"header":{"revision":"3"},"ID":"7587869384751723271","TTL":"18"})");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->id, 7587869384751723271);
  EXPECT_EQ(g->ttl_s, 18);
  auto alive = parse_keepalive(R"({"result":{"header":{"revision":"3"},"ID":"7587869384751723271","TTL":"18"}})");
  ASSERT_TRUE(alive.ok());
  EXPECT_EQ(*alive, 18);
  auto gone = parse_keepalive(R"({"result":{"header":{"revision":"3"},"ID":"7587869384751723271"}})");
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(*gone, 0);
}

TEST(EtcdJson, GatewayErrorsAreErrors) {
  auto e = parse_range(R"({"error":"etcdserver: request is too large","code":3,"message":"etcdserver: request is too large"})");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("request is too large"), std::string::npos);
  EXPECT_TRUE(gateway_error_object(R"({"code":5,"message":"requested lease not found"})").has_value());
  EXPECT_FALSE(gateway_error_object(R"({"header":{}})").has_value());
}

TEST(EtcdJson, BadBodiesAreErrorsNotCrashes) {
  for (const char* body : {"", "[]", "{", "null", R"({"kvs":3})", R"({"kvs":[{"key":"***"}]})",
                           R"({"count":"x"})", R"({"count":{}})", R"({"header":{"revision":[1]}})"}) {
    EXPECT_FALSE(parse_range(body).ok()) << body;
  }
  EXPECT_FALSE(parse_watch_message(R"({"result":{"events":[{"type":"PUT"}]}})").ok());
  EXPECT_FALSE(parse_lease_grant(R"({"TTL":"5"})").ok());
}

TEST(EtcdJson, TxnBodyNamesTargetsAndOps) {
  TxnRequest t;
  t.compare.push_back({"/controller", Compare::Target::kCreate, Compare::Result::kEqual, 0, ""});
  t.success.push_back({Op::Kind::kPut, "/controller", "", "{}", 42});
  t.failure.push_back({Op::Kind::kRange, "/controller", "", "", 0});
  const std::string body = txn_body(t);
  EXPECT_NE(body.find(R"("target":"CREATE")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("result":"EQUAL")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("create_revision":"0")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("lease":"42")"), std::string::npos) << body;
  EXPECT_NE(body.find("request_range"), std::string::npos) << body;
}

}  // namespace
}  // namespace strata::cluster

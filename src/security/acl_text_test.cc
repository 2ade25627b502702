// ACLs' stored texts: <log.dir>/acls.json and the cluster's etcd keys and values
// (docs/formats/acls.md). The rest of acl.h is tested in acl_test.cc.
#include "security/acl.h"

#include <gtest/gtest.h>

#include <random>

#include "common/kafka_errors.h"
#include "security/acl_test_util.h"

namespace strata::security {
namespace {

using namespace test;  // AT, PT, PM, RT, acl()

AclBinding good() {
  return acl(RT::kTopic, "orders", PT::kLiteral, "User:alice", "*", AT::kWrite, PM::kAllow);
}

// ---- acls.json --------------------------------------------------------------------------

constexpr std::string_view kOneAclText =
    R"({"version":1,"acls":[{"resourceType":"TOPIC","name":"a","patternType":"LITERAL",)"
    R"("principal":"User:alice","host":"*","operation":"WRITE","permissionType":"ALLOW"}]})"
    "\n";

TEST(AclsJson, DocumentedText) {
  const std::vector<AclBinding> one = {
      acl(RT::kTopic, "a", PT::kLiteral, "User:alice", "*", AT::kWrite, PM::kAllow)};
  EXPECT_EQ(encode_acls(one), kOneAclText);
  auto back = decode_acls(kOneAclText);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, one);
  EXPECT_EQ(encode_acls({}), "{\"version\":1,\"acls\":[]}\n");
}

TEST(AclsJson, RoundTripsEveryKindOfBinding) {
  std::vector<AclBinding> acls;
  for (int8_t t = 2; t <= 7; ++t) {
    for (int8_t op = 2; op <= 14; ++op) {
      const RT type = resource_type_from_code(t);
      acls.push_back(acl(type, type == RT::kCluster ? "kafka-cluster" : "n\"\\/\xc3\xa9\n",
                         op % 2 ? PT::kLiteral : PT::kPrefixed, "User:CN=x,O=\"y\"",
                         op % 3 ? "*" : "::1", acl_operation_from_code(op),
                         op % 2 ? PM::kAllow : PM::kDeny));
    }
  }
  auto back = decode_acls(encode_acls(acls));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, acls);
}

TEST(AclsJson, AcceptsKafkasOtherSpellingsAndExtraKeys) {
  auto back = decode_acls(
      R"({"acls":[{"host":"*","permissionType":"Deny","operation":"ClusterAction",)"
      R"("principal":"User:b","patternType":"prefixed","name":"x","resourceType":"Topic",)"
      R"("comment":"ignored"}],"version":1,"extra":[1,2]})");
  ASSERT_TRUE(back) << back.error();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0],
            acl(RT::kTopic, "x", PT::kPrefixed, "User:b", "*", AT::kClusterAction, PM::kDeny));
}

std::string decode_error(std::string_view text) {
  auto r = decode_acls(text);
  return r ? "(decoded)" : r.error();
}

TEST(AclsJson, NamedRefusals) {
  EXPECT_EQ(decode_error(""), "not JSON");
  EXPECT_EQ(decode_error("{"), "not JSON");
  EXPECT_EQ(decode_error(std::string_view("\x00\xff garbage", 10)), "not JSON");
  EXPECT_EQ(decode_error("[]"), "not a JSON object");
  EXPECT_EQ(decode_error(R"({"acls":[]})"), "no integer \"version\"");
  EXPECT_EQ(decode_error(R"({"version":"1","acls":[]})"), "no integer \"version\"");
  EXPECT_EQ(decode_error(R"({"version":1.0,"acls":[]})"), "no integer \"version\"");
  EXPECT_EQ(decode_error(R"({"version":2,"acls":[]})"), "unsupported version 2");
  EXPECT_EQ(decode_error(R"({"version":1})"), "no \"acls\" array");
  EXPECT_EQ(decode_error(R"({"version":1,"acls":{}})"), "no \"acls\" array");
  EXPECT_EQ(decode_error(R"({"version":1,"acls":[7]})"), "acls[0]: not a JSON object");
  std::string text(kOneAclText);
  auto replaced = [&text](std::string_view from, std::string_view to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_EQ(decode_error(replaced(R"("host":"*",)", "")),
            "acls[0]: \"host\" is missing or not a string");
  EXPECT_EQ(decode_error(replaced(R"("name":"a")", R"("name":null)")),
            "acls[0]: \"name\" is missing or not a string");
  EXPECT_EQ(decode_error(replaced("WRITE", "WRITES")), "acls[0]: Invalid operation UNKNOWN");
  EXPECT_EQ(decode_error(replaced("\"ALLOW\"", "\"ANY\"")), "acls[0]: Invalid permissionType ANY");
  EXPECT_EQ(decode_error(replaced("\"LITERAL\"", "\"MATCH\"")),
            "acls[0]: Invalid patternType MATCH");
  EXPECT_EQ(decode_error(replaced("\"TOPIC\"", "\"ANY\"")), "acls[0]: Invalid resourceType ANY");
  EXPECT_EQ(decode_error(replaced("\"User:alice\"", "\"alice\"")).substr(0, 42),
            "acls[0]: Could not parse principal from `a");
  EXPECT_EQ(decode_error(replaced("\"a\"", "\"\"")), "acls[0]: Invalid empty resource name");
  EXPECT_EQ(decode_error(replaced("\"a\"", "\"\xff\"")), "not JSON");  // nlohmann checks UTF-8
  EXPECT_EQ(decode_error(std::string(kAclsTextBytesMax + 1, ' ')),
            "larger than " + std::to_string(kAclsTextBytesMax) + " bytes");
  // An ACL is named by its index.
  std::string two = encode_acls({good(), good()});
  two.replace(two.rfind("User:alice"), 10, "alice");
  EXPECT_EQ(decode_error(two).substr(0, 9), "acls[1]: ");
}

TEST(AclsJson, EveryTruncationIsRefused) {
  const std::string text = encode_acls({good(), good()});
  for (size_t n = 0; n + 1 < text.size(); ++n) {  // the newline may go
    EXPECT_FALSE(decode_acls(std::string_view(text).substr(0, n))) << n;
  }
  EXPECT_TRUE(decode_acls(std::string_view(text).substr(0, text.size() - 1)));
}

TEST(AclsJson, DeepNestingIsRefusedWithoutRecursion) {
  const size_t depth = 200000;
  const std::string text =
      R"({"version":1,"acls":)" + std::string(depth, '[') + std::string(depth, ']') + "}";
  EXPECT_EQ(decode_error(text), "acls[0]: not a JSON object");
  EXPECT_EQ(decode_error(std::string(depth, '[')), "not JSON");
}

TEST(AclsJson, RandomBytesNeverCrash) {
  std::mt19937 rng(7);
  const std::string base(kOneAclText);
  for (int i = 0; i < 3000; ++i) {
    std::string t = base;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) t[rng() % t.size()] = char(rng() % 256);
    auto r = decode_acls(t);
    if (r) {
      for (const AclBinding& b : *r) EXPECT_TRUE(validate_acl_binding(b));
    }
  }
}

// ---- the cluster's keys and values (Kafka's ZooKeeper layout) --------------------------

TEST(ZkAcls, KafkasPaths) {
  EXPECT_EQ(zk_acl_path({RT::kTopic, "topic-1", PT::kLiteral}), "/kafka-acl/Topic/topic-1");
  EXPECT_EQ(zk_acl_path({RT::kCluster, "kafka-cluster", PT::kLiteral}),
            "/kafka-acl/Cluster/kafka-cluster");
  EXPECT_EQ(zk_acl_path({RT::kGroup, "group-1", PT::kPrefixed}),
            "/kafka-acl-extended/prefixed/Group/group-1");
  EXPECT_EQ(zk_acl_path({RT::kTransactionalId, "tx", PT::kLiteral}),
            "/kafka-acl/TransactionalId/tx");
  for (const AclResource& r :
       {AclResource{RT::kTopic, "a", PT::kLiteral}, AclResource{RT::kGroup, "a/b/", PT::kPrefixed},
        AclResource{RT::kDelegationToken, "*", PT::kLiteral},
        AclResource{RT::kUser, "User:x", PT::kPrefixed}}) {
    EXPECT_EQ(parse_zk_acl_path(zk_acl_path(r)), r) << zk_acl_path(r);
  }
}

TEST(ZkAcls, OtherKeysAreNotAcls) {
  for (std::string_view p :
       {"", "/kafka-acl", "/kafka-acl/", "/kafka-acl/Topic", "/kafka-acl/Topic/",
        "/kafka-acl/Topics/a", "/kafka-acl/Any/a", "/kafka-acl/Unknown/a",
        "/kafka-acl-extended/literal/Topic/a", "/kafka-acl-extended/prefixed/Topic",
        "/kafka-acl-changes/acl_0001", "/config/users/alice", "kafka-acl/Topic/a"}) {
    EXPECT_FALSE(parse_zk_acl_path(p)) << p;
  }
}

TEST(ZkAcls, KafkasValueText) {
  const std::vector<ZkAclEntry> one = {{"User:alice", PM::kAllow, AT::kRead, "*"}};
  EXPECT_EQ(encode_zk_acls(one),
            R"({"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow",)"
            R"("operation":"Read","host":"*"}]})");
  // AclEntry's documented example, and ZkData's.
  auto a = decode_zk_acls(R"({
            "version": 1,
            "acls": [ { "host":"host1", "permissionType": "Deny", "operation": "Read",
                        "principal": "User:alice" } ] })");
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(*a, (std::vector<ZkAclEntry>{{"User:alice", PM::kDeny, AT::kRead, "host1"}}));
  a = decode_zk_acls(
      R"({"version":1,"acls":[{"host":"*","permissionType":"ALLOW","operation":"describeconfigs",)"
      R"("principal":"User:*"}]})");
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(*a, (std::vector<ZkAclEntry>{{"User:*", PM::kAllow, AT::kDescribeConfigs, "*"}}));
  EXPECT_TRUE(decode_zk_acls("")->empty());  // Kafka: no bytes, no ACLs
}

TEST(ZkAcls, RoundTripWithBindings) {
  const AclBinding b =
      acl(RT::kGroup, "g", PT::kPrefixed, "User:bob", "10.0.0.1", AT::kIdempotentWrite, PM::kDeny);
  EXPECT_EQ(binding_of(resource_of(b), entry_of(b)), b);
  std::vector<ZkAclEntry> entries;
  for (int8_t op = 2; op <= 14; ++op) {
    entries.push_back({"User:u" + std::to_string(op), op % 2 ? PM::kAllow : PM::kDeny,
                       acl_operation_from_code(op), op % 2 ? "*" : "10.0.0.1"});
  }
  auto back = decode_zk_acls(encode_zk_acls(entries));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, entries);
}

TEST(ZkAcls, NamedRefusals) {
  auto error = [](std::string_view text) {
    auto r = decode_zk_acls(text);
    return r ? std::string("(decoded)") : r.error();
  };
  EXPECT_EQ(error("{}}"), "not JSON");
  EXPECT_EQ(error(R"({"version":0,"acls":[]})"), "unsupported version 0");
  const std::string entry = R"("principal":"User:a","permissionType":"Allow","host":"*")";
  EXPECT_EQ(error(R"({"version":1,"acls":[{)" + entry + "}]}"),
            "acls[0]: \"operation\" is missing or not a string");
  EXPECT_EQ(error(R"({"version":1,"acls":[{)" + entry + R"(,"operation":"Read_"}]})"),
            "acls[0]: Invalid operation UNKNOWN");
  EXPECT_EQ(error(R"({"version":1,"acls":[{)" + entry + R"(,"operation":"Any"}]})"),
            "acls[0]: Invalid operation ANY");
  EXPECT_EQ(
      error(
          R"({"version":1,"acls":[{"principal":"a","permissionType":"Allow","host":"*","operation":"Read"}]})")
          .substr(0, 39),
      "acls[0]: Could not parse principal from");
  EXPECT_EQ(
      error(
          R"({"version":1,"acls":[{"principal":"User:a","permissionType":"Any","host":"*","operation":"Read"}]})"),
      "acls[0]: Invalid permissionType ANY");
  EXPECT_EQ(error(std::string(kZkAclsTextBytesMax + 1, ' ')),
            "larger than " + std::to_string(kZkAclsTextBytesMax) + " bytes");
  const std::string text = encode_zk_acls({{"User:a", PM::kAllow, AT::kRead, "*"}});
  for (size_t n = 1; n < text.size(); ++n) {
    EXPECT_FALSE(decode_zk_acls(std::string_view(text).substr(0, n))) << n;
  }
}

}  // namespace
}  // namespace strata::security

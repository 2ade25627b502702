#include "security/acl.h"

#include <gtest/gtest.h>

#include <random>

#include "common/kafka_errors.h"
#include "security/acl_test_util.h"

namespace strata::security {
namespace {

using namespace test;  // AT, PT, PM, RT, acl()

// ---- enums ------------------------------------------------------------------------------

TEST(AclEnums, KafkasCodes) {
  static_assert(acl_code(RT::kAny) == 1 && acl_code(RT::kTopic) == 2 && acl_code(RT::kUser) == 7);
  static_assert(acl_code(PT::kMatch) == 2 && acl_code(PT::kLiteral) == 3);
  static_assert(acl_code(PT::kPrefixed) == 4);
  static_assert(acl_code(AT::kAll) == 2 && acl_code(AT::kClusterAction) == 9);
  static_assert(acl_code(AT::kDescribeTokens) == 14);
  static_assert(acl_code(PM::kDeny) == 2 && acl_code(PM::kAllow) == 3);
  EXPECT_EQ(resource_type_from_code(5), RT::kTransactionalId);
  EXPECT_EQ(resource_type_from_code(8), RT::kUnknown);
  EXPECT_EQ(resource_type_from_code(-1), RT::kUnknown);
  EXPECT_EQ(pattern_type_from_code(4), PT::kPrefixed);
  EXPECT_EQ(pattern_type_from_code(5), PT::kUnknown);
  EXPECT_EQ(acl_operation_from_code(12), AT::kIdempotentWrite);
  EXPECT_EQ(acl_operation_from_code(15), AT::kUnknown);
  EXPECT_EQ(permission_type_from_code(3), PM::kAllow);
  EXPECT_EQ(permission_type_from_code(4), PM::kUnknown);
}

TEST(AclEnums, NamesRoundTripEveryCode) {
  for (int8_t c = 0; c <= 7; ++c) {
    const RT t = resource_type_from_code(c);
    EXPECT_EQ(resource_type_from_name(acl_name(t)), t);
    EXPECT_EQ(resource_type_from_name(acl_pascal_name(t)), t);
  }
  for (int8_t c = 0; c <= 4; ++c) {
    EXPECT_EQ(pattern_type_from_name(acl_name(pattern_type_from_code(c))),
              pattern_type_from_code(c));
  }
  for (int8_t c = 0; c <= 14; ++c) {
    const AT op = acl_operation_from_code(c);
    EXPECT_EQ(acl_operation_from_name(acl_name(op)), op);
    EXPECT_EQ(acl_operation_from_name(acl_pascal_name(op)), op);
  }
  for (int8_t c = 0; c <= 3; ++c) {
    const PM p = permission_type_from_code(c);
    EXPECT_EQ(permission_type_from_name(acl_name(p)), p);
    EXPECT_EQ(permission_type_from_name(acl_pascal_name(p)), p);
  }
}

TEST(AclEnums, KafkasTexts) {
  EXPECT_EQ(acl_name(RT::kTransactionalId), "TRANSACTIONAL_ID");
  EXPECT_EQ(acl_pascal_name(RT::kTransactionalId), "TransactionalId");
  EXPECT_EQ(acl_pascal_name(RT::kDelegationToken), "DelegationToken");
  EXPECT_EQ(acl_name(AT::kDescribeConfigs), "DESCRIBE_CONFIGS");
  EXPECT_EQ(acl_pascal_name(AT::kClusterAction), "ClusterAction");
  EXPECT_EQ(acl_pascal_name(AT::kIdempotentWrite), "IdempotentWrite");
  EXPECT_EQ(acl_name(PT::kPrefixed), "PREFIXED");
  EXPECT_EQ(acl_pascal_name(PM::kAllow), "Allow");
  // An enum holding a code Kafka does not define (cast from a wire byte) reads UNKNOWN.
  EXPECT_EQ(acl_name(AT(99)), "UNKNOWN");
}

TEST(AclEnums, ParsesAnyCaseEitherForm) {
  for (std::string_view s : {"Read", "read", "READ", "rEaD"}) {
    EXPECT_EQ(acl_operation_from_name(s), AT::kRead) << s;
  }
  for (std::string_view s :
       {"ClusterAction", "clusteraction", "CLUSTERACTION", "CLUSTER_ACTION", "cluster_action"}) {
    EXPECT_EQ(acl_operation_from_name(s), AT::kClusterAction) << s;
  }
  EXPECT_EQ(resource_type_from_name("transactionalid"), RT::kTransactionalId);
  EXPECT_EQ(resource_type_from_name("Transactional_Id"), RT::kTransactionalId);
  EXPECT_EQ(pattern_type_from_name("prefixed"), PT::kPrefixed);
  EXPECT_EQ(permission_type_from_name("allow"), PM::kAllow);
  for (std::string_view s : {"", "Reads", "Cluster-Action", "_READ", "READ ", "Ｒead"}) {
    EXPECT_EQ(acl_operation_from_name(s), AT::kUnknown) << s;
  }
  EXPECT_EQ(resource_type_from_name("topics"), RT::kUnknown);
  EXPECT_EQ(pattern_type_from_name("prefix"), PT::kUnknown);
  EXPECT_EQ(permission_type_from_name("allowed"), PM::kUnknown);
}

// ---- validation -------------------------------------------------------------------------

AclBinding good() {
  return acl(RT::kTopic, "orders", PT::kLiteral, "User:alice", "*", AT::kWrite, PM::kAllow);
}

std::string refusal(const AclBinding& b) {
  auto r = validate_acl_binding(b);
  if (r) return "(accepted)";
  EXPECT_EQ(r.error().error_code, kafka_error::kInvalidRequest);
  return r.error().message;
}

TEST(AclValidate, AcceptsConcreteBindings) {
  EXPECT_TRUE(validate_acl_binding(good()));
  auto b = good();
  b.pattern = PT::kPrefixed;
  EXPECT_TRUE(validate_acl_binding(b));
  b.name = "*";  // a PREFIXED "*" is a prefix, as in Kafka
  EXPECT_TRUE(validate_acl_binding(b));
  b = acl(RT::kCluster, "kafka-cluster", PT::kLiteral, "User:*", "10.0.0.1", AT::kAll, PM::kDeny);
  EXPECT_TRUE(validate_acl_binding(b));
  b = acl(RT::kGroup, "a/b", PT::kLiteral, "Group:", "*", AT::kRead, PM::kAllow);
  EXPECT_TRUE(validate_acl_binding(b));  // '/' in a name; Kafka's split allows an empty name
}

TEST(AclValidate, KafkasMessagesInKafkasOrder) {
  auto b = good();
  b.type = RT::kAny;
  b.pattern = PT::kMatch;
  EXPECT_EQ(refusal(b), "Invalid resourceType ANY");
  b.type = RT::kUnknown;
  EXPECT_EQ(refusal(b), "Invalid resourceType UNKNOWN");
  b.type = RT(42);
  EXPECT_EQ(refusal(b), "Invalid resourceType UNKNOWN");
  b.type = RT::kTopic;
  EXPECT_EQ(refusal(b), "Invalid patternType MATCH");
  b.pattern = PT::kAny;
  EXPECT_EQ(refusal(b), "Invalid patternType ANY");
  b.pattern = PT::kLiteral;
  b.operation = AT::kAny;
  b.permission = PM::kAny;
  EXPECT_EQ(refusal(b), "Invalid operation ANY");
  b.operation = AT::kUnknown;
  EXPECT_EQ(refusal(b), "Invalid operation UNKNOWN");
  b.operation = AT::kRead;
  EXPECT_EQ(refusal(b), "Invalid permissionType ANY");
  b.permission = PM::kUnknown;
  EXPECT_EQ(refusal(b), "Invalid permissionType UNKNOWN");
  b.permission = PM::kDeny;
  b.name = "";
  EXPECT_EQ(refusal(b), "Invalid empty resource name");
  b.type = RT::kCluster;
  EXPECT_EQ(refusal(b), "The only valid name for the CLUSTER resource is kafka-cluster");
  b.name = "my-cluster";
  EXPECT_EQ(refusal(b), "The only valid name for the CLUSTER resource is kafka-cluster");
}

TEST(AclValidate, StricterThanKafka) {
  auto b = good();
  b.principal = "alice";
  EXPECT_EQ(refusal(b),
            "Could not parse principal from `alice` (no colon is present separating the "
            "principal type from the principal name)");
  b.principal = "";
  EXPECT_NE(refusal(b), "(accepted)");
  b = good();
  b.host = "";
  EXPECT_EQ(refusal(b), "Invalid empty host");
  b = good();
  b.name = "bad\xff";
  EXPECT_EQ(refusal(b), "The resource name is not valid UTF-8");
  b = good();
  b.principal = "User:\xc0\xaf";  // overlong '/'
  EXPECT_EQ(refusal(b), "The principal is not valid UTF-8");
  b = good();
  b.host = "\xed\xa0\x80";  // a surrogate
  EXPECT_EQ(refusal(b), "The host is not valid UTF-8");
  b = good();
  b.name = "caf\xc3\xa9-\xf0\x9f\x98\x80";  // é and an emoji are fine
  EXPECT_TRUE(validate_acl_binding(b));
}

TEST(AclValidate, Filters) {
  EXPECT_TRUE(validate_acl_filter(AclFilter{}));
  AclFilter f;
  f.type = RT::kUnknown;
  EXPECT_EQ(validate_acl_filter(f).error(),
            (AclError{kafka_error::kInvalidRequest, "Unknown patternFilter."}));
  f = {};
  f.pattern = PT::kUnknown;
  EXPECT_EQ(validate_acl_filter(f).error().message, "Unknown patternFilter.");
  f = {};
  f.operation = AT::kUnknown;
  EXPECT_EQ(validate_acl_filter(f).error().message, "Unknown entryFilter.");
  f = {};
  f.permission = PM::kUnknown;
  EXPECT_EQ(validate_acl_filter(f).error().message, "Unknown entryFilter.");
}

TEST(AclBinding, KafkasToString) {
  EXPECT_EQ(to_string(good()),
            "(pattern=ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL), "
            "entry=(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW))");
}

// ---- filters (Kafka's ResourcePatternFilterTest, case by case) -------------------------

struct FilterCase {
  const char* name;
  RT filter_type;
  std::optional<std::string> filter_name;
  PT filter_pattern;
  RT type;
  std::string resource;
  PT pattern;
  bool matches;
};

TEST(AclFilter, KafkasResourcePatternFilterCases) {
  const std::optional<std::string> any;
  const FilterCase cases[] = {
      {"DifferentResourceType", RT::kTopic, "Name", PT::kLiteral, RT::kGroup, "Name", PT::kLiteral,
       false},
      {"DifferentName", RT::kTopic, "Different", PT::kPrefixed, RT::kTopic, "Name", PT::kPrefixed,
       false},
      {"DifferentNameCase", RT::kTopic, "NAME", PT::kLiteral, RT::kTopic, "Name", PT::kLiteral,
       false},
      {"DifferentPatternType", RT::kTopic, "Name", PT::kLiteral, RT::kTopic, "Name", PT::kPrefixed,
       false},
      {"ResourceTypeIsAny", RT::kAny, "Name", PT::kPrefixed, RT::kTopic, "Name", PT::kPrefixed,
       true},
      {"ResourceNameIsAny", RT::kTopic, any, PT::kPrefixed, RT::kTopic, "Name", PT::kPrefixed,
       true},
      {"PatternTypeIsAny", RT::kTopic, any, PT::kAny, RT::kTopic, "Name", PT::kPrefixed, true},
      {"PatternTypeIsMatch", RT::kTopic, any, PT::kMatch, RT::kTopic, "Name", PT::kPrefixed, true},
      {"LiteralExact", RT::kTopic, "Name", PT::kLiteral, RT::kTopic, "Name", PT::kLiteral, true},
      {"LiteralUnderAny", RT::kTopic, "Name", PT::kAny, RT::kTopic, "Name", PT::kLiteral, true},
      {"LiteralUnderMatch", RT::kTopic, "Name", PT::kMatch, RT::kTopic, "Name", PT::kLiteral, true},
      {"LiteralNotIfNamePrefixed", RT::kTopic, "Name-something", PT::kMatch, RT::kTopic, "Name",
       PT::kLiteral, false},
      {"LiteralWildcardExact", RT::kTopic, "*", PT::kLiteral, RT::kTopic, "*", PT::kLiteral, true},
      {"LiteralWildcardNotOtherName", RT::kTopic, "Name", PT::kLiteral, RT::kTopic, "*",
       PT::kLiteral, false},
      {"LiteralWildcardNotTheWayAround", RT::kTopic, "*", PT::kLiteral, RT::kTopic, "Name",
       PT::kLiteral, false},
      {"LiteralWildcardNotUnderAny", RT::kTopic, "Name", PT::kAny, RT::kTopic, "*", PT::kLiteral,
       false},
      {"LiteralWildcardUnderMatch", RT::kTopic, "Name", PT::kMatch, RT::kTopic, "*", PT::kLiteral,
       true},
      {"PrefixedExact", RT::kTopic, "Name", PT::kPrefixed, RT::kTopic, "Name", PT::kPrefixed, true},
      {"BothPrefixedFilterPrefixOfResource", RT::kTopic, "Name", PT::kPrefixed, RT::kTopic,
       "Name-something", PT::kPrefixed, false},
      {"BothPrefixedResourcePrefixOfFilter", RT::kTopic, "Name-something", PT::kPrefixed,
       RT::kTopic, "Name", PT::kPrefixed, false},
      {"PrefixedNotUnderAny", RT::kTopic, "Name-something", PT::kAny, RT::kTopic, "Name",
       PT::kPrefixed, false},
      {"PrefixedUnderMatch", RT::kTopic, "Name-something", PT::kMatch, RT::kTopic, "Name",
       PT::kPrefixed, true},
  };
  for (const FilterCase& c : cases) {
    AclFilter f;
    f.type = c.filter_type;
    f.name = c.filter_name;
    f.pattern = c.filter_pattern;
    const AclBinding b = acl(c.type, c.resource, c.pattern, "User:a", "*", AT::kRead, PM::kAllow);
    EXPECT_EQ(matches(f, b), c.matches) << c.name;
  }
}

TEST(AclFilter, EntryPartNullMatchesAnyAndNoImplication) {
  const AclBinding b =
      acl(RT::kTopic, "t", PT::kLiteral, "User:alice", "10.0.0.1", AT::kRead, PM::kAllow);
  AclFilter f;
  EXPECT_TRUE(matches(f, b));
  f.principal = "User:alice";
  f.host = "10.0.0.1";
  f.operation = AT::kRead;
  f.permission = PM::kAllow;
  EXPECT_TRUE(matches(f, b));
  f.operation = AT::kDescribe;  // READ implies DESCRIBE when authorizing, not when filtering
  EXPECT_FALSE(matches(f, b));
  f.operation = AT::kAny;
  f.principal = "User:*";  // the wildcard principal is a value here, not a wildcard
  EXPECT_FALSE(matches(f, b));
  f.principal.reset();
  f.host = "*";
  EXPECT_FALSE(matches(f, b));
  f.host.reset();
  f.permission = PM::kDeny;
  EXPECT_FALSE(matches(f, b));
}

// ---- AclSet -----------------------------------------------------------------------------

TEST(AclSet, SortedWithoutDuplicatesAndImmutable) {
  const AclBinding a = good();
  AclBinding b = good();
  b.name = "aaa";
  const AclSet s({a, b, a});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.bindings()[0], b);
  EXPECT_TRUE(s.contains(a));
  const AclSet copy = s;
  const AclSet more =
      s.with({a, acl(RT::kGroup, "g", PT::kLiteral, "User:x", "*", AT::kRead, PM::kAllow)});
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(copy.size(), 2u);
  EXPECT_EQ(more.size(), 3u);
  const AclSet fewer =
      more.without({a, a, acl(RT::kUser, "u", PT::kLiteral, "User:x", "*", AT::kAll, PM::kDeny)});
  EXPECT_EQ(fewer.size(), 2u);
  EXPECT_FALSE(fewer.contains(a));
  EXPECT_TRUE(more.contains(a));
  EXPECT_TRUE(AclSet().empty());
}

TEST(AclSet, MatchingKeepsEachResourceTogether) {
  const AclSet s({
      acl(RT::kTopic, "b", PT::kLiteral, "User:x", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "a", PT::kPrefixed, "User:y", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "a", PT::kLiteral, "User:y", "*", AT::kWrite, PM::kAllow),
      acl(RT::kGroup, "a", PT::kLiteral, "User:y", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "a", PT::kLiteral, "User:x", "*", AT::kRead, PM::kDeny),
  });
  AclFilter f;
  f.type = RT::kTopic;
  const auto got = s.matching(f);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].name, "a");
  EXPECT_EQ(got[0].pattern, PT::kLiteral);
  EXPECT_EQ(got[1].pattern, PT::kLiteral);
  EXPECT_EQ(got[2].pattern, PT::kPrefixed);
  EXPECT_EQ(got[3].name, "b");
  f.name = "abc";
  f.pattern = PT::kMatch;  // what applies to topic "abc": the PREFIXED "a"
  ASSERT_EQ(s.matching(f).size(), 1u);
  EXPECT_EQ(s.matching(f)[0].pattern, PT::kPrefixed);
}

// ---- authorize --------------------------------------------------------------------------

struct Authz {
  AclSet acls;
  AuthorizerConfig config;

  AuthorizeDecision decide(std::string_view user, AT op, RT type, std::string_view name,
                           std::string_view host = "127.0.0.1") const {
    const std::string principal = "User:" + std::string(user);
    return authorize(acls, config, AuthorizeRequest{principal, host, op, type, name});
  }
  bool allowed(std::string_view user, AT op, RT type, std::string_view name,
               std::string_view host = "127.0.0.1") const {
    return decide(user, op, type, name, host).allowed;
  }
};

Authz with(std::vector<AclBinding> acls, bool allow_if_none = false) {
  Authz a{AclSet(std::move(acls)), {}};
  a.config.super_users = {"User:superman"};
  a.config.allow_everyone_if_no_acl_found = allow_if_none;
  return a;
}

TEST(Authorize, DenyOverridesAllow) {
  const Authz a = with({
      acl(RT::kTopic, "t", PT::kLiteral, "User:alice", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "t", PT::kLiteral, "User:*", "*", AT::kRead, PM::kDeny),
  });
  const AuthorizeDecision d = a.decide("alice", AT::kRead, RT::kTopic, "t");
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.rule, AuthorizeRule::kDenyAcl);
  ASSERT_NE(d.acl, nullptr);
  EXPECT_EQ(d.acl->permission, PM::kDeny);
  EXPECT_EQ(to_string(d), "MatchingAcl(acl=" + to_string(*d.acl) + ")");
  // A DENY found through a prefix or the wildcard wins as well.
  const Authz b = with({
      acl(RT::kTopic, "t", PT::kLiteral, "User:alice", "*", AT::kAll, PM::kAllow),
      acl(RT::kTopic, "*", PT::kLiteral, "User:alice", "*", AT::kWrite, PM::kDeny),
      acl(RT::kTopic, "t", PT::kPrefixed, "User:alice", "*", AT::kDelete, PM::kDeny),
  });
  EXPECT_TRUE(b.allowed("alice", AT::kRead, RT::kTopic, "t"));
  EXPECT_FALSE(b.allowed("alice", AT::kWrite, RT::kTopic, "t"));
  EXPECT_FALSE(b.allowed("alice", AT::kDelete, RT::kTopic, "t"));
}

// Kafka's StandardAuthorizerTest.testDenyPrecedenceWithOperationAll.
TEST(Authorize, KafkasDenyPrecedenceWithOperationAll) {
  const Authz a = with({
      acl(RT::kTopic, "foo", PT::kLiteral, "User:alice", "*", AT::kAll, PM::kDeny),
      acl(RT::kTopic, "foo", PT::kPrefixed, "User:alice", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "foo", PT::kLiteral, "User:*", "*", AT::kAll, PM::kDeny),
      acl(RT::kTopic, "foo", PT::kPrefixed, "User:*", "*", AT::kDescribe, PM::kAllow),
  });
  EXPECT_FALSE(a.allowed("alice", AT::kWrite, RT::kTopic, "foo"));
  EXPECT_FALSE(a.allowed("alice", AT::kRead, RT::kTopic, "foo"));
  EXPECT_FALSE(a.allowed("alice", AT::kDescribe, RT::kTopic, "foo"));
  EXPECT_TRUE(a.allowed("alice", AT::kRead, RT::kTopic, "foobar"));
  EXPECT_FALSE(a.allowed("bob", AT::kDescribe, RT::kTopic, "foo"));
  EXPECT_FALSE(a.allowed("bob", AT::kRead, RT::kTopic, "foo"));
  EXPECT_FALSE(a.allowed("bob", AT::kWrite, RT::kTopic, "foo"));
  EXPECT_TRUE(a.allowed("bob", AT::kDescribe, RT::kTopic, "foobaz"));
  EXPECT_FALSE(a.allowed("bob", AT::kRead, RT::kTopic, "foobaz"));
}

// Kafka's StandardAuthorizerTest.testPrefixAcls and testTopicAclWithOperationAll.
TEST(Authorize, KafkasPrefixAndOperationAllCases) {
  const Authz p = with({
      acl(RT::kTopic, "fooa", PT::kPrefixed, "User:alice", "*", AT::kAll, PM::kAllow),
      acl(RT::kTopic, "foobar", PT::kLiteral, "User:bob", "*", AT::kAll, PM::kAllow),
      acl(RT::kTopic, "f", PT::kPrefixed, "User:bob", "*", AT::kAll, PM::kAllow),
  });
  EXPECT_TRUE(p.allowed("bob", AT::kWrite, RT::kTopic, "foobarr"));
  EXPECT_FALSE(p.allowed("bob", AT::kRead, RT::kTopic, "goobar"));
  EXPECT_TRUE(p.allowed("bob", AT::kRead, RT::kTopic, "fooa"));
  EXPECT_TRUE(p.allowed("alice", AT::kDescribe, RT::kTopic, "fooa"));
  EXPECT_FALSE(p.allowed("alice", AT::kWrite, RT::kTopic, "bar"));
  EXPECT_FALSE(p.allowed("alice", AT::kRead, RT::kTopic, "baz"));

  const Authz all = with({
      acl(RT::kTopic, "foo", PT::kLiteral, "User:*", "*", AT::kAll, PM::kAllow),
      acl(RT::kTopic, "bar", PT::kPrefixed, "User:alice", "*", AT::kAll, PM::kAllow),
      acl(RT::kTopic, "baz", PT::kLiteral, "User:bob", "*", AT::kAll, PM::kAllow),
  });
  EXPECT_TRUE(all.allowed("alice", AT::kWrite, RT::kTopic, "foo"));
  EXPECT_TRUE(all.allowed("alice", AT::kDescribeConfigs, RT::kTopic, "bar"));
  EXPECT_FALSE(all.allowed("alice", AT::kDescribe, RT::kTopic, "baz"));
  EXPECT_TRUE(all.allowed("bob", AT::kWrite, RT::kTopic, "foo"));
  EXPECT_FALSE(all.allowed("bob", AT::kRead, RT::kTopic, "bar"));
  EXPECT_TRUE(all.allowed("bob", AT::kDescribe, RT::kTopic, "baz"));
  EXPECT_TRUE(all.allowed("malory", AT::kDescribe, RT::kTopic, "foo"));
  EXPECT_FALSE(all.allowed("malory", AT::kWrite, RT::kTopic, "bar"));
  EXPECT_FALSE(all.allowed("malory", AT::kRead, RT::kTopic, "baz"));
}

// Kafka's StandardAuthorizerTest.testAuthorizationWithManyAcls.
TEST(Authorize, KafkasManyAcls) {
  const Authz a = with({
      acl(RT::kTopic, "green2", PT::kLiteral, "User:*", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "green", PT::kPrefixed, "User:bob", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "betamax4", PT::kLiteral, "User:bob", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "betamax", PT::kLiteral, "User:bob", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "beta", PT::kPrefixed, "User:*", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "alpha", PT::kPrefixed, "User:*", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "alp", PT::kPrefixed, "User:bob", "*", AT::kRead, PM::kDeny),
      acl(RT::kGroup, "*", PT::kLiteral, "User:bob", "*", AT::kWrite, PM::kAllow),
      acl(RT::kGroup, "wheel", PT::kLiteral, "User:*", "*", AT::kWrite, PM::kDeny),
  });
  EXPECT_TRUE(a.allowed("bob", AT::kRead, RT::kTopic, "green1"));
  EXPECT_FALSE(a.allowed("bob", AT::kWrite, RT::kGroup, "wheel"));
  EXPECT_FALSE(a.allowed("bob", AT::kRead, RT::kTopic, "alpha"));
  EXPECT_TRUE(a.allowed("bob", AT::kWrite, RT::kGroup, "arbitrary"));
  EXPECT_FALSE(a.allowed("bob", AT::kRead, RT::kTopic, "ala"));
}

TEST(Authorize, LiteralDoesNotActAsPrefix) {
  const Authz a =
      with({acl(RT::kTopic, "foo", PT::kLiteral, "User:alice", "*", AT::kRead, PM::kAllow)});
  EXPECT_TRUE(a.allowed("alice", AT::kRead, RT::kTopic, "foo"));
  EXPECT_FALSE(a.allowed("alice", AT::kRead, RT::kTopic, "foobar"));
  EXPECT_EQ(a.decide("alice", AT::kRead, RT::kTopic, "foobar").rule, AuthorizeRule::kNoAclFound);
  EXPECT_FALSE(a.allowed("alice", AT::kRead, RT::kTopic, "fo"));
  EXPECT_FALSE(a.allowed("alice", AT::kRead, RT::kGroup, "foo"));  // another type
}

TEST(Authorize, WildcardResourceAndPrincipal) {
  const Authz a = with({
      acl(RT::kTopic, "*", PT::kLiteral, "User:*", "*", AT::kRead, PM::kAllow),
      acl(RT::kGroup, "*", PT::kLiteral, "User:carol", "*", AT::kRead, PM::kAllow),
  });
  EXPECT_TRUE(a.allowed("anyone", AT::kRead, RT::kTopic, "whatever"));
  EXPECT_TRUE(a.allowed("anyone", AT::kDescribe, RT::kTopic, "whatever"));
  EXPECT_FALSE(a.allowed("anyone", AT::kWrite, RT::kTopic, "whatever"));
  EXPECT_TRUE(a.allowed("carol", AT::kRead, RT::kGroup, "g"));
  EXPECT_FALSE(a.allowed("dave", AT::kRead, RT::kGroup, "g"));
  // "User:*" matches every principal, of any type (Kafka's matchingPrincipals adds it to
  // whatever the session's principal is).
  const AuthorizeDecision d = authorize(
      a.acls, a.config, AuthorizeRequest{"Group:x", "127.0.0.1", AT::kRead, RT::kTopic, "t"});
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.rule, AuthorizeRule::kAllowAcl);
  // A PREFIXED "*" is no wildcard: it applies to names starting with '*'.
  const Authz p = with({acl(RT::kTopic, "*", PT::kPrefixed, "User:*", "*", AT::kRead, PM::kAllow)});
  EXPECT_FALSE(p.allowed("x", AT::kRead, RT::kTopic, "t"));
  EXPECT_TRUE(p.allowed("x", AT::kRead, RT::kTopic, "*t"));
}

// Kafka's StandardAuthorizerTest.testHostAddressAclValidation (localhost: 127.0.0.1).
TEST(Authorize, KafkasHostCases) {
  const Authz a = with({
      acl(RT::kTopic, "foo", PT::kLiteral, "User:alice", "192.168.1.1", AT::kRead, PM::kDeny),
      acl(RT::kTopic, "foo", PT::kLiteral, "User:alice", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "bar", PT::kLiteral, "User:bob", "192.168.1.2", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "bar", PT::kLiteral, "User:*", "127.0.0.1", AT::kDescribe, PM::kAllow),
  });
  auto row = [&a](std::string_view user, std::string_view host) {
    return std::vector<bool>{a.allowed(user, AT::kRead, RT::kTopic, "foo", host),
                             a.allowed(user, AT::kRead, RT::kTopic, "bar", host),
                             a.allowed(user, AT::kDescribe, RT::kTopic, "bar", host)};
  };
  EXPECT_EQ(row("alice", "127.0.0.1"), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(row("alice", "192.168.1.1"), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(row("alice", "192.168.1.2"), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(row("bob", "127.0.0.1"), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(row("bob", "192.168.1.1"), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(row("bob", "192.168.1.2"), (std::vector<bool>{false, true, true}));
}

TEST(Authorize, SuperUserIsAllowedEverythingEvenUnderDeny) {
  Authz a =
      with({acl(RT::kCluster, "kafka-cluster", PT::kLiteral, "User:*", "*", AT::kAll, PM::kDeny)});
  const AuthorizeDecision d = a.decide("superman", AT::kAlter, RT::kCluster, "kafka-cluster");
  EXPECT_TRUE(d.allowed);
  EXPECT_EQ(d.rule, AuthorizeRule::kSuperUser);
  EXPECT_EQ(d.acl, nullptr);
  EXPECT_EQ(to_string(d), "SuperUser");
  EXPECT_FALSE(a.allowed("clark", AT::kAlter, RT::kCluster, "kafka-cluster"));
}

// Kafka's testAllowEveryoneIfNoAclFoundConfigEnabled / Disabled.
TEST(Authorize, AllowEveryoneIfNoAclFoundBothWays) {
  const std::vector<AclBinding> acls = {
      acl(RT::kTopic, "topic1", PT::kLiteral, "User:Alice", "*", AT::kRead, PM::kAllow)};
  const Authz open = with(acls, true);
  EXPECT_FALSE(open.allowed("Bob", AT::kRead, RT::kTopic, "topic1"));  // topic1 has ACLs
  EXPECT_EQ(open.decide("Bob", AT::kRead, RT::kTopic, "topic1").rule, AuthorizeRule::kNoAllowAcl);
  EXPECT_EQ(to_string(open.decide("Bob", AT::kRead, RT::kTopic, "topic1")), "DefaultDeny");
  EXPECT_TRUE(open.allowed("Bob", AT::kRead, RT::kTopic, "topic2"));
  EXPECT_EQ(open.decide("Bob", AT::kRead, RT::kTopic, "topic2").rule, AuthorizeRule::kNoAclFound);
  EXPECT_EQ(to_string(open.decide("Bob", AT::kRead, RT::kTopic, "topic2")), "DefaultAllow");
  const Authz closed = with(acls, false);
  EXPECT_FALSE(closed.allowed("Bob", AT::kRead, RT::kTopic, "topic1"));
  EXPECT_FALSE(closed.allowed("Bob", AT::kRead, RT::kTopic, "topic2"));
  EXPECT_EQ(to_string(closed.decide("Bob", AT::kRead, RT::kTopic, "topic2")), "DefaultDeny");
  // A resource counts as having ACLs when any ACL's pattern applies, whoever it is for.
  const Authz other_host = with(
      {acl(RT::kTopic, "t", PT::kPrefixed, "User:Bob", "10.9.9.9", AT::kRead, PM::kAllow)}, true);
  EXPECT_FALSE(other_host.allowed("Bob", AT::kRead, RT::kTopic, "t1"));
  EXPECT_TRUE(other_host.allowed("Bob", AT::kRead, RT::kTopic, "s1"));
}

// Kafka's StandardAuthorizerTest.testFindResultImplication.
TEST(Authorize, KafkasImplications) {
  auto one = [](AT op, PM permission) {
    return with({acl(RT::kTopic, "foo_", PT::kPrefixed, "User:bob", "*", op, permission)});
  };
  for (AT op : {AT::kDescribe, AT::kRead, AT::kWrite, AT::kDelete, AT::kAlter, AT::kAll}) {
    EXPECT_TRUE(one(op, PM::kAllow).allowed("bob", AT::kDescribe, RT::kTopic, "foo_bar"))
        << acl_name(op);
  }
  for (AT op : {AT::kCreate, AT::kDescribeConfigs, AT::kAlterConfigs, AT::kClusterAction}) {
    EXPECT_FALSE(one(op, PM::kAllow).allowed("bob", AT::kDescribe, RT::kTopic, "foo_bar"))
        << acl_name(op);
  }
  for (AT op : {AT::kDescribeConfigs, AT::kAlterConfigs}) {
    EXPECT_TRUE(one(op, PM::kAllow).allowed("bob", AT::kDescribeConfigs, RT::kTopic, "foo_bar"));
  }
  EXPECT_FALSE(one(AT::kDescribeConfigs, PM::kAllow)
                   .allowed("bob", AT::kAlterConfigs, RT::kTopic, "foo_bar"));
  EXPECT_FALSE(one(AT::kRead, PM::kAllow).allowed("bob", AT::kWrite, RT::kTopic, "foo_bar"));
  EXPECT_FALSE(one(AT::kDescribe, PM::kAllow).allowed("bob", AT::kRead, RT::kTopic, "foo_bar"));
  // A DENY implies nothing: DENY READ leaves DESCRIBE to the ALLOWs.
  for (AT op : {AT::kRead, AT::kWrite, AT::kDelete, AT::kAlter}) {
    const Authz a = with({
        acl(RT::kTopic, "foo_", PT::kPrefixed, "User:bob", "*", op, PM::kDeny),
        acl(RT::kTopic, "foo_", PT::kPrefixed, "User:bob", "*", AT::kDescribe, PM::kAllow),
    });
    EXPECT_TRUE(a.allowed("bob", AT::kDescribe, RT::kTopic, "foo_bar")) << acl_name(op);
    EXPECT_FALSE(a.allowed("bob", op, RT::kTopic, "foo_bar")) << acl_name(op);
  }
  // ... but DENY READ with only ALLOW READ: DESCRIBE is allowed through the READ.
  const Authz read = with({
      acl(RT::kTopic, "t", PT::kLiteral, "User:bob", "*", AT::kRead, PM::kAllow),
      acl(RT::kTopic, "t", PT::kLiteral, "User:bob", "10.0.0.1", AT::kRead, PM::kDeny),
  });
  EXPECT_TRUE(read.allowed("bob", AT::kDescribe, RT::kTopic, "t", "10.0.0.1"));
  EXPECT_FALSE(read.allowed("bob", AT::kRead, RT::kTopic, "t", "10.0.0.1"));
  EXPECT_FALSE(
      one(AT::kAlterConfigs, PM::kDeny).allowed("bob", AT::kAlterConfigs, RT::kTopic, "foo_bar"));
  EXPECT_FALSE(one(AT::kAll, PM::kDeny).allowed("bob", AT::kDescribe, RT::kTopic, "foo_bar"));
}

// The index walk against the definition, over random sets of short names that share
// prefixes (so the walk jumps), wildcards included.
struct Oracle {
  bool allowed;
  AuthorizeRule rule;
};
Oracle brute_force(const std::vector<AclBinding>& acls, const AuthorizerConfig& config,
                   const AuthorizeRequest& r) {
  if (config.super_users.contains(r.principal)) return {true, AuthorizeRule::kSuperUser};
  bool any = false, allow = false, deny = false;
  for (const AclBinding& b : acls) {
    if (b.type != r.resource_type) continue;
    const bool applies = b.pattern == PT::kLiteral ? (b.name == r.resource_name || b.name == "*")
                                                   : r.resource_name.starts_with(b.name);
    if (!applies) continue;
    any = true;
    if (b.principal != r.principal && b.principal != "User:*") continue;
    if (b.host != "*" && b.host != r.host) continue;
    if (b.permission == PM::kDeny) {
      deny |= b.operation == AT::kAll || b.operation == r.operation;
    } else {
      const AT g = b.operation, w = r.operation;
      allow |= g == AT::kAll || g == w ||
               (w == AT::kDescribe &&
                (g == AT::kRead || g == AT::kWrite || g == AT::kDelete || g == AT::kAlter)) ||
               (w == AT::kDescribeConfigs && g == AT::kAlterConfigs);
    }
  }
  if (deny) return {false, AuthorizeRule::kDenyAcl};
  if (allow) return {true, AuthorizeRule::kAllowAcl};
  if (!any) return {config.allow_everyone_if_no_acl_found, AuthorizeRule::kNoAclFound};
  return {false, AuthorizeRule::kNoAllowAcl};
}

TEST(Authorize, AgreesWithBruteForceOnRandomSets) {
  std::mt19937 rng(20261);
  auto pick = [&rng](auto... v) {
    const std::vector<std::common_type_t<decltype(v)...>> all{v...};
    return all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng)];
  };
  auto name = [&](size_t max) {
    std::string s;
    const size_t n = std::uniform_int_distribution<size_t>(1, max)(rng);
    for (size_t i = 0; i < n; ++i) s += pick('a', 'b', 'c');
    return pick(0, 1, 2, 3, 4, 5, 6, 7) == 0 ? std::string("*") : s;
  };
  const AT ops[] = {AT::kAll,   AT::kRead,     AT::kWrite,           AT::kDelete,
                    AT::kAlter, AT::kDescribe, AT::kDescribeConfigs, AT::kAlterConfigs,
                    AT::kCreate};
  auto op = [&]() {
    return ops[std::uniform_int_distribution<size_t>(0, std::size(ops) - 1)(rng)];
  };
  size_t checked = 0;
  for (int round = 0; round < 400; ++round) {
    std::vector<AclBinding> acls;
    const size_t n = std::uniform_int_distribution<size_t>(0, 40)(rng);
    for (size_t i = 0; i < n; ++i) {
      acls.push_back(acl(pick(RT::kTopic, RT::kGroup), name(4), pick(PT::kLiteral, PT::kPrefixed),
                         pick(std::string("User:a"), std::string("User:b"), std::string("User:*")),
                         pick(std::string("*"), std::string("1.1.1.1")), op(),
                         pick(PM::kAllow, PM::kAllow, PM::kDeny)));
    }
    Authz a{AclSet(acls), {}};
    a.config.allow_everyone_if_no_acl_found = round % 2 == 0;
    a.config.super_users = {"User:root"};
    for (int q = 0; q < 50; ++q) {
      const std::string principal = pick(std::string("User:a"), std::string("User:b"),
                                         std::string("User:c"), std::string("User:root"));
      const std::string resource = name(5);
      const AuthorizeRequest r{principal,
                               pick(std::string_view("1.1.1.1"), std::string_view("2.2.2.2")), op(),
                               pick(RT::kTopic, RT::kGroup), resource};
      const AuthorizeDecision got = authorize(a.acls, a.config, r);
      const Oracle want = brute_force(acls, a.config, r);
      ASSERT_EQ(got.allowed, want.allowed) << round << "/" << q << " " << resource;
      ASSERT_EQ(got.rule, want.rule) << round << "/" << q << " " << resource;
      if (got.acl != nullptr) {
        EXPECT_EQ(got.acl->permission, got.allowed ? PM::kAllow : PM::kDeny);
        EXPECT_EQ(got.acl->type, r.resource_type);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 400u * 50);
}

TEST(Authorize, KafkasSuperUsersText) {
  auto s = parse_super_users("User:alice;User:chris");
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (std::set<std::string, std::less<>>{"User:alice", "User:chris"}));
  s = parse_super_users(" User:a ; ;User:b;;  ");
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (std::set<std::string, std::less<>>{"User:a", "User:b"}));
  EXPECT_TRUE(parse_super_users("")->empty());
  s = parse_super_users("User:a;bob");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "expected a string in format principalType:principalName but got bob");
}

}  // namespace
}  // namespace strata::security

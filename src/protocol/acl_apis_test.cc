// DescribeAcls, CreateAcls and DeleteAcls: every version round-trips, and hand-annotated
// byte layouts of v0-v2 (pattern types from v1, flexible from v2).
#include <gtest/gtest.h>

#include "protocol/apis/create_acls.h"
#include "protocol/apis/delete_acls.h"
#include "protocol/apis/describe_acls.h"
#include "protocol/message.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

// ---- ACLs: DescribeAcls, CreateAcls, DeleteAcls ----
// Samples set every field away from its default; the layouts are annotated from Kafka's
// schemas (v0 and v1 agree with kafka-python 2.0.2's declarations).

TEST(Apis, AclApisKeysAndVersions) {
  static_assert(DescribeAclsRequest::kApiKey == 29 && DescribeAclsResponse::kVersions.max == 3);
  static_assert(CreateAclsRequest::kApiKey == 30 && CreateAclsResponse::kFlexibleFrom == 2);
  static_assert(DeleteAclsRequest::kApiKey == 31 && DeleteAclsResponse::kVersions.min == 0);
  static_assert(same_constants<DescribeAclsRequest, DescribeAclsResponse>());
  static_assert(same_constants<CreateAclsRequest, CreateAclsResponse>());
  static_assert(same_constants<DeleteAclsRequest, DeleteAclsResponse>());
}

TEST(Apis, DescribeAclsEveryVersion) {
  DescribeAclsRequest q;
  q.resource_type_filter = 2;
  q.resource_name_filter = "orders";
  q.pattern_type_filter = 4;
  q.principal_filter = "User:alice";
  q.host_filter = "10.0.0.1";
  q.operation = 3;
  q.permission_type = 3;
  expect_every_version(q);

  DescribeAclsResponse r;
  r.throttle_time_ms = 7;
  r.error_code = 54;
  r.error_message = "No Authorizer is configured on the broker";
  r.resources = {{.resource_type = 3,
                  .resource_name = "g",
                  .pattern_type = 4,
                  .acls = {{.principal = "User:*", .host = "*", .operation = 2,
                            .permission_type = 2}}}};
  expect_every_version(r);
}

TEST(Apis, DescribeAclsRequestLayout) {
  DescribeAclsRequest q;
  q.resource_type_filter = 2;
  q.resource_name_filter = "t";
  q.principal_filter = std::nullopt;
  q.host_filter = "*";
  q.operation = 3;
  q.permission_type = 3;
  // type | name "t" | principal null | host "*" | operation | permission
  expect_bytes(q, 0, "02 | 0001 74 | ffff | 0001 2a | 03 | 03");
  q.pattern_type_filter = 4;
  // ... the pattern type after the name from v1; compact strings and a tagged section from v2
  expect_bytes(q, 1, "02 | 0001 74 | 04 | ffff | 0001 2a | 03 | 03");
  expect_bytes(q, 2, "02 | 02 74 | 04 | 00 | 02 2a | 03 | 03 | 00");
  // v0 carries no pattern type: it decodes as LITERAL.
  auto v0 = decode<DescribeAclsRequest>(unhex("02 | 0001 74 | ffff | 0001 2a | 03 | 03"), 0);
  ASSERT_TRUE(v0);
  EXPECT_EQ(v0->pattern_type_filter, 3);
  EXPECT_FALSE(v0->principal_filter);
}

TEST(Apis, DescribeAclsResponseLayout) {
  DescribeAclsResponse r;
  r.throttle_time_ms = 5;
  r.error_message = std::nullopt;
  r.resources = {{.resource_type = 2,
                  .resource_name = "t",
                  .pattern_type = 4,
                  .acls = {{.principal = "User:a", .host = "*", .operation = 3,
                            .permission_type = 3}}}};
  // throttle | error | message null | resources [1] | type | "t" | pattern | acls [1] |
  // "User:a" | "*" | operation | permission | (v2: acl, resource, response tags)
  expect_bytes(r, 1,
               "00000005 | 0000 | ffff | 00000001 | 02 | 0001 74 | 04 | 00000001 |"
               " 0006 557365723a61 | 0001 2a | 03 | 03");
  expect_bytes(r, 2,
               "00000005 | 0000 | 00 | 02 | 02 | 02 74 | 04 | 02 |"
               " 07 557365723a61 | 02 2a | 03 | 03 | 00 | 00 | 00");
}

TEST(Apis, CreateAclsEveryVersion) {
  CreateAclsRequest q;
  q.creations = {{.resource_type = 2,
                  .resource_name = "orders",
                  .resource_pattern_type = 4,
                  .principal = "User:alice",
                  .host = "*",
                  .operation = 4,
                  .permission_type = 3}};
  expect_every_version(q);

  CreateAclsResponse r;
  r.throttle_time_ms = 3;
  r.results = {{.error_code = 42, .error_message = "Invalid empty resource name"}};
  expect_every_version(r);
}

TEST(Apis, CreateAclsLayout) {
  CreateAclsRequest q;
  q.creations = {{.resource_type = 2,
                  .resource_name = "t",
                  .resource_pattern_type = 4,
                  .principal = "User:alice",
                  .host = "*",
                  .operation = 4,
                  .permission_type = 3}};
  // creations [1] | type | "t" | (v1+: pattern) | "User:alice" | "*" | operation | permission
  auto with_pattern = q;
  q.creations[0].resource_pattern_type = 3;
  expect_bytes(q, 0, "00000001 | 02 | 0001 74 | 000a 557365723a616c696365 | 0001 2a | 04 | 03");
  expect_bytes(with_pattern, 1,
               "00000001 | 02 | 0001 74 | 04 | 000a 557365723a616c696365 | 0001 2a | 04 | 03");
  expect_bytes(with_pattern, 2,
               "02 | 02 | 02 74 | 04 | 0b 557365723a616c696365 | 02 2a | 04 | 03 | 00 | 00");

  CreateAclsResponse r;
  r.results = {{.error_code = 0, .error_message = std::nullopt}};
  // throttle | results [1] | error | message null
  expect_bytes(r, 0, "00000000 | 00000001 | 0000 | ffff");
  expect_bytes(r, 2, "00000000 | 02 | 0000 | 00 | 00 | 00");
}

TEST(Apis, DeleteAclsEveryVersion) {
  DeleteAclsRequest q;
  q.filters = {{.resource_type_filter = 1,
                .resource_name_filter = "orders",
                .pattern_type_filter = 2,
                .principal_filter = "User:alice",
                .host_filter = "*",
                .operation = 1,
                .permission_type = 1}};
  expect_every_version(q);

  DeleteAclsResponse r;
  r.throttle_time_ms = 9;
  r.filter_results = {
      {.error_code = 42,
       .error_message = "Unknown entryFilter.",
       .matching_acls = {{.error_code = 1,
                          .error_message = "m",
                          .resource_type = 2,
                          .resource_name = "orders",
                          .pattern_type = 4,
                          .principal = "User:alice",
                          .host = "10.0.0.1",
                          .operation = 4,
                          .permission_type = 2}}}};
  expect_every_version(r);
}

TEST(Apis, DeleteAclsLayout) {
  DeleteAclsRequest q;
  q.filters = {{.resource_type_filter = 1,
                .resource_name_filter = std::nullopt,
                .pattern_type_filter = 1,
                .principal_filter = std::nullopt,
                .host_filter = std::nullopt,
                .operation = 1,
                .permission_type = 1}};
  // filters [1] | type ANY | name null | (v1+: pattern ANY) | principal null | host null |
  // operation ANY | permission ANY: the filter that deletes every ACL
  expect_bytes(q, 1, "00000001 | 01 | ffff | 01 | ffff | ffff | 01 | 01");
  expect_bytes(q, 2, "02 | 01 | 00 | 01 | 00 | 00 | 01 | 01 | 00 | 00");
  auto v0 = decode<DeleteAclsRequest>(unhex("00000001 | 01 | ffff | ffff | ffff | 01 | 01"), 0);
  ASSERT_TRUE(v0);
  EXPECT_EQ(v0->filters.at(0).pattern_type_filter, 3);  // v0: LITERAL

  DeleteAclsResponse r;
  r.filter_results = {{.error_code = 0,
                       .error_message = std::nullopt,
                       .matching_acls = {{.error_code = 0,
                                          .error_message = std::nullopt,
                                          .resource_type = 2,
                                          .resource_name = "t",
                                          .pattern_type = 3,
                                          .principal = "User:a",
                                          .host = "*",
                                          .operation = 3,
                                          .permission_type = 3}}}};
  // throttle | results [1] | error | message null | matching [1] | error | message null |
  // type | "t" | (v1+: pattern) | "User:a" | "*" | operation | permission
  expect_bytes(r, 0,
               "00000000 | 00000001 | 0000 | ffff | 00000001 | 0000 | ffff | 02 | 0001 74 |"
               " 0006 557365723a61 | 0001 2a | 03 | 03");
  expect_bytes(r, 1,
               "00000000 | 00000001 | 0000 | ffff | 00000001 | 0000 | ffff | 02 | 0001 74 | 03 |"
               " 0006 557365723a61 | 0001 2a | 03 | 03");
}

}  // namespace
}  // namespace strata::protocol

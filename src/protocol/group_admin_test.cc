// Group admin APIs (DescribeGroups, ListGroups, DeleteGroups): every version of every
// message round-trips, fields a version lacks keep Kafka's defaults, every truncation is
// rejected; the shapes that change between versions are checked against hand-annotated
// bytes, and non-flexible versions against bytes written by kafka-python 2.0.2 (an
// independent implementation).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "protocol/apis/delete_groups.h"
#include "protocol/apis/describe_groups.h"
#include "protocol/apis/list_groups.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

// ---- Samples: every field set away from its default.

DescribeGroupsRequest describe_groups_request() {
  DescribeGroupsRequest m;
  m.groups = {"g1", "g2"};
  m.include_authorized_operations = true;
  return m;
}

DescribeGroupsResponse describe_groups_response() {
  DescribeGroupsResponse m;
  m.throttle_time_ms = 5;
  m.groups = {{.error_code = 16,
               .group_id = "g",
               .group_state = "Stable",
               .protocol_type = "consumer",
               .protocol_data = "range",
               .members = {{.member_id = "m1",
                            .group_instance_id = "i1",
                            .client_id = "c",
                            .client_host = "/10.0.0.1",
                            .member_metadata = blob({1}),
                            .member_assignment = blob({2})}},
               .authorized_operations = 8}};
  return m;
}

ListGroupsRequest list_groups_request() {
  ListGroupsRequest m;
  m.states_filter = {"Stable"};
  m.types_filter = {"Classic"};
  return m;
}

ListGroupsResponse list_groups_response() {
  ListGroupsResponse m;
  m.throttle_time_ms = 1;
  m.error_code = 15;
  m.groups = {{.group_id = "g",
               .protocol_type = "consumer",
               .group_state = "Empty",
               .group_type = "Classic"}};
  return m;
}

DeleteGroupsRequest delete_groups_request() {
  DeleteGroupsRequest m;
  m.groups_names = {"g1", "g2"};
  return m;
}

DeleteGroupsResponse delete_groups_response() {
  DeleteGroupsResponse m;
  m.throttle_time_ms = 7;
  m.results = {{.group_id = "g1", .error_code = 68}};
  return m;
}

// ---- Every version round-trips.

TEST(GroupApis, DescribeGroupsEveryVersion) {
  expect_every_version(describe_groups_request());
  expect_every_version(describe_groups_response());
}

TEST(GroupApis, ListGroupsEveryVersion) {
  expect_every_version(list_groups_request());
  expect_every_version(list_groups_response());
}

TEST(GroupApis, DeleteGroupsEveryVersion) {
  expect_every_version(delete_groups_request());
  expect_every_version(delete_groups_response());
}

// ---- Hand-annotated bytes for the shapes a handler must get right.

TEST(GroupApis, DescribeGroupsShapes) {
  DescribeGroupsRequest q;
  q.groups = {"g1"};
  expect_bytes(q, 2, "00000001 0002 6731");
  expect_bytes(q, 3, "00000001 0002 6731 00");
  expect_bytes(q, 5, "02 03 6731 00 00");

  // An unknown group: state "Dead", no members, authorized operations not asked for.
  DescribeGroupsResponse r;
  r.groups = {{.group_id = "g", .group_state = "Dead"}};
  expect_bytes(r, 3, "00000000 00000001 0000 0001 67 0004 44656164 0000 0000 00000000 80000000");
  r.groups[0].members = {{.member_id = "m1",
                          .group_instance_id = "i",
                          .client_id = "c",
                          .client_host = "h",
                          .member_metadata = blob({1}),
                          .member_assignment = blob({2})}};
  r.groups[0].authorized_operations = 8;
  // v4 adds the member's instance id after its member id; v5 is flexible.
  expect_bytes(r, 4,
               "00000000 00000001 0000 0001 67 0004 44656164 0000 0000 00000001 0002 6d31 0001 69"
               " 0001 63 0001 68 00000001 01 00000001 02 00000008");
  expect_bytes(
      r, 5,
      "00000000 02 0000 02 67 05 44656164 01 01 02 03 6d31 02 69 02 63 02 68 02 01 02 02 00"
      " 00000008 00 00");
}

TEST(GroupApis, ListGroupsFilters) {
  ListGroupsRequest q;
  expect_bytes(q, 0, "");
  expect_bytes(q, 3, "00");
  q.states_filter = {"Stable"};
  expect_bytes(q, 4, "02 07 537461626c65 00");
  q.states_filter.clear();
  q.types_filter = {"Consumer"};
  expect_bytes(q, 5, "01 02 09 436f6e73756d6572 00");

  ListGroupsResponse r;
  r.groups = {{.group_id = "g",
               .protocol_type = "consumer",
               .group_state = "Stable",
               .group_type = "Classic"}};
  expect_bytes(r, 0, "0000 00000001 0001 67 0008 636f6e73756d6572");
  expect_bytes(r, 3, "00000000 0000 02 02 67 09 636f6e73756d6572 00 00");
  expect_bytes(
      r, 5, "00000000 0000 02 02 67 09 636f6e73756d6572 07 537461626c65 08 436c6173736963 00 00");
}

TEST(GroupApis, DeleteGroupsFlexibleAtV2) {
  DeleteGroupsRequest q;
  q.groups_names = {"g1", "g2"};
  expect_bytes(q, 2, "03 03 6731 03 6732 00");
  DeleteGroupsResponse r;
  r.results = {{.group_id = "g1"}, {.group_id = "g2", .error_code = 68}};
  // The throttle time is there from v0.
  expect_bytes(r, 0, "00000000 00000002 0002 6731 0000 0002 6732 0044");
  expect_bytes(r, 2, "00000000 03 03 6731 0000 00 03 6732 0044 00 00");
}

// ---- Golden bytes from kafka-python 2.0.2 (kafka/protocol/group.py, commit.py, admin.py),
// written once by its Struct.encode() and pasted here. kafka-python knows only the
// non-flexible versions up to DescribeGroups v3, ListGroups v2 and DeleteGroups v1, and its
// DescribeGroupsResponse_v3 puts authorized_operations outside the group (Kafka's schema
// has it per group), so that one is not compared.

TEST(GroupApisGolden, DescribeListDeleteGroups) {
  DescribeGroupsRequest q;
  q.groups = {"g1", "g2"};
  q.include_authorized_operations = true;
  expect_bytes(q, 3, "00000002000267310002673201");
  DescribeGroupsResponse r;
  r.groups = {{.group_id = "g",
               .group_state = "Stable",
               .protocol_type = "consumer",
               .protocol_data = "range",
               .members = {{.member_id = "m1",
                            .client_id = "c",
                            .client_host = "/10.0.0.1",
                            .member_metadata = blob({1}),
                            .member_assignment = blob({2})}}}};
  expect_bytes(r, 1,
               "000000000000000100000001670006537461626c650008636f6e73756d6572000572616e67650000"
               "000100026d3100016300092f31302e302e302e3100000001010000000102");
  DescribeGroupsResponse dead;
  dead.groups = {{.group_id = "g", .group_state = "Dead"}};
  expect_bytes(dead, 0, "0000000100000001670004446561640000000000000000");

  expect_bytes(ListGroupsRequest{}, 1, "");
  ListGroupsResponse l;
  l.groups = {{.group_id = "g1", .protocol_type = "consumer"}, {.group_id = "g2"}};
  expect_bytes(l, 1, "00000000000000000002000267310008636f6e73756d6572000267320000");

  DeleteGroupsRequest d;
  d.groups_names = {"g1", "g2"};
  expect_bytes(d, 1, "000000020002673100026732");
  DeleteGroupsResponse dr;
  dr.results = {{.group_id = "g1"}, {.group_id = "g2", .error_code = 68}};
  expect_bytes(dr, 1, "0000000000000002000267310000000267320044");
}

}  // namespace
}  // namespace strata::protocol

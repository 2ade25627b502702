// Group membership APIs (JoinGroup, SyncGroup, Heartbeat, LeaveGroup): every version of
// every message round-trips, fields a version lacks keep Kafka's defaults, every truncation
// is rejected; the shapes that change between versions are checked against hand-annotated
// bytes, and non-flexible versions against bytes written by kafka-python 2.0.2 (an
// independent implementation).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "protocol/apis/heartbeat.h"
#include "protocol/apis/join_group.h"
#include "protocol/apis/leave_group.h"
#include "protocol/apis/sync_group.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

// ---- Samples: every field set away from its default.

JoinGroupRequest join_group_request() {
  JoinGroupRequest m;
  m.group_id = "g";
  m.session_timeout_ms = 45000;
  m.rebalance_timeout_ms = 300000;
  m.member_id = "m";
  m.group_instance_id = "i";
  m.protocol_type = "consumer";
  m.protocols = {{.name = "range", .metadata = blob({0, 1, 2})}};
  m.reason = "rejoin";
  return m;
}

JoinGroupResponse join_group_response() {
  JoinGroupResponse m;
  m.throttle_time_ms = 4;
  m.error_code = 27;
  m.generation_id = 6;
  m.protocol_type = "consumer";
  m.protocol_name = "range";
  m.leader = "m1";
  m.skip_assignment = true;
  m.member_id = "m2";
  m.members = {{.member_id = "m1", .group_instance_id = "i1", .metadata = blob({0xab})}};
  return m;
}

HeartbeatRequest heartbeat_request() {
  HeartbeatRequest m;
  m.group_id = "g";
  m.generation_id = 2;
  m.member_id = "m";
  m.group_instance_id = "i";
  return m;
}

HeartbeatResponse heartbeat_response() {
  HeartbeatResponse m;
  m.throttle_time_ms = 3;
  m.error_code = 27;
  return m;
}

LeaveGroupRequest leave_group_request() {
  LeaveGroupRequest m;
  m.group_id = "g";
  m.member_id = "m";
  m.members = {{.member_id = "m", .group_instance_id = "i", .reason = "shutdown"}};
  return m;
}

LeaveGroupResponse leave_group_response() {
  LeaveGroupResponse m;
  m.throttle_time_ms = 1;
  m.error_code = 25;
  m.members = {{.member_id = "m", .group_instance_id = "i", .error_code = 25}};
  return m;
}

SyncGroupRequest sync_group_request() {
  SyncGroupRequest m;
  m.group_id = "g";
  m.generation_id = 1;
  m.member_id = "m";
  m.group_instance_id = "i";
  m.protocol_type = "consumer";
  m.protocol_name = "range";
  m.assignments = {{.member_id = "m", .assignment = blob({1, 2})}};
  return m;
}

SyncGroupResponse sync_group_response() {
  SyncGroupResponse m;
  m.throttle_time_ms = 2;
  m.error_code = 22;
  m.protocol_type = "consumer";
  m.protocol_name = "range";
  m.assignment = blob({0xab});
  return m;
}

// ---- Every version round-trips.

TEST(GroupApis, JoinGroupEveryVersion) {
  expect_every_version(join_group_request());
  expect_every_version(join_group_response());
}

TEST(GroupApis, HeartbeatEveryVersion) {
  expect_every_version(heartbeat_request());
  expect_every_version(heartbeat_response());
}

TEST(GroupApis, LeaveGroupEveryVersion) {
  expect_every_version(leave_group_request());
  expect_every_version(leave_group_response());
}

TEST(GroupApis, SyncGroupEveryVersion) {
  expect_every_version(sync_group_request());
  expect_every_version(sync_group_response());
}

// ---- Hand-annotated bytes for the shapes a handler must get right.

JoinGroupRequest join_v0() {
  JoinGroupRequest m;
  m.group_id = "g";
  m.session_timeout_ms = 30000;
  m.protocol_type = "consumer";
  m.protocols = {{.name = "range", .metadata = blob({0, 1, 2})}};
  return m;
}

TEST(GroupApis, JoinGroupRequestV0ToV5) {
  JoinGroupRequest m = join_v0();
  // "g" | session 30000 | member "" | "consumer" | 1 protocol: "range", 3 metadata bytes
  const std::string_view tail = "0008 636f6e73756d6572 00000001 0005 72616e6765 00000003 000102";
  expect_bytes(m, 0, std::string("0001 67 00007530 0000 ") + std::string(tail));
  // v1 puts the rebalance timeout (-1 by default: use the session timeout) after it.
  expect_bytes(m, 1, std::string("0001 67 00007530 ffffffff 0000 ") + std::string(tail));
  // v4 asks a new member to rejoin with an assigned id: behaviour only, same bytes as v3.
  EXPECT_EQ(encode(m, 4), encode(m, 3));
  // v5: a null group_instance_id follows the member id.
  expect_bytes(m, 5, std::string("0001 67 00007530 ffffffff 0000 ffff ") + std::string(tail));
}

JoinGroupRequest join_v6(std::optional<std::string> instance) {
  JoinGroupRequest m;
  m.group_id = "g";
  m.session_timeout_ms = 10000;
  m.rebalance_timeout_ms = 300000;
  m.member_id = "m";
  m.group_instance_id = std::move(instance);
  m.protocol_type = "consumer";
  m.protocols = {{.name = "range", .metadata = blob({0xab})}};
  return m;
}

TEST(GroupApis, JoinGroupFlexibleCompactAndNullableInstanceId) {
  // Compact strings (length + 1), compact array, compact bytes, an empty tag section
  // after the protocol and after the request.
  expect_bytes(join_v6("i"), 6,
               "02 67 00002710 000493e0 02 6d 02 69 09 636f6e73756d6572 02 06 72616e6765 02 ab 00"
               " 00");
  // A null instance id is a single 00 (length 0 = null), not "01" (the empty string).
  expect_bytes(join_v6(std::nullopt), 6,
               "02 67 00002710 000493e0 02 6d 00 09 636f6e73756d6572 02 06 72616e6765 02 ab 00 00");
  expect_bytes(join_v6(""), 6,
               "02 67 00002710 000493e0 02 6d 01 09 636f6e73756d6572 02 06 72616e6765 02 ab 00 00");
  // v7 is v6: a reason, though set, is not on the wire before v8, where it goes last,
  // before the tags.
  JoinGroupRequest r = join_v6(std::nullopt);
  r.reason = "r";
  expect_bytes(r, 7,
               "02 67 00002710 000493e0 02 6d 00 09 636f6e73756d6572 02 06 72616e6765 02 ab 00 00");
  expect_bytes(r, 8,
               "02 67 00002710 000493e0 02 6d 00 09 636f6e73756d6572 02 06 72616e6765 02 ab 00"
               " 02 72 00");
  r.reason.reset();
  expect_bytes(r, 9,
               "02 67 00002710 000493e0 02 6d 00 09 636f6e73756d6572 02 06 72616e6765 02 ab 00"
               " 00 00");
}

TEST(GroupApis, JoinGroupResponseShapes) {
  // v4+: a new dynamic member is told MEMBER_ID_REQUIRED (79) with the id to rejoin with.
  JoinGroupResponse required;
  required.error_code = 79;
  required.member_id = "m-1";
  // throttle | error 79 | generation -1 | protocol "" | leader "" | member "m-1" | 0 members
  expect_bytes(required, 4, "00000000 004f ffffffff 0000 0000 0003 6d2d31 00000000");

  JoinGroupResponse r;
  r.generation_id = 1;
  r.protocol_name = "range";
  r.leader = "m1";
  r.member_id = "m1";
  r.members = {{.member_id = "m1", .group_instance_id = "i1", .metadata = blob({0xab})}};
  // v0: no throttle time, no instance ids.
  expect_bytes(r, 0,
               "0000 00000001 0005 72616e6765 0002 6d31 0002 6d31 00000001 0002 6d31 00000001 ab");
  // v5: the leader's member list carries instance ids.
  expect_bytes(r, 5,
               "00000000 0000 00000001 0005 72616e6765 0002 6d31 0002 6d31 00000001 0002 6d31"
               " 0002 6931 00000001 ab");
  // v7: protocol type (null here) before the protocol name; v9: skip_assignment after the
  // leader.
  expect_bytes(r, 7,
               "00000000 0000 00000001 00 06 72616e6765 03 6d31 03 6d31 02 03 6d31 03 6931 02 ab 00"
               " 00");
  r.protocol_type = "consumer";
  r.skip_assignment = true;
  expect_bytes(r, 9,
               "00000000 0000 00000001 09 636f6e73756d6572 06 72616e6765 03 6d31 01 03 6d31 02"
               " 03 6d31 03 6931 02 ab 00 00");
}

TEST(GroupApis, LeaveGroupBatchesFromV3) {
  LeaveGroupRequest m;
  m.group_id = "g";
  m.member_id = "m";
  m.members = {{.member_id = "m"}, {.member_id = "", .group_instance_id = "i", .reason = "r"}};
  expect_bytes(m, 2, "0001 67 0001 6d");
  // v3: 2 members: ("m", null instance), ("", "i")
  expect_bytes(m, 3, "0001 67 00000002 0001 6d ffff 0000 0001 69");
  expect_bytes(m, 4, "02 67 03 02 6d 00 00 01 02 69 00 00");
  // v5: a reason per member (null for the first).
  expect_bytes(m, 5, "02 67 03 02 6d 00 00 00 01 02 69 02 72 00 00");

  LeaveGroupResponse r;
  r.members = {{.member_id = "m", .group_instance_id = std::nullopt, .error_code = 25}};
  expect_bytes(r, 2, "00000000 0000");
  expect_bytes(r, 3, "00000000 0000 00000001 0001 6d ffff 0019");
}

TEST(GroupApis, SyncGroupProtocolFromV5) {
  SyncGroupRequest m;
  m.group_id = "g";
  m.generation_id = 1;
  m.member_id = "m";
  m.protocol_type = "consumer";
  m.protocol_name = "range";
  m.assignments = {{.member_id = "m", .assignment = blob({0xab})}};
  expect_bytes(m, 3, "0001 67 00000001 0001 6d ffff 00000001 0001 6d 00000001 ab");
  expect_bytes(m, 4, "02 67 00000001 02 6d 00 02 02 6d 02 ab 00 00");
  expect_bytes(m, 5,
               "02 67 00000001 02 6d 00 09 636f6e73756d6572 06 72616e6765 02 02 6d 02 ab 00 00");

  SyncGroupResponse r;
  r.protocol_type = "consumer";
  r.protocol_name = "range";
  r.assignment = blob({0xab});
  expect_bytes(r, 0, "0000 00000001 ab");
  expect_bytes(r, 4, "00000000 0000 02 ab 00");
  expect_bytes(r, 5, "00000000 0000 09 636f6e73756d6572 06 72616e6765 02 ab 00");
}

TEST(GroupApis, HeartbeatInstanceIdFromV3) {
  HeartbeatRequest m;
  m.group_id = "g";
  m.generation_id = 2;
  m.member_id = "m";
  expect_bytes(m, 2, "0001 67 00000002 0001 6d");
  expect_bytes(m, 3, "0001 67 00000002 0001 6d ffff");
  expect_bytes(m, 4, "02 67 00000002 02 6d 00 00");
  m.group_instance_id = "i";
  expect_bytes(m, 3, "0001 67 00000002 0001 6d 0001 69");
  expect_bytes(m, 4, "02 67 00000002 02 6d 02 69 00");
  HeartbeatResponse r;
  r.error_code = 27;
  expect_bytes(r, 0, "001b");
  expect_bytes(r, 4, "00000000 001b 00");
}

// ---- Golden bytes from kafka-python 2.0.2 (kafka/protocol/group.py, commit.py, admin.py),
// written once by its Struct.encode() and pasted here. kafka-python knows only the
// non-flexible versions up to JoinGroup v2 and SyncGroup/Heartbeat/LeaveGroup v1.

TEST(GroupApisGolden, JoinGroup) {
  expect_bytes(join_v0(), 0,
               "0001670000753000000008636f6e73756d657200000001000572616e676500000003000102");
  JoinGroupRequest q = join_v6(std::nullopt);
  q.protocols.push_back({.name = "roundrobin"});
  expect_bytes(q, 1,
               "00016700002710000493e000016d0008636f6e73756d657200000002000572616e676500000001ab"
               "000a726f756e64726f62696e00000000");
  JoinGroupResponse r;
  r.generation_id = 1;
  r.protocol_name = "range";
  r.leader = "m1";
  r.member_id = "m1";
  r.members = {{.member_id = "m1", .metadata = blob({0xab})}, {.member_id = "m2"}};
  expect_bytes(
      r, 0, "000000000001000572616e676500026d3100026d310000000200026d3100000001ab00026d3200000000");
  JoinGroupResponse e;
  e.throttle_time_ms = 5;
  e.error_code = 27;
  e.member_id = "m2";
  expect_bytes(e, 2, "00000005001bffffffff0000000000026d3200000000");
}

TEST(GroupApisGolden, SyncHeartbeatLeave) {
  SyncGroupRequest s;
  s.group_id = "g";
  s.generation_id = 1;
  s.member_id = "m1";
  s.assignments = {{.member_id = "m1", .assignment = blob({1})},
                   {.member_id = "m2", .assignment = blob({2, 3})}};
  expect_bytes(s, 0, "0001670000000100026d310000000200026d31000000010100026d32000000020203");
  SyncGroupResponse sr;
  sr.assignment = blob({0xab});
  expect_bytes(sr, 1, "00000000000000000001ab");
  HeartbeatRequest h;
  h.group_id = "g";
  h.generation_id = 2;
  h.member_id = "m";
  expect_bytes(h, 1, "0001670000000200016d");
  HeartbeatResponse hr;
  hr.error_code = 27;
  expect_bytes(hr, 1, "00000000001b");
  LeaveGroupRequest l;
  l.group_id = "g";
  l.member_id = "m";
  expect_bytes(l, 1, "00016700016d");
  LeaveGroupResponse lr;
  lr.throttle_time_ms = 1;
  lr.error_code = 25;
  expect_bytes(lr, 1, "000000010019");
}

}  // namespace
}  // namespace strata::protocol

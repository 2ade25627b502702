// Consumer-group API definitions: the API keys, version ranges and first flexible
// versions, the defaults Kafka gives fields a version lacks, and where null is allowed.
// The per-API round trips and byte layouts are in group_membership_test.cc,
// group_offsets_test.cc and group_admin_test.cc.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "protocol/apis/delete_groups.h"
#include "protocol/apis/describe_groups.h"
#include "protocol/apis/heartbeat.h"
#include "protocol/apis/join_group.h"
#include "protocol/apis/leave_group.h"
#include "protocol/apis/list_groups.h"
#include "protocol/apis/offset_commit.h"
#include "protocol/apis/offset_delete.h"
#include "protocol/apis/offset_fetch.h"
#include "protocol/apis/sync_group.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

// ---- Constants.

static_assert(OffsetCommitRequest::kApiKey == 8 && OffsetCommitRequest::kVersions.max == 9);
static_assert(OffsetFetchRequest::kApiKey == 9 && OffsetFetchRequest::kVersions.max == 9);
static_assert(JoinGroupRequest::kApiKey == 11 && JoinGroupRequest::kVersions.max == 9);
static_assert(HeartbeatRequest::kApiKey == 12 && HeartbeatRequest::kVersions.max == 4);
static_assert(LeaveGroupRequest::kApiKey == 13 && LeaveGroupRequest::kVersions.max == 5);
static_assert(SyncGroupRequest::kApiKey == 14 && SyncGroupRequest::kVersions.max == 5);
static_assert(DescribeGroupsRequest::kApiKey == 15 && DescribeGroupsRequest::kVersions.max == 5);
static_assert(ListGroupsRequest::kApiKey == 16 && ListGroupsRequest::kVersions.max == 5);
static_assert(DeleteGroupsRequest::kApiKey == 42 && DeleteGroupsRequest::kVersions.max == 2);
static_assert(OffsetDeleteRequest::kApiKey == 47 && OffsetDeleteRequest::kVersions.max == 0);
static_assert(OffsetCommitRequest::kFlexibleFrom == 8 && OffsetFetchRequest::kFlexibleFrom == 6);
static_assert(JoinGroupRequest::kFlexibleFrom == 6 && HeartbeatRequest::kFlexibleFrom == 4);
static_assert(LeaveGroupRequest::kFlexibleFrom == 4 && SyncGroupRequest::kFlexibleFrom == 4);
static_assert(DescribeGroupsRequest::kFlexibleFrom == 5 && ListGroupsRequest::kFlexibleFrom == 3);
static_assert(DeleteGroupsRequest::kFlexibleFrom == 2);
static_assert(OffsetDeleteRequest::kFlexibleFrom > OffsetDeleteRequest::kVersions.max);
static_assert(same_constants<OffsetCommitRequest, OffsetCommitResponse>());
static_assert(same_constants<OffsetFetchRequest, OffsetFetchResponse>());
static_assert(same_constants<JoinGroupRequest, JoinGroupResponse>());
static_assert(same_constants<HeartbeatRequest, HeartbeatResponse>());
static_assert(same_constants<LeaveGroupRequest, LeaveGroupResponse>());
static_assert(same_constants<SyncGroupRequest, SyncGroupResponse>());
static_assert(same_constants<DescribeGroupsRequest, DescribeGroupsResponse>());
static_assert(same_constants<ListGroupsRequest, ListGroupsResponse>());
static_assert(same_constants<DeleteGroupsRequest, DeleteGroupsResponse>());
static_assert(same_constants<OffsetDeleteRequest, OffsetDeleteResponse>());

// ---- Kafka's defaults, and where null is allowed.

TEST(GroupApis, DefaultsAreKafkas) {
  EXPECT_EQ(OffsetCommitRequest{}.generation_id_or_member_epoch, -1);
  EXPECT_EQ(OffsetCommitRequest{}.retention_time_ms, -1);
  EXPECT_FALSE(OffsetCommitRequest{}.group_instance_id.has_value());
  EXPECT_EQ(OffsetCommitRequest::Partition{}.committed_leader_epoch, -1);
  EXPECT_EQ(OffsetCommitRequest::Partition{}.commit_timestamp, -1);
  EXPECT_EQ(OffsetCommitRequest::Partition{}.committed_metadata, "");
  EXPECT_TRUE(OffsetFetchRequest{}.topics.has_value());
  EXPECT_TRUE(OffsetFetchRequest::Group{}.topics.has_value());
  EXPECT_FALSE(OffsetFetchRequest::Group{}.member_id.has_value());
  EXPECT_EQ(OffsetFetchRequest::Group{}.member_epoch, -1);
  EXPECT_EQ(OffsetFetchResponse::Partition{}.committed_leader_epoch, -1);
  EXPECT_EQ(OffsetFetchResponse::Partition{}.metadata, "");
  EXPECT_EQ(JoinGroupRequest{}.rebalance_timeout_ms, -1);
  EXPECT_FALSE(JoinGroupRequest{}.group_instance_id.has_value());
  EXPECT_FALSE(JoinGroupRequest{}.reason.has_value());
  EXPECT_EQ(JoinGroupResponse{}.generation_id, -1);
  EXPECT_FALSE(JoinGroupResponse{}.protocol_type.has_value());
  EXPECT_EQ(JoinGroupResponse{}.protocol_name, "");
  EXPECT_FALSE(JoinGroupResponse::Member{}.group_instance_id.has_value());
  EXPECT_FALSE(HeartbeatRequest{}.group_instance_id.has_value());
  EXPECT_FALSE(LeaveGroupRequest::Member{}.group_instance_id.has_value());
  EXPECT_EQ(LeaveGroupResponse::Member{}.group_instance_id, "");
  EXPECT_FALSE(SyncGroupRequest{}.protocol_type.has_value());
  EXPECT_FALSE(SyncGroupResponse{}.protocol_name.has_value());
  EXPECT_EQ(DescribeGroupsResponse::Group{}.authorized_operations, INT32_MIN);
}

TEST(GroupApis, NullWhereKafkaForbidsItIsRejected) {
  // The protocol name may be null only from v7 (an error answer before a protocol is chosen).
  JoinGroupResponse r;
  r.protocol_name.reset();
  EXPECT_TRUE(decode<JoinGroupResponse>(encode(r, 7), 7));
  EXPECT_FALSE(decode<JoinGroupResponse>(encode(r, 6), 6));
  EXPECT_FALSE(decode<JoinGroupResponse>(encode(r, 0), 0));
  // OffsetFetch's "all topics" (null) exists from v2.
  OffsetFetchRequest q;
  q.group_id = "g1";
  q.topics.reset();
  EXPECT_EQ(hex(encode(q, 2)), squash("0002 6731 ffffffff"));
  EXPECT_FALSE(decode<OffsetFetchRequest>(encode(q, 1), 1));
  auto all = decode<OffsetFetchRequest>(unhex("03 6731 00 00 00"), 7);
  ASSERT_TRUE(all);
  EXPECT_FALSE(all->topics.has_value());
  EXPECT_FALSE(all->require_stable);
}

}  // namespace
}  // namespace strata::protocol

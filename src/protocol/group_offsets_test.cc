// Committed-offset APIs (OffsetCommit, OffsetFetch, OffsetDelete): every version of every
// message round-trips, fields a version lacks keep Kafka's defaults, every truncation is
// rejected; the shapes that change between versions are checked against hand-annotated
// bytes, and non-flexible versions against bytes written by kafka-python 2.0.2 (an
// independent implementation).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "protocol/apis/offset_commit.h"
#include "protocol/apis/offset_delete.h"
#include "protocol/apis/offset_fetch.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

// ---- Samples: every field set away from its default.

OffsetCommitRequest offset_commit_request() {
  OffsetCommitRequest m;
  m.group_id = "g";
  m.generation_id_or_member_epoch = 3;
  m.member_id = "m";
  m.group_instance_id = "i";
  m.retention_time_ms = 86'400'000;
  m.topics = {{.name = "t",
               .partitions = {{.partition_index = 1,
                               .committed_offset = 100,
                               .committed_leader_epoch = 7,
                               .commit_timestamp = 1'700'000'000'000,
                               .committed_metadata = "meta"}}}};
  return m;
}

OffsetCommitResponse offset_commit_response() {
  OffsetCommitResponse m;
  m.throttle_time_ms = 2;
  m.topics = {{.name = "t", .partitions = {{.partition_index = 1, .error_code = 22}}}};
  return m;
}

OffsetFetchRequest offset_fetch_request() {
  OffsetFetchRequest m;
  m.group_id = "g";
  m.topics = std::vector<OffsetFetchRequest::Topic>{{.name = "t", .partition_indexes = {0, 2}}};
  m.groups = {
      {.group_id = "g2",
       .member_id = "m",
       .member_epoch = 5,
       .topics = std::vector<OffsetFetchRequest::Topic>{{.name = "u", .partition_indexes = {1}}}}};
  m.require_stable = true;
  return m;
}

OffsetFetchResponse::Partition offset_fetch_partition() {
  return {.partition_index = 2,
          .committed_offset = 42,
          .committed_leader_epoch = 3,
          .metadata = "meta",
          .error_code = 88};
}

OffsetFetchResponse offset_fetch_response() {
  OffsetFetchResponse m;
  m.throttle_time_ms = 1;
  m.topics = {{.name = "t", .partitions = {offset_fetch_partition()}}};
  m.error_code = 16;
  m.groups = {{.group_id = "g2",
               .topics = {{.name = "u", .partitions = {offset_fetch_partition()}}},
               .error_code = 15}};
  return m;
}

OffsetDeleteRequest offset_delete_request() {
  OffsetDeleteRequest m;
  m.group_id = "g";
  m.topics = {{.name = "t", .partitions = {{.partition_index = 1}}}};
  return m;
}

OffsetDeleteResponse offset_delete_response() {
  OffsetDeleteResponse m;
  m.error_code = 69;
  m.throttle_time_ms = 3;
  m.topics = {{.name = "t", .partitions = {{.partition_index = 1, .error_code = 86}}}};
  return m;
}

// ---- Every version round-trips.

TEST(GroupApis, OffsetCommitEveryVersion) {
  expect_every_version(offset_commit_request());
  expect_every_version(offset_commit_response());
}

TEST(GroupApis, OffsetFetchEveryVersion) {
  expect_every_version(offset_fetch_request());
  expect_every_version(offset_fetch_response());
}

TEST(GroupApis, OffsetDeleteEveryVersion) {
  expect_every_version(offset_delete_request());
  expect_every_version(offset_delete_response());
}

// ---- Hand-annotated bytes for the shapes a handler must get right.

OffsetCommitRequest commit_sample() {
  OffsetCommitRequest m;
  m.group_id = "g";
  m.generation_id_or_member_epoch = 3;
  m.member_id = "m";
  m.topics = {{.name = "t",
               .partitions = {{.partition_index = 0,
                               .committed_offset = 100,
                               .committed_leader_epoch = 7,
                               .commit_timestamp = 1'700'000'000'000}}}};
  return m;
}

TEST(GroupApis, OffsetCommitFieldsComeAndGo) {
  OffsetCommitRequest m = commit_sample();
  // v0: group | 1 topic "t" | 1 partition: 0, offset 100, metadata ""
  expect_bytes(m, 0, "0001 67 00000001 0001 74 00000001 00000000 0000000000000064 0000");
  // v1: generation 3 and member "m"; the commit timestamp after the offset.
  expect_bytes(m, 1,
               "0001 67 00000003 0001 6d 00000001 0001 74 00000001 00000000 0000000000000064"
               " 0000018bcfe56800 0000");
  // v2-4: the timestamp is gone; a retention time (-1: the broker's) follows the member.
  expect_bytes(m, 2,
               "0001 67 00000003 0001 6d ffffffffffffffff 00000001 0001 74 00000001 00000000"
               " 0000000000000064 0000");
  // v5 drops the retention time, v6 adds the leader epoch after the offset.
  expect_bytes(m, 6,
               "0001 67 00000003 0001 6d 00000001 0001 74 00000001 00000000 0000000000000064"
               " 00000007 0000");
  // v7: a null instance id follows the member; v8 is flexible.
  expect_bytes(m, 7,
               "0001 67 00000003 0001 6d ffff 00000001 0001 74 00000001 00000000 0000000000000064"
               " 00000007 0000");
  expect_bytes(
      m, 8, "02 67 00000003 02 6d 00 02 02 74 02 00000000 0000000000000064 00000007 01 00 00 00");
  EXPECT_EQ(encode(m, 9), encode(m, 8));
}

TEST(GroupApis, OffsetFetchBatchesFromV8) {
  // v7, one group: "g1" | 1 topic "t" [0, 1], no tags | require_stable | no tags
  OffsetFetchRequest single;
  single.group_id = "g1";
  single.topics =
      std::vector<OffsetFetchRequest::Topic>{{.name = "t", .partition_indexes = {0, 1}}};
  single.require_stable = true;
  expect_bytes(single, 7, "03 6731 02 02 74 03 00000000 00000001 00 01 00");

  // v8, two groups: "g1" with topic "t" [0, 1]; "g2" with null topics (all).
  OffsetFetchRequest batched;
  batched.groups = {{.group_id = "g1", .topics = single.topics},
                    {.group_id = "g2", .topics = std::nullopt}};
  batched.require_stable = true;
  expect_bytes(batched, 8,
               "03 | 03 6731 02 02 74 03 00000000 00000001 00 00 | 03 6732 00 00 | 01 00");
  // The single-group fields are gone from the wire: setting them changes nothing.
  OffsetFetchRequest mixed = batched;
  mixed.group_id = "ignored";
  EXPECT_EQ(encode(mixed, 8), encode(batched, 8));
  // v9 adds member id (null: not a KIP-848 member) and epoch after each group id.
  batched.groups[0].member_id = "m";
  batched.groups[0].member_epoch = 5;
  expect_bytes(
      batched, 9,
      "03 | 03 6731 02 6d 00000005 02 02 74 03 00000000 00000001 00 00 | 03 6732 00 ffffffff"
      " 00 00 | 01 00");

  // Response v8: throttle | 1 group "g1": 1 topic "t": 1 partition (0, offset 5, epoch -1,
  // metadata "", error 0) | group error 0 | tags at every level.
  OffsetFetchResponse r;
  r.groups = {
      {.group_id = "g1",
       .topics = {{.name = "t", .partitions = {{.partition_index = 0, .committed_offset = 5}}}}}};
  expect_bytes(
      r, 8,
      "00000000 02 03 6731 02 02 74 02 00000000 0000000000000005 ffffffff 01 0000 00 00 0000"
      " 00 00");
  // Response v7 (single group): the same partition, and the group error at the top.
  OffsetFetchResponse old;
  old.topics = r.groups[0].topics;
  expect_bytes(old, 7,
               "00000000 02 02 74 02 00000000 0000000000000005 ffffffff 01 0000 00 00 0000 00");
  // v2 has the top-level error but no throttle time; v5 adds the epoch; v1 has neither.
  expect_bytes(old, 1, "00000001 0001 74 00000001 00000000 0000000000000005 0000 0000");
  expect_bytes(old, 2, "00000001 0001 74 00000001 00000000 0000000000000005 0000 0000 0000");
  expect_bytes(
      old, 5,
      "00000000 00000001 0001 74 00000001 00000000 0000000000000005 ffffffff 0000 0000 0000");
}

TEST(GroupApis, OffsetDeleteIsNeverFlexible) {
  OffsetDeleteRequest q;
  q.group_id = "g";
  q.topics = {{.name = "t", .partitions = {{.partition_index = 0}, {.partition_index = 1}}}};
  expect_bytes(q, 0, "0001 67 00000001 0001 74 00000002 00000000 00000001");
  OffsetDeleteResponse r;
  r.throttle_time_ms = 1;
  r.topics = {{.name = "t", .partitions = {{.partition_index = 0, .error_code = 86}}}};
  // The error code comes before the throttle time.
  expect_bytes(r, 0, "0000 00000001 00000001 0001 74 00000001 00000000 0056");
}

// ---- Golden bytes from kafka-python 2.0.2 (kafka/protocol/group.py, commit.py, admin.py),
// written once by its Struct.encode() and pasted here. kafka-python knows only the
// non-flexible versions up to OffsetCommit and OffsetFetch v3, and has no OffsetDelete.

TEST(GroupApisGolden, OffsetCommit) {
  OffsetCommitRequest q;
  q.group_id = "g";
  q.topics = {
      {.name = "t",
       .partitions = {
           {.partition_index = 0, .committed_offset = 100},
           {.partition_index = 1, .committed_offset = 200, .committed_metadata = std::nullopt}}}};
  expect_bytes(
      q, 0, "000167000000010001740000000200000000000000000000006400000000000100000000000000c8ffff");
  OffsetCommitRequest q1 = commit_sample();
  q1.topics[0].partitions[0].committed_metadata = "x";
  expect_bytes(q1, 1,
               "0001670000000300016d00000001000174000000010000000000000000000000640000018bcfe56800"
               "000178");
  expect_bytes(commit_sample(), 2,
               "0001670000000300016dffffffffffffffff0000000100017400000001000000000000000000000064"
               "0000");
  OffsetCommitResponse r;
  r.throttle_time_ms = 2;
  r.topics = {{.name = "t",
               .partitions = {{.partition_index = 0}, {.partition_index = 1, .error_code = 22}}}};
  expect_bytes(r, 3, "000000020000000100017400000002000000000000000000010016");
}

TEST(GroupApisGolden, OffsetFetch) {
  OffsetFetchRequest q;
  q.group_id = "g1";
  q.topics = std::vector<OffsetFetchRequest::Topic>{{.name = "t", .partition_indexes = {0, 1}}};
  expect_bytes(q, 1, "0002673100000001000174000000020000000000000001");
  q.topics.reset();
  expect_bytes(q, 2, "00026731ffffffff");
  OffsetFetchResponse r;
  r.throttle_time_ms = 1;
  r.topics = {
      {.name = "t",
       .partitions = {{.partition_index = 0, .committed_offset = 5},
                      {.partition_index = 1, .committed_offset = -1, .metadata = std::nullopt}}}};
  expect_bytes(r, 3,
               "0000000100000001000174000000020000000000000000000000050000000000000001ffffffffffff"
               "ffffffff00000000");
}

}  // namespace
}  // namespace strata::protocol

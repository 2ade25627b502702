// Topic and partition admin APIs (CreateTopics, DeleteTopics, CreatePartitions,
// DeleteRecords, DescribeLogDirs, ElectLeaders, Alter/ListPartitionReassignments): every version of every message round-trips, fields a
// version lacks keep Kafka's defaults, every truncation is rejected, and non-flexible
// versions match bytes written by kafka-python (an independent implementation).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "protocol/apis/create_partitions.h"
#include "protocol/apis/create_topics.h"
#include "protocol/apis/delete_records.h"
#include "protocol/apis/delete_topics.h"
#include "protocol/apis/describe_log_dirs.h"
#include "protocol/apis/alter_partition_reassignments.h"
#include "protocol/apis/elect_leaders.h"
#include "protocol/apis/list_partition_reassignments.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

// ---- Samples: every field set away from its default.

CreateTopicsRequest create_topics_request() {
  CreateTopicsRequest m;
  m.topics = {{.name = "orders",
               .num_partitions = 3,
               .replication_factor = 2,
               .assignments = {{.partition_index = 1, .broker_ids = {1, 2}}},
               .configs = {{.name = "cleanup.policy", .value = "compact"}}}};
  m.timeout_ms = 1234;
  m.validate_only = true;
  return m;
}

CreateTopicsResponse create_topics_response() {
  CreateTopicsResponse m;
  m.throttle_time_ms = 7;
  m.topics = {{.name = "orders",
               .topic_id = uuid(1),
               .error_code = 36,
               .error_message = "exists",
               .topic_config_error_code = 29,
               .num_partitions = 3,
               .replication_factor = 2,
               .configs = std::vector<CreateTopicsResponse::Config>{{.name = "retention.ms",
                                                                     .value = "1000",
                                                                     .read_only = true,
                                                                     .config_source = 1,
                                                                     .is_sensitive = true}}}};
  return m;
}

DeleteTopicsRequest delete_topics_request() {
  DeleteTopicsRequest m;
  m.topics = {{.name = "a", .topic_id = uuid(2)}};
  m.topic_names = {"a", "bc"};
  m.timeout_ms = 1000;
  return m;
}

DeleteTopicsResponse delete_topics_response() {
  DeleteTopicsResponse m;
  m.throttle_time_ms = 3;
  m.responses = {{.name = "a", .topic_id = uuid(3), .error_code = 3, .error_message = "unknown"}};
  return m;
}

CreatePartitionsRequest create_partitions_request() {
  CreatePartitionsRequest m;
  m.topics = {{.name = "t",
               .count = 4,
               .assignments = std::vector<CreatePartitionsRequest::Assignment>{{{1, 2}}}}};
  m.timeout_ms = 500;
  m.validate_only = true;
  return m;
}

CreatePartitionsResponse create_partitions_response() {
  CreatePartitionsResponse m;
  m.throttle_time_ms = 1;
  m.results = {{.name = "t", .error_code = 37, .error_message = "too few"}};
  return m;
}

DeleteRecordsRequest delete_records_request() {
  DeleteRecordsRequest m;
  m.topics = {{.name = "t", .partitions = {{.partition_index = 1, .offset = 1'000'000'000'000}}}};
  m.timeout_ms = 30000;
  return m;
}

DeleteRecordsResponse delete_records_response() {
  DeleteRecordsResponse m;
  m.throttle_time_ms = 6;
  m.topics = {
      {.name = "t", .partitions = {{.partition_index = 1, .low_watermark = 77, .error_code = 1}}}};
  return m;
}

DescribeLogDirsRequest describe_log_dirs_request() {
  DescribeLogDirsRequest m;
  m.topics = std::vector<DescribeLogDirsRequest::Topic>{{.topic = "t", .partitions = {0, 2}}};
  return m;
}

DescribeLogDirsResponse describe_log_dirs_response() {
  DescribeLogDirsResponse m;
  m.throttle_time_ms = 8;
  m.error_code = 31;
  m.results = {{.error_code = 57,
                .log_dir = "/var/strata/data",
                .topics = {{.name = "t",
                            .partitions = {{.partition_index = 2,
                                            .partition_size = 1 << 20,
                                            .offset_lag = 5,
                                            .is_future_key = true}}}},
                .total_bytes = int64_t(1) << 40,
                .usable_bytes = int64_t(1) << 39}};
  return m;
}

ElectLeadersRequest elect_leaders_request() {
  ElectLeadersRequest m;
  m.election_type = 1;
  m.topic_partitions = std::vector<ElectLeadersRequest::TopicPartitions>{{"t", {0, 3}}, {"u", {1}}};
  m.timeout_ms = 1234;
  return m;
}

ElectLeadersResponse elect_leaders_response() {
  ElectLeadersResponse m;
  m.throttle_time_ms = 3;
  m.error_code = 42;
  m.replica_election_results = {{"t", {{3, 84, "not needed"}, {5, 80, "none alive"}}}};
  return m;
}

AlterPartitionReassignmentsRequest alter_reassignments_request() {
  AlterPartitionReassignmentsRequest m;
  m.timeout_ms = 1500;
  m.topics = {{"t", {{2, std::vector<int32_t>{2, 3, 4}}}}};
  return m;
}

AlterPartitionReassignmentsResponse alter_reassignments_response() {
  AlterPartitionReassignmentsResponse m;
  m.throttle_time_ms = 4;
  m.error_code = 41;
  m.error_message = "not controller";
  m.responses = {{"t", {{2, 39, "Broker 9 is not registered."}}}};
  return m;
}

ListPartitionReassignmentsRequest list_reassignments_request() {
  ListPartitionReassignmentsRequest m;
  m.timeout_ms = 2500;
  m.topics = std::vector<ListPartitionReassignmentsRequest::Topic>{{"t", {0, 2}}};
  return m;
}

ListPartitionReassignmentsResponse list_reassignments_response() {
  ListPartitionReassignmentsResponse m;
  m.throttle_time_ms = 5;
  m.error_code = 7;
  m.error_message = "later";
  m.topics = {{"t", {{2, {2, 3, 4, 1}, {4}, {1}}}}};
  return m;
}

// ---- Every version round-trips.

TEST(AdminApis, CreateTopicsEveryVersion) {
  expect_every_version(create_topics_request());
  expect_every_version(create_topics_response());
}

TEST(AdminApis, DeleteTopicsEveryVersion) {
  expect_every_version(delete_topics_request());
  expect_every_version(delete_topics_response());
}

TEST(AdminApis, CreatePartitionsEveryVersion) {
  expect_every_version(create_partitions_request());
  expect_every_version(create_partitions_response());
}

TEST(AdminApis, DeleteRecordsEveryVersion) {
  expect_every_version(delete_records_request());
  expect_every_version(delete_records_response());
}

TEST(AdminApis, DescribeLogDirsEveryVersion) {
  expect_every_version(describe_log_dirs_request());
  expect_every_version(describe_log_dirs_response());
}

TEST(AdminApis, PartitionReassignmentsEveryVersion) {
  expect_every_version(alter_reassignments_request());
  expect_every_version(alter_reassignments_response());
  expect_every_version(list_reassignments_request());
  expect_every_version(list_reassignments_response());
}

// A null replica list cancels a move; a null topic list asks for every move. Both
// compact (flexible v0): length 0.
TEST(AdminApis, PartitionReassignmentsNulls) {
  AlterPartitionReassignmentsRequest cancel;
  cancel.timeout_ms = 1;
  cancel.topics = {{"t", {{0, std::nullopt}}}};
  EXPECT_EQ(hex(encode(cancel, 0)), "00000001" "02" "0274" "02" "00000000" "00" "00" "00" "00");
  ListPartitionReassignmentsRequest all;
  all.timeout_ms = 1;
  EXPECT_EQ(hex(encode(all, 0)), "00000001" "00" "00");
}

TEST(AdminApis, ElectLeadersEveryVersion) {
  expect_every_version(elect_leaders_request());
  expect_every_version(elect_leaders_response());
}

// ---- The version boundaries where fields come and go.

// v0 has no election type (preferred) and no top-level error; a null list is every
// partition.
TEST(AdminApis, ElectLeadersVersionZeroAndNullList) {
  ElectLeadersRequest request = elect_leaders_request();
  ElectLeadersResponse response = elect_leaders_response();
  auto v0 = decode<ElectLeadersRequest>(encode(request, 0), 0);
  ASSERT_TRUE(v0);
  EXPECT_EQ(v0->election_type, 0);
  auto r0 = decode<ElectLeadersResponse>(encode(response, 0), 0);
  ASSERT_TRUE(r0);
  EXPECT_EQ(r0->error_code, 0);
  ElectLeadersRequest all;
  all.topic_partitions.reset();
  all.timeout_ms = 1;
  EXPECT_EQ(hex(encode(all, 1)), "00ffffffff00000001");
  EXPECT_EQ(hex(encode(all, 2)), "00000000000100");
  auto back = decode<ElectLeadersRequest>(unhex("00000000000000"), 2);
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->topic_partitions.has_value());
}

TEST(AdminApis, CreateTopicsResponseTaggedConfigErrorIsOmittedWhenZero) {
  CreateTopicsResponse m;
  m.topics = {{.name = "t",
               .error_message = std::nullopt,
               .num_partitions = 1,
               .replication_factor = 1,
               .configs = std::nullopt}};
  // throttle | 1 topic | "t" | error 0 | null message | 1 partition | rf 1 | null configs
  // | no topic tags | no message tags
  EXPECT_EQ(hex(encode(m, 5)), squash("00000000 02 0274 0000 00 00000001 0001 00 00 00"));
  m.topics[0].topic_config_error_code = 0x25;
  // The topic's tag section now holds tag 0, 2 bytes.
  const std::string with_tag = squash("00000000 02 0274 0000 00 00000001 0001 00 01 00 02 0025 00");
  EXPECT_EQ(hex(encode(m, 5)), with_tag);
  auto back = decode<CreateTopicsResponse>(unhex(with_tag), 5);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->topics[0].topic_config_error_code, 0x25);
  // v7 puts the topic id after the name.
  m.topics[0].topic_id = uuid(0);
  const std::string v7 = hex(encode(m, 7));
  EXPECT_EQ(v7.substr(0, 14 + 32), squash("00000000 02 0274 000102030405060708090a0b0c0d0e0f"));
}

TEST(AdminApis, DeleteTopicsSwitchesFromNamesToTopicStatesAtV6) {
  auto m = delete_topics_request();
  // v5: compact array of compact strings, then the timeout.
  EXPECT_EQ(hex(encode(m, 5)), squash("03 0261 03 6263 000003e8 00"));
  const std::string v6 = hex(encode(m, 6));
  EXPECT_EQ(v6, squash("02 0261 02030405060708090a0b0c0d0e0f1011 00 000003e8 00"));
  m.topics[0].name.reset();
  EXPECT_EQ(hex(encode(m, 6)).substr(0, 4), "0200");
}

TEST(AdminApis, DescribeLogDirsNullTopicsMeansAll) {
  DescribeLogDirsRequest m;
  m.topics.reset();
  EXPECT_EQ(hex(encode(m, 0)), "ffffffff");
  EXPECT_EQ(hex(encode(m, 2)), "0000");
  auto back = decode<DescribeLogDirsRequest>(unhex("0000"), 4);
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->topics.has_value());
}

// ---- Golden bytes from kafka-python 2.0.2 (kafka/protocol/admin.py, commit.py), written
// once by its Struct.encode() and pasted here. kafka-python has no DeleteRecords or
// DescribeLogDirs, so those are not compared.

CreateTopicsRequest golden_create_topics(bool validate_only) {
  CreateTopicsRequest m;
  m.topics = {{.name = "orders",
               .num_partitions = 3,
               .replication_factor = 2,
               .configs = {{.name = "cleanup.policy", .value = "compact"},
                           {.name = "retention.ms", .value = std::nullopt}}},
              {.name = "manual",
               .num_partitions = -1,
               .replication_factor = -1,
               .assignments = {{.partition_index = 0, .broker_ids = {1, 2}},
                               {.partition_index = 1, .broker_ids = {2, 3}}}}};
  m.timeout_ms = 30000;
  m.validate_only = validate_only;
  return m;
}

TEST(AdminApisGolden, CreateTopics) {
  const std::string body =
      "0000000200066f72646572730000000300020000000000000002000e636c65616e75702e706f6c6963"
      "790007636f6d70616374000c726574656e74696f6e2e6d73ffff00066d616e75616cffffffffffff00"
      "000002000000000000000200000001000000020000000100000002000000020000000300000000";
  expect_bytes(golden_create_topics(false), 0, body + "00007530");
  expect_bytes(golden_create_topics(true), 1, body + "0000753001");
  expect_bytes(golden_create_topics(false), 3, body + "0000753000");

  CreateTopicsResponse r;
  r.topics = {{.name = "orders", .error_code = 0, .error_message = std::nullopt},
              {.name = "bad", .error_code = 36, .error_message = "exists"}};
  expect_bytes(r, 0, "0000000200066f7264657273000000036261640024");
  r.throttle_time_ms = 5;
  expect_bytes(r, 2, "000000050000000200066f72646572730000ffff000362616400240006657869737473");
}

TEST(AdminApisGolden, DeleteTopics) {
  DeleteTopicsRequest q;
  q.topic_names = {"a", "bc"};
  q.timeout_ms = 1000;
  expect_bytes(q, 1, "0000000200016100026263000003e8");
  DeleteTopicsResponse r;
  r.throttle_time_ms = 9;
  r.responses = {{.name = "a", .error_code = 0}, {.name = "bc", .error_code = 3}};
  expect_bytes(r, 1, "00000009000000020001610000000262630003");
}

TEST(AdminApisGolden, CreatePartitions) {
  CreatePartitionsRequest q;
  q.topics = {{.name = "t",
               .count = 4,
               .assignments = std::vector<CreatePartitionsRequest::Assignment>{{{1, 2}}, {{2, 3}}}},
              {.name = "u", .count = 6, .assignments = std::nullopt}};
  q.timeout_ms = 500;
  q.validate_only = true;
  expect_bytes(q, 1,
               "00000002000174000000040000000200000002000000010000000200000002000000020000000300"
               "017500000006ffffffff000001f401");
  CreatePartitionsResponse r;
  r.throttle_time_ms = 1;
  r.results = {{.name = "t"}, {.name = "u", .error_code = 37, .error_message = "too few"}};
  expect_bytes(r, 0, "00000001000000020001740000ffff00017500250007746f6f20666577");
}

}  // namespace
}  // namespace strata::protocol

// Admin API definitions: the API keys and version ranges, the defaults Kafka gives
// fields a version lacks, and where null is allowed. The per-API round trips and byte
// layouts are in admin_topics_test.cc, admin_configs_test.cc and admin_coordinator_test.cc.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "protocol/apis/alter_configs.h"
#include "protocol/apis/create_partitions.h"
#include "protocol/apis/create_topics.h"
#include "protocol/apis/delete_records.h"
#include "protocol/apis/delete_topics.h"
#include "protocol/apis/describe_configs.h"
#include "protocol/apis/describe_log_dirs.h"
#include "protocol/apis/find_coordinator.h"
#include "protocol/apis/incremental_alter_configs.h"
#include "protocol/apis/init_producer_id.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

// ---- Constants.

static_assert(CreateTopicsRequest::kApiKey == 19);
static_assert(DeleteTopicsRequest::kApiKey == 20);
static_assert(DeleteRecordsRequest::kApiKey == 21);
static_assert(InitProducerIdRequest::kApiKey == 22);
static_assert(DescribeConfigsRequest::kApiKey == 32);
static_assert(AlterConfigsRequest::kApiKey == 33);
static_assert(DescribeLogDirsRequest::kApiKey == 35);
static_assert(CreatePartitionsRequest::kApiKey == 37);
static_assert(IncrementalAlterConfigsRequest::kApiKey == 44);
static_assert(FindCoordinatorRequest::kApiKey == 10);
static_assert(same_constants<CreateTopicsRequest, CreateTopicsResponse>());
static_assert(same_constants<DeleteTopicsRequest, DeleteTopicsResponse>());
static_assert(same_constants<DeleteRecordsRequest, DeleteRecordsResponse>());
static_assert(same_constants<InitProducerIdRequest, InitProducerIdResponse>());
static_assert(same_constants<DescribeConfigsRequest, DescribeConfigsResponse>());
static_assert(same_constants<AlterConfigsRequest, AlterConfigsResponse>());
static_assert(same_constants<DescribeLogDirsRequest, DescribeLogDirsResponse>());
static_assert(same_constants<CreatePartitionsRequest, CreatePartitionsResponse>());
static_assert(same_constants<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>());
static_assert(same_constants<FindCoordinatorRequest, FindCoordinatorResponse>());
// Every admin API here has flexible versions (the responses match by same_constants).
static_assert(CreateTopicsRequest::kFlexibleFrom <= CreateTopicsRequest::kVersions.max);
static_assert(DeleteTopicsRequest::kFlexibleFrom <= DeleteTopicsRequest::kVersions.max);
static_assert(DeleteRecordsRequest::kFlexibleFrom <= DeleteRecordsRequest::kVersions.max);
static_assert(InitProducerIdRequest::kFlexibleFrom <= InitProducerIdRequest::kVersions.max);
static_assert(DescribeConfigsRequest::kFlexibleFrom <= DescribeConfigsRequest::kVersions.max);
static_assert(AlterConfigsRequest::kFlexibleFrom <= AlterConfigsRequest::kVersions.max);
static_assert(DescribeLogDirsRequest::kFlexibleFrom <= DescribeLogDirsRequest::kVersions.max);
static_assert(CreatePartitionsRequest::kFlexibleFrom <= CreatePartitionsRequest::kVersions.max);
static_assert(IncrementalAlterConfigsRequest::kFlexibleFrom <=
              IncrementalAlterConfigsRequest::kVersions.max);
static_assert(FindCoordinatorRequest::kFlexibleFrom <= FindCoordinatorRequest::kVersions.max);

// ---- Kafka's defaults, and where null is allowed.

TEST(AdminApis, DefaultsAreKafkas) {
  EXPECT_EQ(CreateTopicsRequest{}.timeout_ms, 60000);
  EXPECT_EQ(CreateTopicsResponse::Topic{}.num_partitions, -1);
  EXPECT_EQ(CreateTopicsResponse::Topic{}.replication_factor, -1);
  EXPECT_EQ(CreateTopicsResponse::Topic{}.error_message, "");
  EXPECT_TRUE(CreateTopicsResponse::Topic{}.configs.has_value());
  EXPECT_EQ(CreateTopicsResponse::Config{}.config_source, -1);
  EXPECT_FALSE(DeleteTopicsRequest::Topic{}.name.has_value());
  EXPECT_FALSE(DeleteTopicsResponse::Result{}.error_message.has_value());
  EXPECT_FALSE(CreatePartitionsResponse::Result{}.error_message.has_value());
  EXPECT_EQ(DescribeConfigsResponse::Config{}.config_source, -1);
  EXPECT_EQ(DescribeLogDirsResponse::Result{}.total_bytes, -1);
  EXPECT_EQ(DescribeLogDirsResponse::Result{}.usable_bytes, -1);
  EXPECT_EQ(InitProducerIdRequest{}.producer_id, -1);
  EXPECT_EQ(InitProducerIdRequest{}.producer_epoch, -1);
  EXPECT_EQ(InitProducerIdResponse{}.producer_id, -1);
}

TEST(AdminApis, NullWhereKafkaForbidsItIsRejected) {
  DeleteTopicsResponse m;
  m.responses = {{.name = std::nullopt}};
  EXPECT_TRUE(decode<DeleteTopicsResponse>(encode(m, 6), 6));
  EXPECT_FALSE(decode<DeleteTopicsResponse>(encode(m, 5), 5));
  EXPECT_FALSE(decode<DeleteTopicsResponse>(encode(m, 0), 0));
  DescribeConfigsResponse d;
  d.results = {{.configs = {{.documentation = std::nullopt}}}};
  EXPECT_TRUE(decode<DescribeConfigsResponse>(encode(d, 3), 3));
  // Before v3 documentation is not on the wire at all, so null cannot be rejected there.
  EXPECT_TRUE(decode<DescribeConfigsResponse>(encode(d, 2), 2));
}

}  // namespace
}  // namespace strata::protocol

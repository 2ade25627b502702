// FindCoordinator and InitProducerId: every version of every message round-trips, fields
// a version lacks keep Kafka's defaults, every truncation is rejected, and non-flexible
// versions match bytes written by kafka-python (an independent implementation).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "protocol/apis/find_coordinator.h"
#include "protocol/apis/init_producer_id.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

// ---- Samples: every field set away from its default.

InitProducerIdRequest init_producer_id_request() {
  InitProducerIdRequest m;
  m.transactional_id = "tx-1";
  m.transaction_timeout_ms = 60000;
  m.producer_id = 4000;
  m.producer_epoch = 3;
  return m;
}

InitProducerIdResponse init_producer_id_response() {
  InitProducerIdResponse m;
  m.throttle_time_ms = 9;
  m.error_code = 47;
  m.producer_id = 4001;
  m.producer_epoch = 4;
  return m;
}

FindCoordinatorRequest find_coordinator_request() {
  FindCoordinatorRequest m;
  m.key = "group-1";
  m.key_type = 1;
  m.coordinator_keys = {"group-1", "group-2"};
  return m;
}

FindCoordinatorResponse find_coordinator_response() {
  FindCoordinatorResponse m;
  m.throttle_time_ms = 5;
  m.error_code = 15;
  m.error_message = "loading";
  m.node_id = 3;
  m.host = "b3";
  m.port = 9092;
  m.coordinators = {{.key = "group-1",
                     .node_id = 4,
                     .host = "b4",
                     .port = 9093,
                     .error_code = 14,
                     .error_message = "not yet"}};
  return m;
}

// ---- Every version round-trips.

TEST(AdminApis, InitProducerIdEveryVersion) {
  expect_every_version(init_producer_id_request());
  expect_every_version(init_producer_id_response());
}

TEST(AdminApis, FindCoordinatorEveryVersion) {
  expect_every_version(find_coordinator_request());
  expect_every_version(find_coordinator_response());
}

// ---- The version boundaries where fields come and go.

TEST(AdminApis, FindCoordinatorBatchesFromV4) {
  FindCoordinatorRequest q = find_coordinator_request();
  EXPECT_EQ(hex(encode(q, 3)), squash("0867726f75702d31 01 00"));
  EXPECT_EQ(hex(encode(q, 4)), squash("01 03 0867726f75702d31 0867726f75702d32 00"));
  FindCoordinatorResponse r;
  r.coordinators = {
      {.key = "g", .node_id = 1, .host = "h", .port = 2, .error_message = std::nullopt}};
  // throttle | 1 coordinator: "g" node 1 "h" port 2 error 0 null message, no tags | no tags
  EXPECT_EQ(hex(encode(r, 4)), squash("00000000 02 0267 00000001 0268 00000002 0000 00 00 00"));
}

TEST(AdminApis, InitProducerIdV3AddsProducerIdAndEpoch) {
  InitProducerIdRequest m;
  m.transactional_id.reset();
  m.transaction_timeout_ms = 60000;
  EXPECT_EQ(hex(encode(m, 2)), squash("00 0000ea60 00"));
  EXPECT_EQ(hex(encode(m, 3)), squash("00 0000ea60 ffffffffffffffff ffff 00"));
}

// ---- Golden bytes from kafka-python 2.0.2 (kafka/protocol/admin.py, commit.py), written
// once by its Struct.encode() and pasted here. kafka-python has no InitProducerId, and its
// GroupCoordinatorResponse_v1 disagrees with Kafka's schema (no throttle time), so those
// are not compared.

TEST(AdminApisGolden, FindCoordinator) {
  FindCoordinatorRequest q;
  q.key = "g1";
  expect_bytes(q, 0, "00026731");
  q.key = "tx";
  q.key_type = 1;
  expect_bytes(q, 1, "0002747801");
  FindCoordinatorResponse r;
  r.node_id = 3;
  r.host = "b3";
  r.port = 9092;
  expect_bytes(r, 0, "0000000000030002623300002384");
}

}  // namespace
}  // namespace strata::protocol

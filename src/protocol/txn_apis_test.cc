// Transaction APIs (AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, WriteTxnMarkers,
// TxnOffsetCommit, DescribeProducers, DescribeTransactions, ListTransactions): the API
// keys and version ranges, Kafka's defaults, every version of every message round-trips
// (fields a version lacks keep their defaults, every truncation is rejected), and the
// version boundaries where fields come and go are checked against hand-annotated bytes.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "protocol/apis/add_offsets_to_txn.h"
#include "protocol/apis/add_partitions_to_txn.h"
#include "protocol/apis/describe_producers.h"
#include "protocol/apis/describe_transactions.h"
#include "protocol/apis/end_txn.h"
#include "protocol/apis/list_transactions.h"
#include "protocol/apis/txn_offset_commit.h"
#include "protocol/apis/write_txn_markers.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

// ---- Constants.

static_assert(AddPartitionsToTxnRequest::kApiKey == 24);
static_assert(AddOffsetsToTxnRequest::kApiKey == 25);
static_assert(EndTxnRequest::kApiKey == 26);
static_assert(WriteTxnMarkersRequest::kApiKey == 27);
static_assert(TxnOffsetCommitRequest::kApiKey == 28);
static_assert(DescribeProducersRequest::kApiKey == 61);
static_assert(DescribeTransactionsRequest::kApiKey == 65);
static_assert(ListTransactionsRequest::kApiKey == 66);
static_assert(same_constants<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse>());
static_assert(same_constants<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse>());
static_assert(same_constants<EndTxnRequest, EndTxnResponse>());
static_assert(same_constants<WriteTxnMarkersRequest, WriteTxnMarkersResponse>());
static_assert(same_constants<TxnOffsetCommitRequest, TxnOffsetCommitResponse>());
static_assert(same_constants<DescribeProducersRequest, DescribeProducersResponse>());
static_assert(same_constants<DescribeTransactionsRequest, DescribeTransactionsResponse>());
static_assert(same_constants<ListTransactionsRequest, ListTransactionsResponse>());

template <class T>
constexpr bool versions_are(int16_t min, int16_t max, int16_t flexible_from) {
  return T::kVersions.min == min && T::kVersions.max == max && T::kFlexibleFrom == flexible_from;
}
static_assert(versions_are<AddPartitionsToTxnRequest>(0, 5, 3));
static_assert(versions_are<AddOffsetsToTxnRequest>(0, 4, 3));
static_assert(versions_are<EndTxnRequest>(0, 5, 3));
static_assert(versions_are<WriteTxnMarkersRequest>(0, 2, 1));
static_assert(versions_are<TxnOffsetCommitRequest>(0, 5, 3));
static_assert(versions_are<DescribeProducersRequest>(0, 0, 0));
static_assert(versions_are<DescribeTransactionsRequest>(0, 0, 0));
static_assert(versions_are<ListTransactionsRequest>(0, 2, 0));

TEST(TxnApis, DefaultsAreKafkas) {
  EXPECT_FALSE(AddPartitionsToTxnRequest::Transaction{}.verify_only);
  EXPECT_EQ(EndTxnResponse{}.producer_id, -1);
  EXPECT_EQ(EndTxnResponse{}.producer_epoch, -1);
  EXPECT_EQ(WriteTxnMarkersRequest::Marker{}.transaction_version, 0);
  EXPECT_EQ(TxnOffsetCommitRequest{}.generation_id, -1);
  EXPECT_EQ(TxnOffsetCommitRequest{}.member_id, "");
  EXPECT_FALSE(TxnOffsetCommitRequest{}.group_instance_id.has_value());
  EXPECT_EQ(TxnOffsetCommitRequest::Partition{}.committed_leader_epoch, -1);
  EXPECT_EQ(TxnOffsetCommitRequest::Partition{}.committed_metadata, "");
  EXPECT_FALSE(DescribeProducersResponse::Partition{}.error_message.has_value());
  EXPECT_EQ(DescribeProducersResponse::ProducerState{}.last_sequence, -1);
  EXPECT_EQ(DescribeProducersResponse::ProducerState{}.last_timestamp, -1);
  EXPECT_EQ(DescribeProducersResponse::ProducerState{}.current_txn_start_offset, -1);
  EXPECT_EQ(ListTransactionsRequest{}.duration_filter, -1);
  EXPECT_FALSE(ListTransactionsRequest{}.transactional_id_pattern.has_value());
}

// ---- Samples: every field set away from its default.

AddPartitionsToTxnRequest add_partitions_request() {
  AddPartitionsToTxnRequest m;
  m.transactions = {{.transactional_id = "tx-b",
                     .producer_id = 4001,
                     .producer_epoch = 2,
                     .verify_only = true,
                     .topics = {{.name = "u", .partitions = {3}}}}};
  m.v3_and_below_transactional_id = "tx-a";
  m.v3_and_below_producer_id = 4000;
  m.v3_and_below_producer_epoch = 1;
  m.v3_and_below_topics = {{.name = "t", .partitions = {0, 2}}};
  return m;
}

AddPartitionsToTxnResponse add_partitions_response() {
  AddPartitionsToTxnResponse m;
  m.throttle_time_ms = 4;
  m.error_code = 51;
  m.results_by_transaction = {
      {.transactional_id = "tx-b",
       .topic_results = {
           {.name = "u",
            .results_by_partition = {{.partition_index = 3, .partition_error_code = 48}}}}}};
  m.results_by_topic_v3_and_below = {
      {.name = "t", .results_by_partition = {{.partition_index = 2, .partition_error_code = 3}}}};
  return m;
}

AddOffsetsToTxnRequest add_offsets_request() {
  AddOffsetsToTxnRequest m;
  m.transactional_id = "tx-a";
  m.producer_id = 4000;
  m.producer_epoch = 1;
  m.group_id = "g";
  return m;
}

AddOffsetsToTxnResponse add_offsets_response() {
  AddOffsetsToTxnResponse m;
  m.throttle_time_ms = 1;
  m.error_code = 90;
  return m;
}

EndTxnRequest end_txn_request() {
  EndTxnRequest m;
  m.transactional_id = "tx-a";
  m.producer_id = 4000;
  m.producer_epoch = 1;
  m.committed = true;
  return m;
}

EndTxnResponse end_txn_response() {
  EndTxnResponse m;
  m.throttle_time_ms = 2;
  m.error_code = 48;
  m.producer_id = 4000;
  m.producer_epoch = 2;
  return m;
}

WriteTxnMarkersRequest write_markers_request() {
  WriteTxnMarkersRequest m;
  m.markers = {{.producer_id = 4000,
                .producer_epoch = 1,
                .transaction_result = true,
                .topics = {{.name = "t", .partition_indexes = {0, 2}}},
                .coordinator_epoch = 7,
                .transaction_version = 2}};
  return m;
}

WriteTxnMarkersResponse write_markers_response() {
  WriteTxnMarkersResponse m;
  m.markers = {
      {.producer_id = 4000,
       .topics = {{.name = "t", .partitions = {{.partition_index = 2, .error_code = 6}}}}}};
  return m;
}

TxnOffsetCommitRequest txn_offset_commit_request() {
  TxnOffsetCommitRequest m;
  m.transactional_id = "tx-a";
  m.group_id = "g";
  m.producer_id = 4000;
  m.producer_epoch = 1;
  m.generation_id = 3;
  m.member_id = "m";
  m.group_instance_id = "i";
  m.topics = {{.name = "t",
               .partitions = {{.partition_index = 1,
                               .committed_offset = 100,
                               .committed_leader_epoch = 7,
                               .committed_metadata = "meta"}}}};
  return m;
}

TxnOffsetCommitResponse txn_offset_commit_response() {
  TxnOffsetCommitResponse m;
  m.throttle_time_ms = 3;
  m.topics = {{.name = "t", .partitions = {{.partition_index = 1, .error_code = 22}}}};
  return m;
}

DescribeProducersRequest describe_producers_request() {
  DescribeProducersRequest m;
  m.topics = {{.name = "t", .partition_indexes = {0, 1}}};
  return m;
}

DescribeProducersResponse describe_producers_response() {
  DescribeProducersResponse m;
  m.throttle_time_ms = 5;
  m.topics = {{.name = "t",
               .partitions = {{.partition_index = 1,
                               .error_code = 6,
                               .error_message = "not leader",
                               .active_producers = {{.producer_id = 4000,
                                                     .producer_epoch = 1,
                                                     .last_sequence = 41,
                                                     .last_timestamp = 1'700'000'000'000,
                                                     .coordinator_epoch = 7,
                                                     .current_txn_start_offset = 90}}}}}};
  return m;
}

DescribeTransactionsRequest describe_transactions_request() {
  DescribeTransactionsRequest m;
  m.transactional_ids = {"tx-a", "tx-b"};
  return m;
}

DescribeTransactionsResponse describe_transactions_response() {
  DescribeTransactionsResponse m;
  m.throttle_time_ms = 6;
  m.transaction_states = {{.error_code = 105,
                           .transactional_id = "tx-a",
                           .transaction_state = "Ongoing",
                           .transaction_timeout_ms = 60000,
                           .transaction_start_time_ms = 1'700'000'000'000,
                           .producer_id = 4000,
                           .producer_epoch = 1,
                           .topics = {{.topic = "t", .partitions = {0, 2}}}}};
  return m;
}

ListTransactionsRequest list_transactions_request() {
  ListTransactionsRequest m;
  m.state_filters = {"Ongoing"};
  m.producer_id_filters = {4000};
  m.duration_filter = 30000;
  m.transactional_id_pattern = "tx-.*";
  return m;
}

ListTransactionsResponse list_transactions_response() {
  ListTransactionsResponse m;
  m.throttle_time_ms = 7;
  m.error_code = 15;
  m.unknown_state_filters = {"Bogus"};
  m.transaction_states = {
      {.transactional_id = "tx-a", .producer_id = 4000, .transaction_state = "Ongoing"}};
  return m;
}

// ---- Every version round-trips.

TEST(TxnApis, AddPartitionsToTxnEveryVersion) {
  expect_every_version(add_partitions_request());
  expect_every_version(add_partitions_response());
}

TEST(TxnApis, AddOffsetsToTxnEveryVersion) {
  expect_every_version(add_offsets_request());
  expect_every_version(add_offsets_response());
}

TEST(TxnApis, EndTxnEveryVersion) {
  expect_every_version(end_txn_request());
  expect_every_version(end_txn_response());
}

TEST(TxnApis, WriteTxnMarkersEveryVersion) {
  expect_every_version(write_markers_request());
  expect_every_version(write_markers_response());
}

TEST(TxnApis, TxnOffsetCommitEveryVersion) {
  expect_every_version(txn_offset_commit_request());
  expect_every_version(txn_offset_commit_response());
}

TEST(TxnApis, DescribeProducersEveryVersion) {
  expect_every_version(describe_producers_request());
  expect_every_version(describe_producers_response());
}

TEST(TxnApis, DescribeTransactionsEveryVersion) {
  expect_every_version(describe_transactions_request());
  expect_every_version(describe_transactions_response());
}

TEST(TxnApis, ListTransactionsEveryVersion) {
  expect_every_version(list_transactions_request());
  expect_every_version(list_transactions_response());
}

// ---- The version boundaries where fields come and go, in hand-annotated bytes.

TEST(TxnApis, AddPartitionsToTxnBatchesFromV4) {
  AddPartitionsToTxnRequest q;
  q.v3_and_below_transactional_id = "t";
  q.v3_and_below_producer_id = 5;
  q.v3_and_below_producer_epoch = 1;
  q.v3_and_below_topics = {{.name = "a", .partitions = {0}}};
  // v2: "t" | producer 5 | epoch 1 | 1 topic "a" | 1 partition: 0
  expect_bytes(q, 2, "0001 74 0000000000000005 0001 00000001 0001 61 00000001 00000000");
  // v3, flexible: compact lengths (n + 1) and a tagged section after each struct.
  expect_bytes(q, 3, "02 74 0000000000000005 0001 02 02 61 02 00000000 00 | 00");
  // v4: the single-transaction fields are gone; an empty Transactions array remains.
  EXPECT_EQ(hex(encode(q, 4)), squash("01 00"));

  AddPartitionsToTxnRequest b;
  b.transactions = {{.transactional_id = "t",
                     .producer_id = 5,
                     .producer_epoch = 1,
                     .verify_only = true,
                     .topics = {{.name = "a", .partitions = {0}}}}};
  // v4: 1 transaction: "t" | producer 5 | epoch 1 | verify_only | 1 topic "a" [0] | tags
  expect_bytes(b, 4, "02 | 02 74 0000000000000005 0001 01 02 02 61 02 00000000 00 00 | 00");
  EXPECT_EQ(encode(b, 5), encode(b, 4));
  // Before v4 the Transactions array does not exist: the top-level fields at defaults.
  EXPECT_EQ(hex(encode(b, 3)), squash("01 0000000000000000 0000 01 00"));
}

TEST(TxnApis, AddPartitionsToTxnResponseByTransactionFromV4) {
  AddPartitionsToTxnResponse r;
  r.throttle_time_ms = 0;
  r.error_code = 0;
  r.results_by_transaction = {
      {.transactional_id = "t",
       .topic_results = {
           {.name = "a",
            .results_by_partition = {{.partition_index = 0, .partition_error_code = 3}}}}}};
  r.results_by_topic_v3_and_below = {
      {.name = "a", .results_by_partition = {{.partition_index = 0, .partition_error_code = 48}}}};
  // v2: throttle | 1 topic "a" | 1 partition: 0, error 48
  expect_bytes(r, 2, "00000000 00000001 0001 61 00000001 00000000 0030");
  // v3: the same, flexible.
  expect_bytes(r, 3, "00000000 02 02 61 02 00000000 0030 00 00 | 00");
  // v4: throttle | top-level error | 1 transaction "t": 1 topic "a": partition 0 error 3
  expect_bytes(r, 4, "00000000 0000 02 02 74 02 02 61 02 00000000 0003 00 00 00 | 00");
}

TEST(TxnApis, FlexibleVersionsUseCompactStrings) {
  AddOffsetsToTxnRequest q;
  q.transactional_id = "t";
  q.producer_id = 5;
  q.producer_epoch = 1;
  q.group_id = "g";
  // v2: INT16 lengths.  v3: UNSIGNED_VARINT lengths + 1, then an empty tagged section.
  expect_bytes(q, 2, "0001 74 0000000000000005 0001 0001 67");
  expect_bytes(q, 3, "02 74 0000000000000005 0001 02 67 00");
  EXPECT_EQ(encode(q, 4), encode(q, 3));
  EXPECT_EQ(encode(q, 1), encode(q, 0));

  EndTxnRequest e;
  e.transactional_id = "t";
  e.producer_id = 5;
  e.producer_epoch = 1;
  e.committed = true;
  expect_bytes(e, 2, "0001 74 0000000000000005 0001 01");
  expect_bytes(e, 3, "02 74 0000000000000005 0001 01 00");
  EXPECT_EQ(encode(e, 5), encode(e, 3));
}

TEST(TxnApis, EndTxnV5ResponseCarriesProducerIdAndEpoch) {
  EndTxnResponse r;
  r.error_code = 0;
  r.producer_id = 7;
  r.producer_epoch = 2;
  expect_bytes(r, 2, "00000000 0000");
  expect_bytes(r, 4, "00000000 0000 00");
  // v5: throttle | error | producer 7 | epoch 2 | tags
  expect_bytes(r, 5, "00000000 0000 0000000000000007 0002 00");
  // A v4 reader never sees them: decoded, they keep Kafka's -1.
  auto back = decode<EndTxnResponse>(unhex("00000000 0000 00"), 4);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->producer_id, -1);
  EXPECT_EQ(back->producer_epoch, -1);
}

TEST(TxnApis, WriteTxnMarkersV2AddsTransactionVersion) {
  WriteTxnMarkersRequest q;
  q.markers = {{.producer_id = 5,
                .producer_epoch = 1,
                .transaction_result = true,
                .topics = {{.name = "a", .partition_indexes = {0}}},
                .coordinator_epoch = 9,
                .transaction_version = 2}};
  // v0: 1 marker: producer 5 | epoch 1 | COMMIT | 1 topic "a" [0] | coordinator epoch 9
  expect_bytes(q, 0,
               "00000001 0000000000000005 0001 01 00000001 0001 61 00000001 00000000 00000009");
  // v1: flexible.
  expect_bytes(q, 1, "02 0000000000000005 0001 01 02 02 61 02 00000000 00 00000009 00 | 00");
  // v2: transaction version 2 after the coordinator epoch.
  expect_bytes(q, 2, "02 0000000000000005 0001 01 02 02 61 02 00000000 00 00000009 02 00 | 00");

  WriteTxnMarkersResponse r;
  r.markers = {
      {.producer_id = 5,
       .topics = {{.name = "a", .partitions = {{.partition_index = 0, .error_code = 6}}}}}};
  // 1 marker: producer 5 | 1 topic "a" | partition 0, error 6
  expect_bytes(r, 0, "00000001 0000000000000005 00000001 0001 61 00000001 00000000 0006");
  EXPECT_EQ(encode(r, 2), encode(r, 1));
}

TEST(TxnApis, TxnOffsetCommitFieldsComeAndGo) {
  TxnOffsetCommitRequest q;
  q.transactional_id = "t";
  q.group_id = "g";
  q.producer_id = 5;
  q.producer_epoch = 1;
  q.generation_id = 3;
  q.member_id = "m";
  q.topics = {{.name = "a",
               .partitions = {{.partition_index = 0,
                               .committed_offset = 100,
                               .committed_leader_epoch = 7,
                               .committed_metadata = std::nullopt}}}};
  // v0: "t" | "g" | producer 5 | epoch 1 | 1 topic "a" | partition 0, offset 100, null
  expect_bytes(q, 0,
               "0001 74 0001 67 0000000000000005 0001 00000001 0001 61 00000001 00000000"
               " 0000000000000064 ffff");
  EXPECT_EQ(encode(q, 1), encode(q, 0));
  // v2: the leader epoch after the offset.
  expect_bytes(q, 2,
               "0001 74 0001 67 0000000000000005 0001 00000001 0001 61 00000001 00000000"
               " 0000000000000064 00000007 ffff");
  // v3: flexible; generation 3, member "m" and a null instance id after the epoch.
  expect_bytes(q, 3,
               "02 74 02 67 0000000000000005 0001 00000003 02 6d 00 02 02 61 02 00000000"
               " 0000000000000064 00000007 00 00 00 | 00");
  EXPECT_EQ(encode(q, 4), encode(q, 3));
  EXPECT_EQ(encode(q, 5), encode(q, 3));  // v5 differs in meaning only (KIP-890)

  TxnOffsetCommitResponse r;
  r.topics = {{.name = "a", .partitions = {{.partition_index = 0, .error_code = 25}}}};
  expect_bytes(r, 0, "00000000 00000001 0001 61 00000001 00000000 0019");
  expect_bytes(r, 3, "00000000 02 02 61 02 00000000 0019 00 00 | 00");
}

TEST(TxnApis, DescribeProducersLayout) {
  DescribeProducersRequest q;
  q.topics = {{.name = "a", .partition_indexes = {0}}};
  expect_bytes(q, 0, "02 02 61 02 00000000 00 | 00");

  DescribeProducersResponse r;
  r.topics = {{.name = "a",
               .partitions = {{.partition_index = 0,
                               .error_code = 0,
                               .active_producers = {{.producer_id = 5,
                                                     .producer_epoch = 1,
                                                     .last_sequence = 3,
                                                     .coordinator_epoch = 0}}}}}};
  // throttle | 1 topic "a" | partition 0, error 0, null message | 1 producer: id 5,
  // epoch 1 (INT32), sequence 3, timestamp -1, coordinator epoch 0, no open txn | tags
  expect_bytes(r, 0,
               "00000000 02 02 61 02 00000000 0000 00 02 0000000000000005 00000001 00000003"
               " ffffffffffffffff 00000000 ffffffffffffffff 00 00 00 | 00");
}

TEST(TxnApis, DescribeTransactionsLayout) {
  DescribeTransactionsRequest q;
  q.transactional_ids = {"t"};
  expect_bytes(q, 0, "02 02 74 00");

  DescribeTransactionsResponse r;
  r.transaction_states = {{.transactional_id = "t",
                           .transaction_state = "Empty",
                           .transaction_timeout_ms = 60000,
                           .transaction_start_time_ms = -1,
                           .producer_id = 5,
                           .producer_epoch = 1,
                           .topics = {}}};
  // throttle | 1 state: error 0 | "t" | "Empty" | timeout 60000 | start -1 | producer 5 |
  // epoch 1 | no topics | tags
  expect_bytes(r, 0,
               "00000000 02 0000 02 74 06 456d707479 0000ea60 ffffffffffffffff"
               " 0000000000000005 0001 01 00 | 00");
}

TEST(TxnApis, ListTransactionsFiltersComeWithVersions) {
  ListTransactionsRequest q;
  q.state_filters = {"Ongoing"};
  q.producer_id_filters = {5};
  // v0: 1 state "Ongoing" | 1 producer id 5 | tags
  expect_bytes(q, 0, "02 08 4f6e676f696e67 02 0000000000000005 00");
  // v1: duration filter -1 (any age).
  expect_bytes(q, 1, "02 08 4f6e676f696e67 02 0000000000000005 ffffffffffffffff 00");
  // v2: a null pattern (every id) is the compact null, 00.
  expect_bytes(q, 2, "02 08 4f6e676f696e67 02 0000000000000005 ffffffffffffffff 00 00");
  q.transactional_id_pattern = "t.*";
  expect_bytes(q, 2, "02 08 4f6e676f696e67 02 0000000000000005 ffffffffffffffff 04 742e2a 00");

  ListTransactionsResponse r;
  r.unknown_state_filters = {"X"};
  r.transaction_states = {
      {.transactional_id = "t", .producer_id = 5, .transaction_state = "Ongoing"}};
  // throttle | error | 1 unknown filter "X" | 1 state: "t", producer 5, "Ongoing" | tags
  expect_bytes(r, 0, "00000000 0000 02 02 58 02 02 74 0000000000000005 08 4f6e676f696e67 00 | 00");
  EXPECT_EQ(encode(r, 2), encode(r, 0));
}

}  // namespace
}  // namespace strata::protocol

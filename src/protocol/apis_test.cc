// The API definitions in apis/: every version of every message round-trips, every
// truncation is refused, and the non-flexible layouts match bytes written by
// kafka-python 2.0.2 (an independent implementation; generated once, embedded as hex).
// Flexible layouts with tagged fields are checked against hand-annotated bytes.
#include <gtest/gtest.h>

#include <string_view>

#include "protocol/apis/describe_cluster.h"
#include "protocol/apis/fetch.h"
#include "protocol/apis/list_offsets.h"
#include "protocol/apis/metadata.h"
#include "protocol/apis/offset_for_leader_epoch.h"
#include "protocol/apis/produce.h"
#include "protocol/message.h"
#include "protocol/test_util.h"

namespace strata::protocol {
namespace {

using namespace test;

Records records_of(std::vector<uint8_t>& storage) {
  Records r;
  r.data = MutableBytes(storage);
  return r;
}

std::string text_of(const Records& r) {
  return r.data ? std::string(as_string_view(*r.data)) : std::string("<null>");
}

// For every version T declares: the encoding decodes, consuming every byte; the
// decoded message encodes to the same bytes (so every field present in that version
// survived); `check` sees the decoded message; and every strict prefix is refused.
template <class T, class Check>
void round_trip_every_version(T& sample, Check check) {
  for (int16_t v = T::kVersions.min; v <= T::kVersions.max; ++v) {
    SCOPED_TRACE(testing::Message() << "version " << v);
    std::vector<uint8_t> bytes = encode(sample, v);
    std::optional<T> back = decode<T>(bytes, v);
    ASSERT_TRUE(back);
    EXPECT_EQ(encode(*back, v), bytes);
    check(*back, v);
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(n));
      EXPECT_FALSE(decode<T>(cut, v)) << "prefix of " << n << " bytes";
    }
  }
}

// `m` encodes in `version` to exactly `hex`, and `hex` decodes back to the same bytes.
template <class T>
void expect_golden(T& m, int16_t version, std::string_view hex) {
  std::vector<uint8_t> want = unhex(hex);
  EXPECT_EQ(encode(m, version), want);
  std::optional<T> back = decode<T>(want, version);
  ASSERT_TRUE(back);
  EXPECT_EQ(encode(*back, version), want);
}

TEST(Apis, KeysAndVersions) {
  static_assert(ProduceRequest::kApiKey == 0 && ProduceResponse::kVersions.max == 11);
  static_assert(FetchRequest::kApiKey == 1 && FetchResponse::kVersions.max == 17);
  static_assert(ListOffsetsRequest::kApiKey == 2 && ListOffsetsResponse::kVersions.max == 10);
  static_assert(MetadataRequest::kApiKey == 3 && MetadataResponse::kVersions.max == 12);
  static_assert(OffsetForLeaderEpochRequest::kApiKey == 23);
  static_assert(OffsetForLeaderEpochResponse::kVersions.max == 4);
  static_assert(DescribeClusterRequest::kApiKey == 60 && DescribeClusterResponse::kFlexibleFrom == 0);
}

// ---- Produce ----

TEST(Apis, ProduceRequestEveryVersion) {
  std::vector<uint8_t> batch = {1, 2, 3, 4, 5};
  ProduceRequest q;
  q.transactional_id = "tx-1";
  q.acks = -1;
  q.timeout_ms = 30000;
  q.topic_data.resize(1);
  q.topic_data[0].name = "orders";
  q.topic_data[0].partition_data.resize(2);
  q.topic_data[0].partition_data[0].index = 3;
  q.topic_data[0].partition_data[0].records = records_of(batch);
  q.topic_data[0].partition_data[1].index = 4;  // null records
  round_trip_every_version(q, [](const ProduceRequest& b, int16_t v) {
    EXPECT_EQ(b.transactional_id, v >= 3 ? std::optional<std::string>("tx-1") : std::nullopt);
    EXPECT_EQ(b.acks, -1);
    EXPECT_EQ(b.timeout_ms, 30000);
    ASSERT_EQ(b.topic_data.size(), 1u);
    EXPECT_EQ(b.topic_data[0].name, "orders");
    ASSERT_EQ(b.topic_data[0].partition_data.size(), 2u);
    EXPECT_EQ(b.topic_data[0].partition_data[0].index, 3);
    EXPECT_EQ(text_of(b.topic_data[0].partition_data[0].records), "\1\2\3\4\5");
    EXPECT_TRUE(b.topic_data[0].partition_data[1].records.is_null());
  });
}

TEST(Apis, ProduceResponseEveryVersion) {
  ProduceResponse r;
  r.throttle_time_ms = 9;
  r.responses.resize(1);
  r.responses[0].name = "orders";
  auto& p = r.responses[0].partition_responses.emplace_back();
  p.index = 2;
  p.error_code = 6;
  p.base_offset = 1000;
  p.log_append_time_ms = 1700000000000;
  p.log_start_offset = 10;
  p.record_errors = {{1, "bad"}, {2, std::nullopt}};
  p.error_message = "dropped";
  p.current_leader = ProduceResponse::LeaderIdAndEpoch{7, 12};
  r.node_endpoints = {{7, "b7", 9092, "rack-a"}};
  round_trip_every_version(r, [](const ProduceResponse& b, int16_t v) {
    EXPECT_EQ(b.throttle_time_ms, v >= 1 ? 9 : 0);
    const auto& q = b.responses.at(0).partition_responses.at(0);
    EXPECT_EQ(q.index, 2);
    EXPECT_EQ(q.error_code, 6);
    EXPECT_EQ(q.base_offset, 1000);
    EXPECT_EQ(q.log_append_time_ms, v >= 2 ? 1700000000000 : -1);
    EXPECT_EQ(q.log_start_offset, v >= 5 ? 10 : -1);
    EXPECT_EQ(q.record_errors.size(), v >= 8 ? 2u : 0u);
    EXPECT_EQ(q.error_message, v >= 8 ? std::optional<std::string>("dropped") : std::nullopt);
    EXPECT_EQ(q.current_leader.has_value(), v >= 10);
    EXPECT_EQ(b.node_endpoints.size(), v >= 10 ? 1u : 0u);
    if (v >= 10) {
      EXPECT_EQ(q.current_leader->leader_id, 7);
      EXPECT_EQ(q.current_leader->leader_epoch, 12);
      EXPECT_EQ(b.node_endpoints[0].host, "b7");
      EXPECT_EQ(b.node_endpoints[0].rack, "rack-a");
    }
    if (v >= 8) {
      EXPECT_FALSE(q.record_errors[1].batch_index_error_message);
    }
  });
}

TEST(Apis, ProduceGoldenKafkaPython) {
  std::vector<uint8_t> xy = {'x', 'y'};
  ProduceRequest v0;
  v0.acks = 1;
  v0.timeout_ms = 1000;
  v0.topic_data = {{"topic", {{0, records_of(xy)}, {1, Records{}}}}};
  expect_golden(v0, 0,
                "0001000003e8000000010005746f706963000000020000000000000002787900000001ffffffff");

  std::vector<uint8_t> abc = {'a', 'b', 'c'};
  ProduceRequest v3;
  v3.acks = -1;
  v3.timeout_ms = 30000;
  v3.topic_data = {{"t", {{0, records_of(abc)}}}};
  expect_golden(v3, 3, "ffffffff0000753000000001000174000000010000000000000003616263");

  ProduceResponse r2;
  r2.throttle_time_ms = 3;
  r2.responses = {{"t", {{1, 0, 100, 1700000000000}}}};
  expect_golden(r2, 2,
                "000000010001740000000100000001000000000000000000640000018bcfe5680000000003");

  ProduceResponse r5;
  r5.throttle_time_ms = 5;
  r5.responses = {{"t", {{0, 18, 42, -1, 7}}}};
  expect_golden(r5, 5,
                "0000000100017400000001000000000012000000000000002affffffffffffffff0000000000000007"
                "00000005");
}

// ---- Fetch ----

FetchRequest fetch_request_sample() {
  FetchRequest q;
  q.cluster_id = "cluster-1";
  q.replica_id = 2;
  q.replica_state = FetchRequest::ReplicaState{2, 44};
  q.max_wait_ms = 500;
  q.min_bytes = 1;
  q.max_bytes = 1 << 20;
  q.isolation_level = 1;
  q.session_id = 123;
  q.session_epoch = 4;
  auto& t = q.topics.emplace_back();
  t.topic = "orders";
  t.topic_id = uuid(1);
  auto& p = t.partitions.emplace_back();
  p.partition = 5;
  p.current_leader_epoch = 8;
  p.fetch_offset = 900;
  p.last_fetched_epoch = 7;
  p.log_start_offset = 100;
  p.partition_max_bytes = 65536;
  p.replica_directory_id = uuid(50);
  q.forgotten_topics_data = {{"old", uuid(30), {0, 1, 2}}};
  q.rack_id = "rack-b";
  return q;
}

TEST(Apis, FetchRequestEveryVersion) {
  FetchRequest q = fetch_request_sample();
  round_trip_every_version(q, [](const FetchRequest& b, int16_t v) {
    EXPECT_EQ(b.cluster_id, v >= 12 ? std::optional<std::string>("cluster-1") : std::nullopt);
    EXPECT_EQ(b.replica_id, v <= 14 ? 2 : -1);
    EXPECT_EQ(b.replica_state.has_value(), v >= 15);
    if (v >= 15) {
      EXPECT_EQ(b.replica_state->replica_epoch, 44);
    }
    EXPECT_EQ(b.max_wait_ms, 500);
    EXPECT_EQ(b.max_bytes, v >= 3 ? 1 << 20 : 0x7fffffff);
    EXPECT_EQ(b.isolation_level, v >= 4 ? 1 : 0);
    EXPECT_EQ(b.session_epoch, v >= 7 ? 4 : -1);
    const auto& t = b.topics.at(0);
    EXPECT_EQ(t.topic, v <= 12 ? "orders" : "");
    EXPECT_EQ(t.topic_id, v >= 13 ? uuid(1) : Uuid{});
    const auto& p = t.partitions.at(0);
    EXPECT_EQ(p.partition, 5);
    EXPECT_EQ(p.current_leader_epoch, v >= 9 ? 8 : -1);
    EXPECT_EQ(p.fetch_offset, 900);
    EXPECT_EQ(p.last_fetched_epoch, v >= 12 ? 7 : -1);
    EXPECT_EQ(p.log_start_offset, v >= 5 ? 100 : -1);
    EXPECT_EQ(p.partition_max_bytes, 65536);
    EXPECT_EQ(p.replica_directory_id, v >= 17 ? uuid(50) : Uuid{});
    EXPECT_EQ(b.forgotten_topics_data.size(), v >= 7 ? 1u : 0u);
    if (v >= 7) {
      EXPECT_EQ(b.forgotten_topics_data[0].topic, v <= 12 ? "old" : "");
      EXPECT_EQ(b.forgotten_topics_data[0].partitions, (std::vector<int32_t>{0, 1, 2}));
    }
    EXPECT_EQ(b.rack_id, v >= 11 ? "rack-b" : "");
  });
}

TEST(Apis, FetchResponseEveryVersion) {
  std::vector<uint8_t> batch = {9, 8, 7};
  FetchResponse r;
  r.throttle_time_ms = 1;
  r.error_code = 0;
  r.session_id = 77;
  auto& topic = r.responses.emplace_back();
  topic.topic = "orders";
  topic.topic_id = uuid(1);
  auto& part = topic.partitions.emplace_back();
  part.partition_index = 3;
  part.error_code = 0;
  part.high_watermark = 50;
  part.last_stable_offset = 40;
  part.log_start_offset = 2;
  part.diverging_epoch = FetchResponse::EpochEndOffset{6, 33};
  part.current_leader = FetchResponse::LeaderIdAndEpoch{1, 9};
  part.snapshot_id = FetchResponse::SnapshotId{20, 5};
  part.aborted_transactions = std::vector<FetchResponse::AbortedTransaction>{{11, 30}};
  part.preferred_read_replica = 4;
  part.records = records_of(batch);
  auto& nulls = topic.partitions.emplace_back();  // null aborted list and records
  nulls.partition_index = 4;
  nulls.aborted_transactions.reset();
  nulls.records = Records{};
  topic.partitions.emplace_back().partition_index = 5;  // records by default: empty, not null
  r.node_endpoints = {{1, "b1", 9092, std::nullopt}};
  round_trip_every_version(r, [](const FetchResponse& b, int16_t v) {
    EXPECT_EQ(b.throttle_time_ms, v >= 1 ? 1 : 0);
    EXPECT_EQ(b.session_id, v >= 7 ? 77 : 0);
    const auto& t = b.responses.at(0);
    EXPECT_EQ(t.topic, v <= 12 ? "orders" : "");
    EXPECT_EQ(t.topic_id, v >= 13 ? uuid(1) : Uuid{});
    const auto& p = t.partitions.at(0);
    EXPECT_EQ(p.partition_index, 3);
    EXPECT_EQ(p.high_watermark, 50);
    EXPECT_EQ(p.last_stable_offset, v >= 4 ? 40 : -1);
    EXPECT_EQ(p.log_start_offset, v >= 5 ? 2 : -1);
    EXPECT_EQ(p.diverging_epoch.has_value(), v >= 12);
    EXPECT_EQ(p.current_leader.has_value(), v >= 12);
    EXPECT_EQ(p.snapshot_id.has_value(), v >= 12);
    if (v >= 12) {
      EXPECT_EQ(p.diverging_epoch->end_offset, 33);
      EXPECT_EQ(p.current_leader->leader_epoch, 9);
      EXPECT_EQ(p.snapshot_id->end_offset, 20);
    }
    ASSERT_TRUE(p.aborted_transactions);
    EXPECT_EQ(p.aborted_transactions->size(), v >= 4 ? 1u : 0u);
    EXPECT_EQ(p.preferred_read_replica, v >= 11 ? 4 : -1);
    EXPECT_EQ(text_of(p.records), "\x09\x08\x07");
    const auto& n = t.partitions.at(1);
    EXPECT_EQ(n.aborted_transactions.has_value(), v < 4);  // null from v4; default before
    EXPECT_TRUE(n.records.is_null());
    const auto& d = t.partitions.at(2);
    EXPECT_FALSE(d.records.is_null());
    EXPECT_EQ(d.records.size(), 0u);
    EXPECT_EQ(b.node_endpoints.size(), v >= 16 ? 1u : 0u);
  });
}

TEST(Apis, FetchResponseRecordsFromAFileBecomeASplice) {
  FetchResponse r;
  auto& p = r.responses.emplace_back().partitions.emplace_back();
  p.records.file = FileSlice{nullptr, 3, 4096, 1000};
  Output out;
  Encoder e(out, 4, false);
  e.encode(r);
  ASSERT_EQ(out.splices.size(), 1u);
  EXPECT_EQ(out.splices[0].at, out.bytes.size());  // records end the v4 message
  EXPECT_EQ(out.splices[0].slice.position, 4096u);
  EXPECT_EQ(load_be32(&out.bytes[out.bytes.size() - 4]), 1000u);  // the length precedes it
  EXPECT_EQ(out.total_size(), out.bytes.size() + 1000);
}

TEST(Apis, FetchGoldenKafkaPython) {
  FetchRequest v0;
  v0.max_wait_ms = 100;
  v0.min_bytes = 1;
  v0.topics.emplace_back().topic = "t";
  v0.topics[0].partitions.push_back({.partition = 0, .fetch_offset = 10, .partition_max_bytes = 4096});
  expect_golden(v0, 0, "ffffffff0000006400000001000000010001740000000100000000000000000000000a00001000");

  FetchRequest v11;
  v11.max_wait_ms = 500;
  v11.min_bytes = 1;
  v11.max_bytes = 52428800;
  v11.isolation_level = 1;
  v11.topics.emplace_back().topic = "t";
  v11.topics[0].partitions.push_back({.partition = 2,
                                      .current_leader_epoch = 5,
                                      .fetch_offset = 100,
                                      .partition_max_bytes = 1048576});
  v11.rack_id = "r1";
  expect_golden(v11, 11,
                "ffffffff000001f400000001032000000100000000ffffffff00000001000174000000010000000200"
                "0000050000000000000064ffffffffffffffff001000000000000000027231");

  std::vector<uint8_t> rec = {'r', 'e', 'c'};
  FetchResponse r4;
  r4.responses.emplace_back().topic = "t";
  auto& p4 = r4.responses[0].partitions.emplace_back();
  p4.high_watermark = 50;
  p4.last_stable_offset = 40;
  p4.aborted_transactions.reset();
  p4.records = records_of(rec);
  expect_golden(r4, 4,
                "00000000000000010001740000000100000000000000000000000000320000000000000028ffffffff"
                "00000003726563");

  std::vector<uint8_t> batch = {'b', 'a', 't', 'c', 'h'};
  FetchResponse r11;
  r11.throttle_time_ms = 1;
  r11.session_id = 77;
  r11.responses.emplace_back().topic = "t";
  auto& p11 = r11.responses[0].partitions.emplace_back();
  p11.partition_index = 3;
  p11.high_watermark = 50;
  p11.last_stable_offset = 40;
  p11.log_start_offset = 2;
  p11.aborted_transactions = std::vector<FetchResponse::AbortedTransaction>{{9, 30}};
  p11.records = records_of(batch);
  expect_golden(r11, 11,
                "0000000100000000004d0000000100017400000001000000030000000000000000003200000000000000"
                "280000000000000002000000010000000000000009000000000000001effffffff000000056261746368");
}

// Flexible: the tagged section of a struct follows its fields, tags ascending, each
// with its size; a tagged struct carries its own (empty) tagged section.
TEST(Apis, FetchRequestV15TaggedClusterIdAndReplicaState) {
  FetchRequest q;
  q.cluster_id = "c";
  q.replica_state = FetchRequest::ReplicaState{1, 2};
  q.max_wait_ms = 1;
  q.min_bytes = 1;
  q.rack_id = "";
  expect_golden(q, 15,
                "00000001"          // max_wait_ms
                "00000001"          // min_bytes
                "7fffffff"          // max_bytes
                "00"                // isolation_level
                "00000000"          // session_id
                "ffffffff"          // session_epoch
                "01"                // topics: compact empty
                "01"                // forgotten_topics_data: compact empty
                "01"                // rack_id: compact ""
                "02"                // two tagged fields
                "00" "02" "0263"    // tag 0 cluster_id, 2 bytes: compact "c"
                "01" "0d"           // tag 1 replica_state, 13 bytes:
                "00000001"          //   replica_id
                "0000000000000002"  //   replica_epoch
                "00");              //   its empty tagged section
}

TEST(Apis, FetchResponseV12TaggedDivergingEpoch) {
  FetchResponse r;
  r.responses.emplace_back().topic = "t";
  auto& p = r.responses[0].partitions.emplace_back();
  p.high_watermark = 1;
  p.diverging_epoch = FetchResponse::EpochEndOffset{3, 100};
  p.aborted_transactions.reset();
  expect_golden(r, 12,
                "00000000"          // throttle_time_ms
                "0000"              // error_code
                "00000000"          // session_id
                "02" "0274"         // one topic, compact "t"
                "02"                // one partition
                "00000000" "0000"   // partition_index, error_code
                "0000000000000001"  // high_watermark
                "ffffffffffffffff"  // last_stable_offset
                "ffffffffffffffff"  // log_start_offset
                "00"                // aborted_transactions: null
                "ffffffff"          // preferred_read_replica
                "01"                // records: empty (the default; Kafka never sends null)
                "01" "00" "0d"      // one tag: 0 diverging_epoch, 13 bytes
                "00000003" "0000000000000064" "00"
                "00"                // topic's tagged section
                "00");              // top-level tagged section
}

// ---- ListOffsets ----

TEST(Apis, ListOffsetsRequestEveryVersion) {
  ListOffsetsRequest q;
  q.replica_id = -1;
  q.isolation_level = 1;
  q.timeout_ms = 2000;
  q.topics = {{"orders", {{.partition_index = 1,
                           .current_leader_epoch = 4,
                           .timestamp = -2,
                           .max_num_offsets = 5}}}};
  round_trip_every_version(q, [](const ListOffsetsRequest& b, int16_t v) {
    EXPECT_EQ(b.replica_id, -1);
    EXPECT_EQ(b.isolation_level, v >= 2 ? 1 : 0);
    EXPECT_EQ(b.timeout_ms, v >= 10 ? 2000 : 0);
    const auto& p = b.topics.at(0).partitions.at(0);
    EXPECT_EQ(p.partition_index, 1);
    EXPECT_EQ(p.current_leader_epoch, v >= 4 ? 4 : -1);
    EXPECT_EQ(p.timestamp, -2);
    EXPECT_EQ(p.max_num_offsets, v == 0 ? 5 : 1);
  });
}

TEST(Apis, ListOffsetsResponseEveryVersion) {
  ListOffsetsResponse r;
  r.throttle_time_ms = 3;
  r.topics = {{"orders", {{.partition_index = 1,
                           .error_code = 0,
                           .old_style_offsets = {12, 0},
                           .timestamp = 1700000000000,
                           .offset = 12,
                           .leader_epoch = 2}}}};
  round_trip_every_version(r, [](const ListOffsetsResponse& b, int16_t v) {
    EXPECT_EQ(b.throttle_time_ms, v >= 2 ? 3 : 0);
    const auto& p = b.topics.at(0).partitions.at(0);
    EXPECT_EQ(p.old_style_offsets.size(), v == 0 ? 2u : 0u);
    EXPECT_EQ(p.timestamp, v >= 1 ? 1700000000000 : -1);
    EXPECT_EQ(p.offset, v >= 1 ? 12 : -1);
    EXPECT_EQ(p.leader_epoch, v >= 4 ? 2 : -1);
  });
}

TEST(Apis, ListOffsetsGoldenKafkaPython) {
  ListOffsetsRequest q0;
  q0.replica_id = -1;
  q0.topics = {{"t", {{.partition_index = 0, .timestamp = -1, .max_num_offsets = 1}}}};
  expect_golden(q0, 0, "ffffffff000000010001740000000100000000ffffffffffffffff00000001");

  ListOffsetsRequest q2;
  q2.replica_id = -1;
  q2.isolation_level = 1;
  q2.topics = {{"t", {{.partition_index = 0, .timestamp = -2}}}};
  expect_golden(q2, 2, "ffffffff01000000010001740000000100000000fffffffffffffffe");

  // kafka-python's v4 request declares current_leader_epoch as int64 (Kafka: int32),
  // so only its v4 response is used here.
  ListOffsetsResponse r0;
  r0.topics = {{"t", {{.partition_index = 0, .old_style_offsets = {12, 0}}}}};
  expect_golden(r0, 0, "000000010001740000000100000000000000000002000000000000000c0000000000000000");

  ListOffsetsResponse r4;
  r4.topics = {{"t", {{.partition_index = 0, .timestamp = -1, .offset = 12, .leader_epoch = 3}}}};
  expect_golden(r4, 4,
                "000000000000000100017400000001000000000000ffffffffffffffff000000000000000c00000003");
}

// ---- Metadata ----

TEST(Apis, MetadataRequestEveryVersion) {
  MetadataRequest q;
  q.topics = std::vector<MetadataRequest::Topic>{{uuid(3), "orders"}};
  q.allow_auto_topic_creation = false;
  q.include_cluster_authorized_operations = true;
  q.include_topic_authorized_operations = true;
  round_trip_every_version(q, [](const MetadataRequest& b, int16_t v) {
    ASSERT_TRUE(b.topics);
    ASSERT_EQ(b.topics->size(), 1u);
    EXPECT_EQ((*b.topics)[0].name, "orders");
    EXPECT_EQ((*b.topics)[0].topic_id, v >= 10 ? uuid(3) : Uuid{});
    EXPECT_EQ(b.allow_auto_topic_creation, v < 4);
    EXPECT_EQ(b.include_cluster_authorized_operations, v >= 8 && v <= 10);
    EXPECT_EQ(b.include_topic_authorized_operations, v >= 8);
  });
}

TEST(Apis, MetadataRequestNullsWhereNullable) {
  MetadataRequest all;
  all.topics.reset();  // all topics, from v1
  for (int16_t v = 1; v <= MetadataRequest::kVersions.max; ++v) {
    auto bytes = encode(all, v);
    auto back = decode<MetadataRequest>(bytes, v);
    ASSERT_TRUE(back) << v;
    EXPECT_FALSE(back->topics) << v;
  }
  auto v0 = encode(all, 0);  // v0 cannot say null
  EXPECT_FALSE(decode<MetadataRequest>(v0, 0));

  MetadataRequest by_id;
  by_id.topics = std::vector<MetadataRequest::Topic>{{uuid(9), std::nullopt}};
  auto bytes = encode(by_id, 12);
  auto back = decode<MetadataRequest>(bytes, 12);
  ASSERT_TRUE(back);
  EXPECT_FALSE((*back->topics)[0].name);
  EXPECT_EQ((*back->topics)[0].topic_id, uuid(9));
}

TEST(Apis, MetadataResponseEveryVersion) {
  MetadataResponse r;
  r.throttle_time_ms = 2;
  r.brokers = {{1, "b1", 9092, "rack-a"}, {2, "b2", 9093, std::nullopt}};
  r.cluster_id = "cluster-1";
  r.controller_id = 1;
  auto& topic = r.topics.emplace_back();
  topic.name = "orders";
  topic.topic_id = uuid(4);
  topic.is_internal = true;
  topic.partitions = {{.error_code = 0,
                   .partition_index = 0,
                   .leader_id = 1,
                   .leader_epoch = 3,
                   .replica_nodes = {1, 2},
                   .isr_nodes = {1},
                   .offline_replicas = {2}}};
  topic.topic_authorized_operations = 0x0f;
  r.cluster_authorized_operations = 0xff;
  round_trip_every_version(r, [](const MetadataResponse& b, int16_t v) {
    EXPECT_EQ(b.throttle_time_ms, v >= 3 ? 2 : 0);
    ASSERT_EQ(b.brokers.size(), 2u);
    EXPECT_EQ(b.brokers[0].rack, v >= 1 ? std::optional<std::string>("rack-a") : std::nullopt);
    EXPECT_EQ(b.brokers[1].port, 9093);
    EXPECT_EQ(b.cluster_id, v >= 2 ? std::optional<std::string>("cluster-1") : std::nullopt);
    EXPECT_EQ(b.controller_id, v >= 1 ? 1 : -1);
    const auto& t = b.topics.at(0);
    EXPECT_EQ(t.name, "orders");
    EXPECT_EQ(t.topic_id, v >= 10 ? uuid(4) : Uuid{});
    EXPECT_EQ(t.is_internal, v >= 1);
    const auto& p = t.partitions.at(0);
    EXPECT_EQ(p.leader_epoch, v >= 7 ? 3 : -1);
    EXPECT_EQ(p.replica_nodes, (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(p.offline_replicas.size(), v >= 5 ? 1u : 0u);
    EXPECT_EQ(t.topic_authorized_operations, v >= 8 ? 0x0f : INT32_MIN);
    EXPECT_EQ(b.cluster_authorized_operations, v >= 8 && v <= 10 ? 0xff : INT32_MIN);
  });
}

TEST(Apis, MetadataGoldenKafkaPython) {
  MetadataRequest q0;
  q0.topics = std::vector<MetadataRequest::Topic>{{Uuid{}, "a"}, {Uuid{}, "bc"}};
  expect_golden(q0, 0, "0000000200016100026263");

  MetadataRequest q1;
  q1.topics.reset();
  expect_golden(q1, 1, "ffffffff");

  MetadataRequest q4;
  q4.topics = std::vector<MetadataRequest::Topic>{{Uuid{}, "a"}};
  q4.allow_auto_topic_creation = false;
  expect_golden(q4, 4, "0000000100016100");

  MetadataResponse r5;
  r5.brokers = {{1, "h", 9092, std::nullopt}};
  r5.cluster_id = "c";
  r5.controller_id = 1;
  auto& t = r5.topics.emplace_back();
  t.name = "t";
  t.partitions = {{.leader_id = 1, .replica_nodes = {1}, .isr_nodes = {1}}};
  expect_golden(r5, 5,
                "00000000000000010000000100016800002384ffff0001630000000100000001000000017400000000"
                "01000000000000000000010000000100000001000000010000000100000000");
}

// ---- OffsetForLeaderEpoch ----

TEST(Apis, OffsetForLeaderEpochRequestEveryVersion) {
  OffsetForLeaderEpochRequest q;
  q.replica_id = 3;
  q.topics = {{"orders", {{.partition = 1, .current_leader_epoch = 9, .leader_epoch = 7}}}};
  round_trip_every_version(q, [](const OffsetForLeaderEpochRequest& b, int16_t v) {
    EXPECT_EQ(b.replica_id, v >= 3 ? 3 : -2);
    const auto& p = b.topics.at(0).partitions.at(0);
    EXPECT_EQ(b.topics[0].topic, "orders");
    EXPECT_EQ(p.partition, 1);
    EXPECT_EQ(p.current_leader_epoch, v >= 2 ? 9 : -1);
    EXPECT_EQ(p.leader_epoch, 7);
  });
}

TEST(Apis, OffsetForLeaderEpochResponseEveryVersion) {
  OffsetForLeaderEpochResponse r;
  r.throttle_time_ms = 4;
  r.topics = {{"orders", {{.error_code = 0, .partition = 1, .leader_epoch = 6, .end_offset = 500}}}};
  round_trip_every_version(r, [](const OffsetForLeaderEpochResponse& b, int16_t v) {
    EXPECT_EQ(b.throttle_time_ms, v >= 2 ? 4 : 0);
    const auto& p = b.topics.at(0).partitions.at(0);
    EXPECT_EQ(p.partition, 1);
    EXPECT_EQ(p.leader_epoch, v >= 1 ? 6 : -1);
    EXPECT_EQ(p.end_offset, 500);
  });
}

TEST(Apis, OffsetForLeaderEpochV0Layout) {
  OffsetForLeaderEpochRequest q;
  q.topics = {{"t", {{.partition = 2, .leader_epoch = 5}}}};
  // topics [1] | "t" | partitions [1] | partition 2 | leader_epoch 5 (no replica id)
  expect_golden(q, 0, "00000001" "000174" "00000001" "00000002" "00000005");
}

// ---- DescribeCluster ----

TEST(Apis, DescribeClusterEveryVersion) {
  DescribeClusterRequest q;
  q.include_cluster_authorized_operations = true;
  q.endpoint_type = DescribeClusterRequest::kControllers;
  round_trip_every_version(q, [](const DescribeClusterRequest& b, int16_t v) {
    EXPECT_TRUE(b.include_cluster_authorized_operations);
    EXPECT_EQ(b.endpoint_type, v >= 1 ? 2 : 1);
  });

  DescribeClusterResponse r;
  r.throttle_time_ms = 1;
  r.error_message = "none";
  r.endpoint_type = DescribeClusterRequest::kControllers;
  r.cluster_id = "cluster-1";
  r.controller_id = 3000;
  r.brokers = {{3000, "c1", 9093, std::nullopt}, {3001, "c2", 9093, "r"}};
  r.cluster_authorized_operations = 0x10;
  round_trip_every_version(r, [](const DescribeClusterResponse& b, int16_t v) {
    EXPECT_EQ(b.error_message, "none");
    EXPECT_EQ(b.endpoint_type, v >= 1 ? 2 : 1);
    EXPECT_EQ(b.cluster_id, "cluster-1");
    ASSERT_EQ(b.brokers.size(), 2u);
    EXPECT_FALSE(b.brokers[0].rack);
    EXPECT_EQ(b.brokers[1].rack, "r");
    EXPECT_EQ(b.cluster_authorized_operations, 0x10);
  });
}

TEST(Apis, DescribeClusterRequestLayout) {
  DescribeClusterRequest q;
  q.include_cluster_authorized_operations = true;
  expect_golden(q, 0, "01" "00");       // bool | empty tagged section
  expect_golden(q, 1, "01" "01" "00");  // bool | endpoint_type 1 | empty tagged section
}

}  // namespace
}  // namespace strata::protocol

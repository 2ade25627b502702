// Admin API definitions: every version of every message round-trips, fields a version
// lacks keep Kafka's defaults, every truncation is rejected, and non-flexible versions
// match bytes written by kafka-python (an independent implementation).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
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
#include "protocol/message.h"

namespace strata::protocol {
namespace {

template <class T>
std::vector<uint8_t> encode(T& m, int16_t version) {
  Output out;
  Encoder e(out, version, version >= T::kFlexibleFrom);
  e.encode(m);
  return out.bytes;
}

// Decodes a whole message: fails unless every byte is consumed.
template <class T>
std::optional<T> decode(std::vector<uint8_t> bytes, int16_t version) {
  T m;
  Decoder d(bytes, 0, version, version >= T::kFlexibleFrom);
  d.decode(m);
  if (!d.ok() || d.remaining() != 0) return std::nullopt;
  return m;
}

std::string hex(const std::vector<uint8_t>& bytes) {
  std::string s;
  char b[3];
  for (uint8_t c : bytes) {
    std::snprintf(b, sizeof b, "%02x", c);
    s += b;
  }
  return s;
}

// Hex with the spaces that group fields removed.
std::string squash(std::string_view spaced) {
  std::string s;
  for (char c : spaced) {
    if (c != ' ') s += c;
  }
  return s;
}

std::vector<uint8_t> unhex(std::string_view spaced) {
  const std::string s = squash(spaced);
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    out.push_back(uint8_t(std::stoi(std::string(s.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
concept Visitable = requires(T& t, Encoder& e) {
  t.visit(e);
};

// Renders a message as text, field by field in wire order, to compare two messages. In
// kPresent mode only the fields that exist in `version` are rendered, and every struct met
// is also checked: the fields it lacks in `version` must still hold their defaults
// (failures are appended to `errors`).
class Dump {
 public:
  enum class Mode { kPresent, kAbsent, kAll };

  template <class T>
  static std::string message(T& m, int16_t version, std::vector<std::string>* errors) {
    Dump d(version, Mode::kPresent, errors);
    return d.render(m);
  }

  // Each field rendered on its own, for checking a sample sets every field.
  template <Visitable S>
  static std::vector<std::string> each_field(S& s) {
    Dump d(0, Mode::kAll, nullptr);
    d.split_ = true;
    s.visit(d);
    return d.fields_;
  }

  template <class T>
  void operator()(T& value, const F& f) {
    const bool exists = f.versions.has(version_);
    if ((mode_ == Mode::kPresent && !exists) || (mode_ == Mode::kAbsent && exists)) return;
    if (split_) {
      fields_.push_back(render(value));
    } else {
      out_ += render(value) + ";";
    }
  }

 private:
  Dump(int16_t version, Mode mode, std::vector<std::string>* errors)
      : version_(version), mode_(mode), errors_(errors) {}

  template <Visitable S>
  static std::string fields(S& s, int16_t version, Mode mode, std::vector<std::string>* errors) {
    Dump d(version, mode, errors);
    s.visit(d);
    return d.out_;
  }

  template <class T>
  std::string render(T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
      return std::to_string(int64_t(v));
    } else if constexpr (std::is_same_v<T, std::string>) {
      return '"' + v + '"';
    } else if constexpr (std::is_same_v<T, Uuid>) {
      return "uuid:" + hex(std::vector<uint8_t>(v.bytes.begin(), v.bytes.end()));
    } else if constexpr (is_optional<T>::value) {
      return v ? render(*v) : "null";
    } else if constexpr (is_vector<T>::value) {
      std::string s = "[";
      for (auto& e : v) s += render(e) + ",";
      return s + "]";
    } else {
      static_assert(Visitable<T>);
      return render_struct(v);
    }
  }

  template <Visitable S>
  std::string render_struct(S& s) {
    if (mode_ != Mode::kPresent) return "{" + fields(s, version_, Mode::kAll, nullptr) + "}";
    if (errors_ != nullptr) {
      S fresh{};
      const std::string lacking = fields(s, version_, Mode::kAbsent, nullptr);
      if (lacking != fields(fresh, version_, Mode::kAbsent, nullptr)) {
        errors_->push_back("fields absent in v" + std::to_string(version_) +
                           " are not defaults: " + lacking);
      }
    }
    return "{" + fields(s, version_, Mode::kPresent, errors_) + "}";
  }

  int16_t version_;
  Mode mode_;
  std::vector<std::string>* errors_;
  bool split_ = false;
  std::string out_;
  std::vector<std::string> fields_;
};

// Sets to null every field that may be null in `version`.
struct Nullify {
  int16_t version;

  template <class T>
  void operator()(T& value, const F& f) {
    if (!f.versions.has(version)) return;
    if constexpr (is_optional<T>::value) {
      if (f.nullable.has(version)) {
        value.reset();
      } else if (value) {
        descend(*value);
      }
    } else {
      descend(value);
    }
  }

  template <class T>
  void descend(T& v) {
    if constexpr (is_vector<T>::value) {
      for (auto& e : v) descend(e);
    } else if constexpr (Visitable<T>) {
      v.visit(*this);
    }
  }
};

// Checks that a sample sets every field of every struct in it to something other than
// its default, so the round trips below exercise each field.
struct Coverage {
  std::vector<std::string>* errors;
  std::string where;

  template <Visitable S>
  void check(S& s) {
    S fresh{};
    const auto got = Dump::each_field(s);
    const auto defaults = Dump::each_field(fresh);
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] == defaults[i]) errors->push_back(where + " field #" + std::to_string(i));
    }
    s.visit(*this);
  }

  template <class T>
  void operator()(T& value, const F&) {
    descend(value);
  }

  template <class T>
  void descend(T& v) {
    if constexpr (is_optional<T>::value) {
      if (v) descend(*v);
    } else if constexpr (is_vector<T>::value) {
      for (auto& e : v) descend(e);
    } else if constexpr (Visitable<T>) {
      Coverage inner{errors, where + "/" + typeid(T).name()};
      inner.check(v);
    }
  }
};

template <class T>
void expect_round_trip(T& m, int16_t v) {
  const auto bytes = encode(m, v);
  auto back = decode<T>(bytes, v);
  ASSERT_TRUE(back);
  std::vector<std::string> errors;
  EXPECT_EQ(Dump::message(*back, v, &errors), Dump::message(m, v, nullptr));
  for (const auto& e : errors) ADD_FAILURE() << e;
  EXPECT_EQ(hex(encode(*back, v)), hex(bytes));
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(decode<T>(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(n)), v))
        << "accepted a cut at " << n << " of " << bytes.size();
  }
}

// Every version Kafka defines, with the sample as given and with every field that may be
// null in that version set to null.
template <class T>
void expect_every_version(const T& sample) {
  static_assert(T::kVersions.min <= T::kVersions.max);
  static_assert(T::kFlexibleFrom > T::kVersions.min && T::kFlexibleFrom <= T::kVersions.max);
  T full = sample;
  std::vector<std::string> unset;
  Coverage{&unset, "sample"}.check(full);
  for (const auto& e : unset) ADD_FAILURE() << "sample leaves a default: " << e;
  for (int16_t v = T::kVersions.min; v <= T::kVersions.max; ++v) {
    SCOPED_TRACE("version " + std::to_string(v));
    T a = sample;
    expect_round_trip(a, v);
    T nulls = sample;
    Nullify n{v};
    nulls.visit(n);
    expect_round_trip(nulls, v);
  }
}

template <class T>
void expect_golden(T m, int16_t v, std::string_view want) {
  SCOPED_TRACE("version " + std::to_string(v));
  EXPECT_EQ(hex(encode(m, v)), squash(want));
  auto back = decode<T>(unhex(want), v);
  ASSERT_TRUE(back);
  EXPECT_EQ(Dump::message(*back, v, nullptr), Dump::message(m, v, nullptr));
}

template <class Request, class Response>
constexpr bool same_constants() {
  return Request::kApiKey == Response::kApiKey &&
         Request::kVersions.min == Response::kVersions.min &&
         Request::kVersions.max == Response::kVersions.max &&
         Request::kFlexibleFrom == Response::kFlexibleFrom;
}

Uuid uuid(uint8_t seed) {
  Uuid u;
  for (size_t i = 0; i < u.bytes.size(); ++i) u.bytes[i] = uint8_t(seed + i);
  return u;
}

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

DescribeConfigsRequest describe_configs_request() {
  DescribeConfigsRequest m;
  m.resources = {{.resource_type = 2,
                  .resource_name = "orders",
                  .configuration_keys = std::vector<std::string>{"retention.ms"}}};
  m.include_synonyms = true;
  m.include_documentation = true;
  return m;
}

DescribeConfigsResponse describe_configs_response() {
  DescribeConfigsResponse::Config c{
      .name = "retention.ms",
      .value = "1000",
      .read_only = true,
      .is_default = true,
      .config_source = 1,
      .is_sensitive = true,
      .synonyms = {{.name = "log.retention.ms", .value = "1000", .source = 5}},
      .config_type = 5,
      .documentation = "how long to keep"};
  DescribeConfigsResponse m;
  m.throttle_time_ms = 2;
  m.results = {{.error_code = 1,
                .error_message = "partial",
                .resource_type = 2,
                .resource_name = "orders",
                .configs = {c}}};
  return m;
}

AlterConfigsRequest alter_configs_request() {
  AlterConfigsRequest m;
  m.resources = {{.resource_type = 2,
                  .resource_name = "orders",
                  .configs = {{.name = "retention.ms", .value = "5"}}}};
  m.validate_only = true;
  return m;
}

AlterConfigsResponse alter_configs_response() {
  AlterConfigsResponse m;
  m.throttle_time_ms = 4;
  m.responses = {
      {.error_code = 42, .error_message = "bad", .resource_type = 4, .resource_name = "1"}};
  return m;
}

IncrementalAlterConfigsRequest incremental_alter_configs_request() {
  IncrementalAlterConfigsRequest m;
  m.resources = {
      {.resource_type = 2,
       .resource_name = "orders",
       .configs = {{.name = "cleanup.policy", .config_operation = 2, .value = "delete"}}}};
  m.validate_only = true;
  return m;
}

IncrementalAlterConfigsResponse incremental_alter_configs_response() {
  IncrementalAlterConfigsResponse m;
  m.throttle_time_ms = 4;
  m.responses = {
      {.error_code = 42, .error_message = "bad", .resource_type = 2, .resource_name = "t"}};
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

TEST(AdminApis, DescribeConfigsEveryVersion) {
  expect_every_version(describe_configs_request());
  expect_every_version(describe_configs_response());
}

TEST(AdminApis, AlterConfigsEveryVersion) {
  expect_every_version(alter_configs_request());
  expect_every_version(alter_configs_response());
}

TEST(AdminApis, IncrementalAlterConfigsEveryVersion) {
  expect_every_version(incremental_alter_configs_request());
  expect_every_version(incremental_alter_configs_response());
}

TEST(AdminApis, DeleteRecordsEveryVersion) {
  expect_every_version(delete_records_request());
  expect_every_version(delete_records_response());
}

TEST(AdminApis, DescribeLogDirsEveryVersion) {
  expect_every_version(describe_log_dirs_request());
  expect_every_version(describe_log_dirs_response());
}

TEST(AdminApis, InitProducerIdEveryVersion) {
  expect_every_version(init_producer_id_request());
  expect_every_version(init_producer_id_response());
}

TEST(AdminApis, FindCoordinatorEveryVersion) {
  expect_every_version(find_coordinator_request());
  expect_every_version(find_coordinator_response());
}

// ---- Kafka's defaults, and the version boundaries where fields come and go.

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

TEST(AdminApis, DescribeLogDirsNullTopicsMeansAll) {
  DescribeLogDirsRequest m;
  m.topics.reset();
  EXPECT_EQ(hex(encode(m, 0)), "ffffffff");
  EXPECT_EQ(hex(encode(m, 2)), "0000");
  auto back = decode<DescribeLogDirsRequest>(unhex("0000"), 4);
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->topics.has_value());
}

TEST(AdminApis, InitProducerIdV3AddsProducerIdAndEpoch) {
  InitProducerIdRequest m;
  m.transactional_id.reset();
  m.transaction_timeout_ms = 60000;
  EXPECT_EQ(hex(encode(m, 2)), squash("00 0000ea60 00"));
  EXPECT_EQ(hex(encode(m, 3)), squash("00 0000ea60 ffffffffffffffff ffff 00"));
}

// ---- Golden bytes from kafka-python 2.0.2 (kafka/protocol/admin.py, commit.py), written
// once by its Struct.encode() and pasted here. kafka-python has no DeleteRecords,
// DescribeLogDirs, InitProducerId or IncrementalAlterConfigs, and its
// DescribeConfigsResponse_v1 and GroupCoordinatorResponse_v1 disagree with Kafka's schema
// (is_default instead of config_source; no throttle time), so those are not compared.

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
  expect_golden(golden_create_topics(false), 0, body + "00007530");
  expect_golden(golden_create_topics(true), 1, body + "0000753001");
  expect_golden(golden_create_topics(false), 3, body + "0000753000");

  CreateTopicsResponse r;
  r.topics = {{.name = "orders", .error_code = 0, .error_message = std::nullopt},
              {.name = "bad", .error_code = 36, .error_message = "exists"}};
  expect_golden(r, 0, "0000000200066f7264657273000000036261640024");
  r.throttle_time_ms = 5;
  expect_golden(r, 2, "000000050000000200066f72646572730000ffff000362616400240006657869737473");
}

TEST(AdminApisGolden, DeleteTopics) {
  DeleteTopicsRequest q;
  q.topic_names = {"a", "bc"};
  q.timeout_ms = 1000;
  expect_golden(q, 1, "0000000200016100026263000003e8");
  DeleteTopicsResponse r;
  r.throttle_time_ms = 9;
  r.responses = {{.name = "a", .error_code = 0}, {.name = "bc", .error_code = 3}};
  expect_golden(r, 1, "00000009000000020001610000000262630003");
}

TEST(AdminApisGolden, CreatePartitions) {
  CreatePartitionsRequest q;
  q.topics = {{.name = "t",
               .count = 4,
               .assignments = std::vector<CreatePartitionsRequest::Assignment>{{{1, 2}}, {{2, 3}}}},
              {.name = "u", .count = 6, .assignments = std::nullopt}};
  q.timeout_ms = 500;
  q.validate_only = true;
  expect_golden(q, 1,
                "00000002000174000000040000000200000002000000010000000200000002000000020000000300"
                "017500000006ffffffff000001f401");
  CreatePartitionsResponse r;
  r.throttle_time_ms = 1;
  r.results = {{.name = "t"}, {.name = "u", .error_code = 37, .error_message = "too few"}};
  expect_golden(r, 0, "00000001000000020001740000ffff00017500250007746f6f20666577");
}

TEST(AdminApisGolden, DescribeConfigs) {
  DescribeConfigsRequest q;
  q.resources = {{.resource_type = 2,
                  .resource_name = "orders",
                  .configuration_keys = std::vector<std::string>{"retention.ms"}},
                 {.resource_type = 4, .resource_name = "1", .configuration_keys = std::nullopt}};
  const std::string body =
      "000000020200066f726465727300000001000c726574656e74696f6e2e6d7304000131ffffffff";
  expect_golden(q, 0, body);
  q.include_synonyms = true;
  expect_golden(q, 1, body + "01");

  DescribeConfigsResponse r;
  r.throttle_time_ms = 2;
  r.results = {{.error_message = std::nullopt, .resource_type = 2, .resource_name = "orders"}};
  r.results[0].configs = {
      {.name = "retention.ms", .value = "1000", .is_default = true},
      {.name = "secret", .value = std::nullopt, .read_only = true, .is_sensitive = true}};
  expect_golden(r, 0,
                "00000002000000010000ffff0200066f726465727300000002000c726574656e74696f6e2e6d7300"
                "04313030300001000006736563726574ffff010001");
  r.results[0].configs = {
      {.name = "retention.ms",
       .value = "1000",
       .config_source = 1,
       .synonyms = {{.name = "retention.ms", .value = "1000", .source = 1},
                    {.name = "log.retention.ms", .value = std::nullopt, .source = 5}}}};
  expect_golden(r, 2,
                "00000002000000010000ffff0200066f726465727300000001000c726574656e74696f6e2e6d7300"
                "043130303000010000000002000c726574656e74696f6e2e6d730004313030300100106c6f672e72"
                "6574656e74696f6e2e6d73ffff05");
}

TEST(AdminApisGolden, AlterConfigs) {
  AlterConfigsRequest q;
  q.resources = {
      {.resource_type = 2,
       .resource_name = "orders",
       .configs = {{.name = "retention.ms", .value = "5"}, {.name = "x", .value = std::nullopt}}}};
  expect_golden(q, 1,
                "000000010200066f726465727300000002000c726574656e74696f6e2e6d73000135000178ffff00");
  AlterConfigsResponse r;
  r.responses = {
      {.error_message = std::nullopt, .resource_type = 2, .resource_name = "orders"},
      {.error_code = 42, .error_message = "bad value", .resource_type = 4, .resource_name = "1"}};
  expect_golden(r, 0,
                "00000000000000020000ffff0200066f7264657273002a00096261642076616c756504000131");
}

TEST(AdminApisGolden, FindCoordinator) {
  FindCoordinatorRequest q;
  q.key = "g1";
  expect_golden(q, 0, "00026731");
  q.key = "tx";
  q.key_type = 1;
  expect_golden(q, 1, "0002747801");
  FindCoordinatorResponse r;
  r.node_id = 3;
  r.host = "b3";
  r.port = 9092;
  expect_golden(r, 0, "0000000000030002623300002384");
}

}  // namespace
}  // namespace strata::protocol

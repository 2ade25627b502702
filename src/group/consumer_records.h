// The consumer-protocol group records of __consumer_offsets (KIP-848), in Kafka 4.x's
// layouts (docs/formats/consumer-offsets.md): the key's leading int16 is the record type
// (ConsumerKey::type), the key body is not flexible; every value is value version 0,
// flexible. A null value is a tombstone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "common/types.h"

namespace strata::group {

// Record types (the key's version) of consumer-protocol groups.
enum class ConsumerRecord : int16_t {
  kGroupMetadata = 3,       // key: group             value: the group epoch
  kPartitionMetadata = 4,   // key: group             value: subscribed topics (Kafka 4.0; read only)
  kMemberMetadata = 5,      // key: group, member     value: the member's subscription
  kTargetMetadata = 6,      // key: group             value: the target assignment's epoch
  kTargetMember = 7,        // key: group, member     value: the member's target
  kCurrentAssignment = 8,   // key: group, member     value: its epoch, state, partitions
  kRegularExpression = 16,  // key: group, regex      value: the topics it resolved to
};

// The key of any record above; `sub` is the member id (5, 7, 8), the regular
// expression (16), or empty.
struct ConsumerKey {
  ConsumerRecord type = ConsumerRecord::kGroupMetadata;
  std::string group;
  std::string sub;
};

struct TopicPartitionsValue {
  Uuid topic_id;
  std::vector<int32_t> partitions;
};

struct ConsumerGroupMetadataValue {
  int32_t epoch = 0;
  int64_t metadata_hash = 0;  // tagged field 0 (Kafka 4.1)
};

struct ClassicMemberMetadata {
  int32_t session_timeout_ms = 0;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> supported_protocols;
};

struct ConsumerMemberValue {
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::string> server_assignor;
  std::optional<ClassicMemberMetadata> classic;  // tagged field 0
};

struct TargetMetadataValue {
  int32_t assignment_epoch = 0;
};

struct TargetMemberValue {
  std::vector<TopicPartitionsValue> topic_partitions;
};

struct CurrentAssignmentValue {
  int32_t member_epoch = 0;
  int32_t previous_member_epoch = 0;
  int8_t state = 0;
  std::vector<TopicPartitionsValue> assigned;
  std::vector<TopicPartitionsValue> pending_revocation;
};

struct RegexValue {
  std::vector<std::string> topics;
  int64_t version = 0;
  int64_t timestamp = 0;
};

struct PartitionMetadataValue {
  struct Topic {
    Uuid topic_id;
    std::string topic_name;
    int32_t num_partitions = 0;
    std::vector<std::pair<int32_t, std::vector<std::string>>> racks;  // partition, its racks
  };
  std::vector<Topic> topics;
};

std::vector<uint8_t> encode_key(const ConsumerKey& key);
std::vector<uint8_t> encode_value(const ConsumerGroupMetadataValue& v);
std::vector<uint8_t> encode_value(const ConsumerMemberValue& v);
std::vector<uint8_t> encode_value(const TargetMetadataValue& v);
std::vector<uint8_t> encode_value(const TargetMemberValue& v);
std::vector<uint8_t> encode_value(const CurrentAssignmentValue& v);
std::vector<uint8_t> encode_value(const RegexValue& v);

// `type` from the key's first two bytes; the key must be one of ConsumerRecord.
Result<ConsumerKey, std::string> decode_consumer_key(Bytes key);
Result<ConsumerGroupMetadataValue, std::string> decode_group_metadata_value(Bytes v);
Result<PartitionMetadataValue, std::string> decode_partition_metadata_value(Bytes v);
Result<ConsumerMemberValue, std::string> decode_member_value(Bytes v);
Result<TargetMetadataValue, std::string> decode_target_metadata_value(Bytes v);
Result<TargetMemberValue, std::string> decode_target_member_value(Bytes v);
Result<CurrentAssignmentValue, std::string> decode_current_assignment_value(Bytes v);
Result<RegexValue, std::string> decode_regex_value(Bytes v);

bool is_consumer_record(int16_t type);

}  // namespace strata::group

// The records of the internal topic __consumer_offsets, in Kafka's key and value
// layouts (docs/formats/consumer-offsets.md), so Kafka's own tools could decode them.
//
// Every key and value starts with an int16 version. Keys: version 0 or 1 is a committed
// offset (group, topic, partition), version 2 is a group's metadata (group), 3-8 and 16
// are a consumer-protocol group's records (consumer_records.h). Values are
// versioned independently; a null value is a tombstone (offset or group deleted).
// We write OffsetCommitValue v3 (v1 when the commit carries an explicit expiry, as
// Kafka does) and GroupMetadataValue v3; we read every version Kafka 4.0 defines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "group/consumer_records.h"

namespace strata::group {

inline constexpr const char* kOffsetsTopic = "__consumer_offsets";

struct OffsetKey {
  std::string group;
  std::string topic;
  int32_t partition = 0;
};

struct GroupKey {
  std::string group;
};

struct OffsetValue {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp = -1;
  int64_t expire_timestamp = -1;  // only in value v1; -1 when absent
};

struct MemberRecord {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = -1;
  int32_t session_timeout_ms = 0;
  std::vector<uint8_t> subscription;
  std::vector<uint8_t> assignment;
};

struct GroupValue {
  std::string protocol_type;
  int32_t generation = 0;
  std::optional<std::string> protocol;
  std::optional<std::string> leader;
  int64_t current_state_timestamp = -1;
  std::vector<MemberRecord> members;
};

using RecordKey = std::variant<OffsetKey, GroupKey, ConsumerKey>;

std::vector<uint8_t> encode_key(const OffsetKey& key);
std::vector<uint8_t> encode_key(const GroupKey& key);
std::vector<uint8_t> encode_value(const OffsetValue& value);
std::vector<uint8_t> encode_value(const GroupValue& value);

// Decoding fails with a message for unknown versions, truncation or trailing bytes.
// Consumer-protocol group keys (KIP-848; consumer_records.h) decode as ConsumerKey;
// share-group and streams-group keys are reported as such (this coordinator skips them).
Result<RecordKey, std::string> decode_key(Bytes key);
Result<OffsetValue, std::string> decode_offset_value(Bytes value);
Result<GroupValue, std::string> decode_group_value(Bytes value);

// The partition of __consumer_offsets that holds `group`: Java's String.hashCode of
// the id (over UTF-16 code units), made non-negative as Kafka's Utils.abs does, modulo
// the partition count. Must match Kafka so a group lives where Kafka would put it.
int32_t partition_for_group(const std::string& group, int32_t partitions);

}  // namespace strata::group

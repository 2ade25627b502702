// Kafka's embedded consumer protocol: the bytes a classic consumer group's members
// exchange through the coordinator without it looking inside, JoinGroup's protocol
// metadata (ConsumerProtocolSubscription) and SyncGroup's assignment
// (ConsumerProtocolAssignment). DescribeGroups and the GroupMetadataValue records of
// __consumer_offsets carry them as opaque BYTES; the tools decode them to show who owns
// which partition, and the group coordinator reads and writes them for classic members
// of a consumer-protocol group (KIP-848's migration).
//
// Both are an int16 version, then a body that is never flexible (versions 0-3):
//   Subscription: topics [string], user_data nullable bytes,
//                 v1+ owned_partitions [topic string, partitions [int32]],
//                 v2+ generation_id int32 (-1), v3+ rack_id nullable string
//   Assignment:   assigned_partitions [topic string, partitions [int32]],
//                 user_data nullable bytes
// Versions 1-3 of the assignment exist only to follow the subscription's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "protocol/message.h"

namespace strata::protocol {

struct ConsumerTopicPartitions {
  std::string topic;
  std::vector<int32_t> partitions;
  template <class V>
  void visit(V& v) {
    v(topic, F{{0}});
    v(partitions, F{{0}});
  }
};

struct ConsumerSubscription {
  std::vector<std::string> topics;
  std::optional<std::vector<uint8_t>> user_data;
  std::vector<ConsumerTopicPartitions> owned_partitions;  // v1+
  int32_t generation_id = -1;                             // v2+
  std::optional<std::string> rack_id;                     // v3+
  template <class V>
  void visit(V& v) {
    v(topics, F{{0}});
    v(user_data, F{{0}, {0}});
    v(owned_partitions, F{{1}});
    v(generation_id, F{{2}});
    v(rack_id, F{{3}, {3}});
  }
};

struct ConsumerAssignment {
  std::vector<ConsumerTopicPartitions> assigned_partitions;
  std::optional<std::vector<uint8_t>> user_data;
  template <class V>
  void visit(V& v) {
    v(assigned_partitions, F{{0}});
    v(user_data, F{{0}, {0}});
  }
};

inline constexpr int16_t kConsumerProtocolVersionMax = 3;

// A decoded message and the version it was written in.
template <class T>
struct Versioned {
  int16_t version = 0;
  T message;
};

// Reads the version, then the body. As Kafka's consumers do, a version above 3 is read
// with version 3's layout (later versions may only append fields) and bytes after the
// body are ignored; a negative version, or a body that does not fit, is an error.
Result<Versioned<ConsumerSubscription>, std::string> decode_consumer_subscription(Bytes bytes);
Result<Versioned<ConsumerAssignment>, std::string> decode_consumer_assignment(Bytes bytes);
// An assignment in `version` (0-3; the layout is the same in all).
std::vector<uint8_t> encode_consumer_assignment(const ConsumerAssignment& a, int16_t version);

}  // namespace strata::protocol

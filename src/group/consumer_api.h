// What the group coordinator takes and gives for consumer-protocol groups (KIP-848):
// ConsumerGroupHeartbeat and ConsumerGroupDescribe in plain terms, and the view of the
// cluster's topics the coordinator needs (ids, names, partition counts), which the
// broker supplies from its metadata snapshot.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/kafka_errors.h"
#include "group/consumer_group.h"

namespace strata::group {

struct TopicInfo {
  Uuid id;
  std::string name;
  int32_t partitions = 0;
};

// The cluster's topics, as of one metadata snapshot.
class TopicView {
 public:
  virtual ~TopicView() = default;
  virtual std::optional<TopicInfo> find(const std::string& name) const = 0;
  virtual std::optional<TopicInfo> find(const Uuid& id) const = 0;
  virtual void each(const std::function<void(const TopicInfo&)>& f) const = 0;
};

struct ConsumerHeartbeat {
  int16_t api_version = 1;
  std::string group_id;
  std::string member_id;
  int32_t member_epoch = 0;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::vector<std::string>> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;
  std::optional<std::string> server_assignor;
  std::optional<Assignment> owned;  // the member's TopicPartitions; nullopt: not said
  std::string client_id;
  std::string client_host;
};

struct ConsumerHeartbeatResult {
  KafkaError error = KafkaError::kNone;
  std::optional<std::string> message;
  std::string member_id;
  int32_t member_epoch = 0;
  int32_t heartbeat_interval_ms = 0;
  std::optional<Assignment> assignment;  // set when the member must (re)read it
};
using ConsumerHeartbeatDone = std::function<void(ConsumerHeartbeatResult)>;

struct ConsumerMemberDescription {
  ConsumerMember member;  // timers not meaningful
  Assignment target;
};

struct ConsumerGroupDescription {
  KafkaError error = KafkaError::kNone;  // GROUP_ID_NOT_FOUND: missing, or not a consumer group
  std::optional<std::string> message;
  ConsumerGroupState state = ConsumerGroupState::kDead;
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::string assignor;
  std::vector<ConsumerMemberDescription> members;
};

// Kafka's checks of a heartbeat before it reaches a group
// (GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid): INVALID_REQUEST
// or UNSUPPORTED_ASSIGNOR with Kafka's message, or nullopt when well formed.
struct HeartbeatProblem {
  KafkaError error;
  std::string message;
};
std::optional<HeartbeatProblem> check_heartbeat(const ConsumerHeartbeat& r,
                                                const std::vector<std::string>& assignors);

}  // namespace strata::group

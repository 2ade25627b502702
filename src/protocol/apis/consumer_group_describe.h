// ConsumerGroupDescribe (key 69): the state of consumer-protocol groups (KIP-848): group
// and assignment epochs, the assignor, and each member's subscription, epoch, current
// and target assignment.
//
// Follows Kafka 4.x's schema for versions 0-1, flexible in both. v1 adds each member's
// MemberType (-1 unknown, 0 classic, 1 consumer; KIP-1099).
// Defaults are Kafka's: AuthorizedOperations starts as INT32_MIN, "not asked for".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct ConsumerGroupDescribeRequest {
  static constexpr int16_t kApiKey = 69;
  static constexpr Versions kVersions{0, 1};
  static constexpr int16_t kFlexibleFrom = 0;

  std::vector<std::string> group_ids;
  bool include_authorized_operations = false;

  template <class V>
  void visit(V& v) {
    v(group_ids, F{{0}});
    v(include_authorized_operations, F{{0}});
  }
};

struct ConsumerGroupDescribeResponse {
  static constexpr int16_t kApiKey = ConsumerGroupDescribeRequest::kApiKey;
  static constexpr Versions kVersions = ConsumerGroupDescribeRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = ConsumerGroupDescribeRequest::kFlexibleFrom;

  struct TopicPartitions {
    Uuid topic_id;
    std::string topic_name;
    std::vector<int32_t> partitions;
    template <class V>
    void visit(V& v) {
      v(topic_id, F{{0}});
      v(topic_name, F{{0}});
      v(partitions, F{{0}});
    }
  };
  struct Assignment {
    std::vector<TopicPartitions> topic_partitions;
    template <class V>
    void visit(V& v) {
      v(topic_partitions, F{{0}});
    }
  };
  struct Member {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t member_epoch = 0;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    Assignment assignment;
    Assignment target_assignment;
    int8_t member_type = -1;  // v1+
    template <class V>
    void visit(V& v) {
      v(member_id, F{{0}});
      v(instance_id, F{{0}, {0}});
      v(rack_id, F{{0}, {0}});
      v(member_epoch, F{{0}});
      v(client_id, F{{0}});
      v(client_host, F{{0}});
      v(subscribed_topic_names, F{{0}});
      v(subscribed_topic_regex, F{{0}, {0}});
      v(assignment, F{{0}});
      v(target_assignment, F{{0}});
      v(member_type, F{{1}});
    }
  };
  struct Group {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string group_state;  // "Empty", "Assigning", "Reconciling", "Stable", "Dead"
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::string assignor_name;
    std::vector<Member> members;
    int32_t authorized_operations = INT32_MIN;
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(error_message, F{{0}, {0}});
      v(group_id, F{{0}});
      v(group_state, F{{0}});
      v(group_epoch, F{{0}});
      v(assignment_epoch, F{{0}});
      v(assignor_name, F{{0}});
      v(members, F{{0}});
      v(authorized_operations, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<Group> groups;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(groups, F{{0}});
  }
};

}  // namespace strata::protocol

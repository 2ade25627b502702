// SyncGroup (key 14): after a JoinGroup round, the leader sends the assignment it
// computed for every member, the others send none, and each member gets back its own.
//
// Follows Kafka's schema for versions 0-5 (Kafka 4.0-SNAPSHOT, Oct 2024), flexible
// from 4. v1 adds the throttle time to the response; v3 adds group_instance_id (static
// membership); v5 adds the protocol type and name to both sides: the client states what
// it joined with, and the broker refuses a mismatch with INCONSISTENT_GROUP_PROTOCOL.
// Version 2 changes only when a throttled response is sent.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct SyncGroupRequest {
  static constexpr int16_t kApiKey = 14;
  static constexpr Versions kVersions{0, 5};
  static constexpr int16_t kFlexibleFrom = 4;

  struct Assignment {
    std::string member_id;
    std::vector<uint8_t> assignment;
    template <class V>
    void visit(V& v) {
      v(member_id, F{{0}});
      v(assignment, F{{0}});
    }
  };

  std::string group_id;
  int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+; null: a dynamic member
  std::optional<std::string> protocol_type;      // v5+
  std::optional<std::string> protocol_name;      // v5+
  std::vector<Assignment> assignments;           // empty unless sent by the leader

  template <class V>
  void visit(V& v) {
    v(group_id, F{{0}});
    v(generation_id, F{{0}});
    v(member_id, F{{0}});
    v(group_instance_id, F{{3}, {3}});
    v(protocol_type, F{{5}, {5}});
    v(protocol_name, F{{5}, {5}});
    v(assignments, F{{0}});
  }
};

struct SyncGroupResponse {
  static constexpr int16_t kApiKey = SyncGroupRequest::kApiKey;
  static constexpr Versions kVersions = SyncGroupRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = SyncGroupRequest::kFlexibleFrom;

  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  std::optional<std::string> protocol_type;  // v5+
  std::optional<std::string> protocol_name;  // v5+
  std::vector<uint8_t> assignment;           // this member's

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{1}});
    v(error_code, F{{0}});
    v(protocol_type, F{{5}, {5}});
    v(protocol_name, F{{5}, {5}});
    v(assignment, F{{0}});
  }
};

}  // namespace strata::protocol

// DescribeGroups (key 15): the state, protocol and members of classic groups, as an
// admin client shows them.
//
// Follows Kafka's schema for versions 0-5 (Kafka 4.0-SNAPSHOT, Oct 2024), flexible
// from 5. v1 adds the throttle time to the response; v3 lets the client ask for the
// operations it may perform on each group (a bit field, answered only when asked); v4
// adds each member's group_instance_id. Version 2 changes only when a throttled
// response is sent.
//
// A group's protocol_data is the chosen assignor's name, and a member's metadata and
// assignment are filled in, only while the group is Stable; a Dead (unknown) group is
// described with no members rather than an error.
//
// Defaults are Kafka's: authorized_operations starts as INT32_MIN, "not asked for".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DescribeGroupsRequest {
  static constexpr int16_t kApiKey = 15;
  static constexpr Versions kVersions{0, 5};
  static constexpr int16_t kFlexibleFrom = 5;

  std::vector<std::string> groups;
  bool include_authorized_operations = false;  // v3+

  template <class V>
  void visit(V& v) {
    v(groups, F{{0}});
    v(include_authorized_operations, F{{3}});
  }
};

struct DescribeGroupsResponse {
  static constexpr int16_t kApiKey = DescribeGroupsRequest::kApiKey;
  static constexpr Versions kVersions = DescribeGroupsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DescribeGroupsRequest::kFlexibleFrom;

  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v4+
    std::string client_id;
    std::string client_host;
    std::vector<uint8_t> member_metadata;
    std::vector<uint8_t> member_assignment;
    template <class V>
    void visit(V& v) {
      v(member_id, F{{0}});
      v(group_instance_id, F{{4}, {4}});
      v(client_id, F{{0}});
      v(client_host, F{{0}});
      v(member_metadata, F{{0}});
      v(member_assignment, F{{0}});
    }
  };
  struct Group {
    int16_t error_code = 0;
    std::string group_id;
    std::string group_state;    // e.g. "Stable", "PreparingRebalance", "Empty", "Dead"
    std::string protocol_type;  // e.g. "consumer"
    std::string protocol_data;  // e.g. "range"
    std::vector<Member> members;
    int32_t authorized_operations = INT32_MIN;  // v3+
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(group_id, F{{0}});
      v(group_state, F{{0}});
      v(protocol_type, F{{0}});
      v(protocol_data, F{{0}});
      v(members, F{{0}});
      v(authorized_operations, F{{3}});
    }
  };

  int32_t throttle_time_ms = 0;  // v1+
  std::vector<Group> groups;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{1}});
    v(groups, F{{0}});
  }
};

}  // namespace strata::protocol

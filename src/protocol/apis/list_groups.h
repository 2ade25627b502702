// ListGroups (key 16): the groups a broker coordinates, with their protocol type and
// (v4+) state and (v5+) type.
//
// Follows Kafka's schema for versions 0-5 (Kafka 4.0-SNAPSHOT, Oct 2024), flexible
// from 3. v0-2 requests have no fields at all (v3's is only the empty tag section);
// v1 adds the throttle time to the response; v4 adds a filter on group state and each
// group's state; v5 adds a filter on group type ("Classic", "Consumer", "Share",
// matched without regard to case) and each group's type. An empty filter matches every
// group. Version 2 changes only when a throttled response is sent.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct ListGroupsRequest {
  static constexpr int16_t kApiKey = 16;
  static constexpr Versions kVersions{0, 5};
  static constexpr int16_t kFlexibleFrom = 3;

  std::vector<std::string> states_filter;  // v4+
  std::vector<std::string> types_filter;   // v5+

  template <class V>
  void visit(V& v) {
    v(states_filter, F{{4}});
    v(types_filter, F{{5}});
  }
};

struct ListGroupsResponse {
  static constexpr int16_t kApiKey = ListGroupsRequest::kApiKey;
  static constexpr Versions kVersions = ListGroupsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = ListGroupsRequest::kFlexibleFrom;

  struct Group {
    std::string group_id;
    std::string protocol_type;
    std::string group_state;  // v4+
    std::string group_type;   // v5+
    template <class V>
    void visit(V& v) {
      v(group_id, F{{0}});
      v(protocol_type, F{{0}});
      v(group_state, F{{4}});
      v(group_type, F{{5}});
    }
  };

  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  std::vector<Group> groups;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{1}});
    v(error_code, F{{0}});
    v(groups, F{{0}});
  }
};

}  // namespace strata::protocol

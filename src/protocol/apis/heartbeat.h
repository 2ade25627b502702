// Heartbeat (key 12): a member of a classic group tells its coordinator it is alive, and
// learns from the error code whether the group is rebalancing (REBALANCE_IN_PROGRESS:
// join again) or has moved on without it.
//
// Follows Kafka's schema for versions 0-4 (Kafka 4.0-SNAPSHOT, Oct 2024), flexible
// from 4. v1 adds the throttle time to the response; v3 adds group_instance_id (static
// membership). Version 2 changes only when a throttled response is sent.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct HeartbeatRequest {
  static constexpr int16_t kApiKey = 12;
  static constexpr Versions kVersions{0, 4};
  static constexpr int16_t kFlexibleFrom = 4;

  std::string group_id;
  int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+; null: a dynamic member

  template <class V>
  void visit(V& v) {
    v(group_id, F{{0}});
    v(generation_id, F{{0}});
    v(member_id, F{{0}});
    v(group_instance_id, F{{3}, {3}});
  }
};

struct HeartbeatResponse {
  static constexpr int16_t kApiKey = HeartbeatRequest::kApiKey;
  static constexpr Versions kVersions = HeartbeatRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = HeartbeatRequest::kFlexibleFrom;

  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{1}});
    v(error_code, F{{0}});
  }
};

}  // namespace strata::protocol

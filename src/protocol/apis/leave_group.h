// LeaveGroup (key 13): members leave a classic group at once rather than wait for their
// sessions to expire, which starts a rebalance for those who stay.
//
// Follows Kafka's schema for versions 0-5 (Kafka 4.0-SNAPSHOT, Oct 2024), flexible
// from 4. v1 adds the throttle time to the response; v3 batches: one request removes
// many members, each named by member id and/or group_instance_id (an admin client can
// remove static members by instance id alone), and the response gains a result per
// member beside the top-level error; v5 adds a free-form reason per member.
// Version 2 changes only when a throttled response is sent.
//
// Defaults are Kafka's: a nullable string whose stated default is null starts null, one
// with none stated starts as "".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct LeaveGroupRequest {
  static constexpr int16_t kApiKey = 13;
  static constexpr Versions kVersions{0, 5};
  static constexpr int16_t kFlexibleFrom = 4;

  struct Member {
    std::string member_id;  // "": identified by group_instance_id alone
    std::optional<std::string> group_instance_id;
    std::optional<std::string> reason;  // v5+
    template <class V>
    void visit(V& v) {
      v(member_id, F{{3}});
      v(group_instance_id, F{{3}, {3}});
      v(reason, F{{5}, {5}});
    }
  };

  std::string group_id;
  std::string member_id;        // v0-2
  std::vector<Member> members;  // v3+

  template <class V>
  void visit(V& v) {
    v(group_id, F{{0}});
    v(member_id, F{{0, 2}});
    v(members, F{{3}});
  }
};

struct LeaveGroupResponse {
  static constexpr int16_t kApiKey = LeaveGroupRequest::kApiKey;
  static constexpr Versions kVersions = LeaveGroupRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = LeaveGroupRequest::kFlexibleFrom;

  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id = "";
    int16_t error_code = 0;
    template <class V>
    void visit(V& v) {
      v(member_id, F{{3}});
      v(group_instance_id, F{{3}, {3}});
      v(error_code, F{{3}});
    }
  };

  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  std::vector<Member> members;  // v3+

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{1}});
    v(error_code, F{{0}});
    v(members, F{{3}});
  }
};

}  // namespace strata::protocol

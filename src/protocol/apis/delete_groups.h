// DeleteGroups (key 42): delete empty groups and their committed offsets.
//
// Follows Kafka's schema for versions 0-2 (Kafka 4.0-SNAPSHOT, Oct 2024; 0 deprecated),
// flexible from 2. Version 1 changes only when a throttled response is sent; unlike
// most APIs, the throttle time is in the response from v0. A group with members is
// refused with NON_EMPTY_GROUP.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DeleteGroupsRequest {
  static constexpr int16_t kApiKey = 42;
  static constexpr Versions kVersions{0, 2};
  static constexpr int16_t kFlexibleFrom = 2;

  std::vector<std::string> groups_names;  // Kafka's name for it

  template <class V>
  void visit(V& v) {
    v(groups_names, F{{0}});
  }
};

struct DeleteGroupsResponse {
  static constexpr int16_t kApiKey = DeleteGroupsRequest::kApiKey;
  static constexpr Versions kVersions = DeleteGroupsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DeleteGroupsRequest::kFlexibleFrom;

  struct Result {
    std::string group_id;
    int16_t error_code = 0;
    template <class V>
    void visit(V& v) {
      v(group_id, F{{0}});
      v(error_code, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<Result> results;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(results, F{{0}});
  }
};

}  // namespace strata::protocol

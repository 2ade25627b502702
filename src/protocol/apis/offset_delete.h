// OffsetDelete (key 47): delete a group's committed offsets for some partitions, e.g.
// for topics it no longer consumes. The broker refuses partitions of topics the group
// is still subscribed to (GROUP_SUBSCRIBED_TO_TOPIC, per partition).
//
// Follows Kafka's schema: version 0 only, and never flexible (no compact lengths, no
// tag sections), so kFlexibleFrom is past every version. Unusually, the response puts
// the error code before the throttle time.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct OffsetDeleteRequest {
  static constexpr int16_t kApiKey = 47;
  static constexpr Versions kVersions{0, 0};
  static constexpr int16_t kFlexibleFrom = INT16_MAX;  // no flexible version

  struct Partition {
    int32_t partition_index = 0;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
    }
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partitions, F{{0}});
    }
  };

  std::string group_id;
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(group_id, F{{0}});
    v(topics, F{{0}});
  }
};

struct OffsetDeleteResponse {
  static constexpr int16_t kApiKey = OffsetDeleteRequest::kApiKey;
  static constexpr Versions kVersions = OffsetDeleteRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = OffsetDeleteRequest::kFlexibleFrom;

  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(error_code, F{{0}});
    }
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partitions, F{{0}});
    }
  };

  int16_t error_code = 0;  // group-level
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(error_code, F{{0}});
    v(throttle_time_ms, F{{0}});
    v(topics, F{{0}});
  }
};

}  // namespace strata::protocol

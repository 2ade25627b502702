// CreatePartitions (key 37): raise the partition count of existing topics, optionally
// placing the new partitions' replicas.
//
// Follows Kafka 4.0's schema: versions 0-3, flexible from 2. v1 is v0; v3 may answer
// THROTTLING_QUOTA_EXCEEDED.
//
// Defaults are Kafka's: a nullable array with no stated default starts empty, not null.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct CreatePartitionsRequest {
  static constexpr int16_t kApiKey = 37;
  static constexpr Versions kVersions{0, 3};
  static constexpr int16_t kFlexibleFrom = 2;

  // The replicas of one new partition, in the order of the new partitions.
  struct Assignment {
    std::vector<int32_t> broker_ids;
    template <class V>
    void visit(V& v) {
      v(broker_ids, F{{0}});
    }
  };
  struct Topic {
    std::string name;
    int32_t count = 0;  // the new total, not the number added
    std::optional<std::vector<Assignment>> assignments{std::in_place};  // null: broker places
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(count, F{{0}});
      v(assignments, F{{0}, {0}});
    }
  };

  std::vector<Topic> topics;
  int32_t timeout_ms = 0;
  bool validate_only = false;

  template <class V>
  void visit(V& v) {
    v(topics, F{{0}});
    v(timeout_ms, F{{0}});
    v(validate_only, F{{0}});
  }
};

struct CreatePartitionsResponse {
  static constexpr int16_t kApiKey = CreatePartitionsRequest::kApiKey;
  static constexpr Versions kVersions = CreatePartitionsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = CreatePartitionsRequest::kFlexibleFrom;

  struct Result {
    std::string name;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(error_code, F{{0}});
      v(error_message, F{{0}, {0}});
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

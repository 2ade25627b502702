// DeleteTopics (key 20): delete topics by name or, from v6, by topic id.
//
// Follows Kafka 4.0's schema: versions 0-6 (0 deprecated), flexible from 4.
// v1 adds the throttle time; v3 may answer TOPIC_DELETION_DISABLED; v5 adds a
// per-topic error message and may answer THROTTLING_QUOTA_EXCEEDED; v6 replaces the
// list of names with (name or id) entries, and a result's name may then be null.
//
// Defaults are Kafka's: a nullable string with no stated default starts as "".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DeleteTopicsRequest {
  static constexpr int16_t kApiKey = 20;
  static constexpr Versions kVersions{0, 6};
  static constexpr int16_t kFlexibleFrom = 4;

  // One topic to delete, named either way: a null name means "use the id".
  struct Topic {
    std::optional<std::string> name;
    Uuid topic_id;
    template <class V>
    void visit(V& v) {
      v(name, F{{6}, {6}});
      v(topic_id, F{{6}});
    }
  };

  std::vector<Topic> topics;             // v6+
  std::vector<std::string> topic_names;  // v0-5
  int32_t timeout_ms = 0;

  template <class V>
  void visit(V& v) {
    v(topics, F{{6}});
    v(topic_names, F{{0, 5}});
    v(timeout_ms, F{{0}});
  }
};

struct DeleteTopicsResponse {
  static constexpr int16_t kApiKey = DeleteTopicsRequest::kApiKey;
  static constexpr Versions kVersions = DeleteTopicsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DeleteTopicsRequest::kFlexibleFrom;

  struct Result {
    std::optional<std::string> name = "";
    Uuid topic_id;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}, {6}});
      v(topic_id, F{{6}});
      v(error_code, F{{0}});
      v(error_message, F{{5}, {5}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<Result> responses;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{1}});
    v(responses, F{{0}});
  }
};

}  // namespace strata::protocol

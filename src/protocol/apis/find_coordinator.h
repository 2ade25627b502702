// FindCoordinator (key 10): which broker coordinates a consumer group, a transactional
// id or a share group.
//
// Follows Kafka 4.0's schema: versions 0-6 (0 deprecated), flexible from 3.
// v1 adds key_type and, in the response, the throttle time and an error message; v2 is
// v1; v4 batches: many keys in, one result per key out, replacing the single-key fields;
// v5 may answer TRANSACTION_ABORTABLE; v6 adds the share-group key type.
//
// Defaults are Kafka's: a nullable string with no stated default starts as "".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct FindCoordinatorRequest {
  static constexpr int16_t kApiKey = 10;
  static constexpr Versions kVersions{0, 6};
  static constexpr int16_t kFlexibleFrom = 3;

  std::string key;                            // v0-3
  int8_t key_type = 0;                        // 0 group, 1 transaction, 2 share group
  std::vector<std::string> coordinator_keys;  // v4+

  template <class V>
  void visit(V& v) {
    v(key, F{{0, 3}});
    v(key_type, F{{1}});
    v(coordinator_keys, F{{4}});
  }
};

struct FindCoordinatorResponse {
  static constexpr int16_t kApiKey = FindCoordinatorRequest::kApiKey;
  static constexpr Versions kVersions = FindCoordinatorRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = FindCoordinatorRequest::kFlexibleFrom;

  struct Coordinator {
    std::string key;
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message = "";
    template <class V>
    void visit(V& v) {
      v(key, F{{4}});
      v(node_id, F{{4}});
      v(host, F{{4}});
      v(port, F{{4}});
      v(error_code, F{{4}});
      v(error_message, F{{4}, {4}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;                         // v0-3
  std::optional<std::string> error_message = "";  // v1-3
  int32_t node_id = 0;                            // v0-3
  std::string host;                               // v0-3
  int32_t port = 0;                               // v0-3
  std::vector<Coordinator> coordinators;          // v4+

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{1}});
    v(error_code, F{{0, 3}});
    v(error_message, F{{1, 3}, {1, 3}});
    v(node_id, F{{0, 3}});
    v(host, F{{0, 3}});
    v(port, F{{0, 3}});
    v(coordinators, F{{4}});
  }
};

}  // namespace strata::protocol

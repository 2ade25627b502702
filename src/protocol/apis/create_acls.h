// CreateAcls (key 30): add ACLs; one result per creation, in the request's order.
//
// Follows Kafka 4.0's schema: versions 0-3 (0 deprecated; Kafka 4.0 final removed it),
// flexible from 2. v1 adds the resource pattern type; v2 is flexible; v3 allows the USER
// resource type. A v0 creation has no pattern type on the wire and decodes as LITERAL
// (3), the only kind v0 could create (Kafka refuses any other in v0).
//
// Codes are Kafka's (security/acl.h). Defaults are Kafka's: a nullable string with no
// stated default starts as "", the pattern type as 3 (LITERAL).
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct CreateAclsRequest {
  static constexpr int16_t kApiKey = 30;
  static constexpr Versions kVersions{0, 3};
  static constexpr int16_t kFlexibleFrom = 2;

  // Kafka's AclCreation.
  struct Creation {
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t resource_pattern_type = 3;  // v1+; v0: LITERAL
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;
    template <class V>
    void visit(V& v) {
      v(resource_type, F{{0}});
      v(resource_name, F{{0}});
      v(resource_pattern_type, F{{1}});
      v(principal, F{{0}});
      v(host, F{{0}});
      v(operation, F{{0}});
      v(permission_type, F{{0}});
    }
  };

  std::vector<Creation> creations;

  template <class V>
  void visit(V& v) {
    v(creations, F{{0}});
  }
};

struct CreateAclsResponse {
  static constexpr int16_t kApiKey = CreateAclsRequest::kApiKey;
  static constexpr Versions kVersions = CreateAclsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = CreateAclsRequest::kFlexibleFrom;

  // Kafka's AclCreationResult.
  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message = "";
    template <class V>
    void visit(V& v) {
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

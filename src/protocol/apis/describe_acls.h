// DescribeAcls (key 29): the ACLs a filter matches, grouped by resource pattern.
//
// Follows Kafka 4.0's schema: versions 0-3 (0 deprecated; Kafka 4.0 final removed it),
// flexible from 2. v1 adds the pattern type (filter and result); v2 is flexible; v3
// allows the USER resource type. A v0 request has no pattern type on the wire and
// decodes as LITERAL (3), which is what a v0 client meant (Kafka's v0 clients send ANY
// as LITERAL, "*" counted as literal); a v0 response has room for LITERAL ACLs only.
//
// Codes are Kafka's (security/acl.h): resource type 1 ANY .. 7 USER, pattern type 1 ANY,
// 2 MATCH, 3 LITERAL, 4 PREFIXED, operation 1 ANY .. 14 DESCRIBE_TOKENS, permission 1 ANY,
// 2 DENY, 3 ALLOW. A null string in the filter matches anything. Defaults are Kafka's: a
// nullable string with no stated default starts as "", the pattern types as 3 (LITERAL).
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DescribeAclsRequest {
  static constexpr int16_t kApiKey = 29;
  static constexpr Versions kVersions{0, 3};
  static constexpr int16_t kFlexibleFrom = 2;

  int8_t resource_type_filter = 0;
  std::optional<std::string> resource_name_filter = "";  // null: any name
  int8_t pattern_type_filter = 3;                        // v1+; v0: LITERAL
  std::optional<std::string> principal_filter = "";      // null: any principal
  std::optional<std::string> host_filter = "";           // null: any host
  int8_t operation = 0;
  int8_t permission_type = 0;

  template <class V>
  void visit(V& v) {
    v(resource_type_filter, F{{0}});
    v(resource_name_filter, F{{0}, {0}});
    v(pattern_type_filter, F{{1}});
    v(principal_filter, F{{0}, {0}});
    v(host_filter, F{{0}, {0}});
    v(operation, F{{0}});
    v(permission_type, F{{0}});
  }
};

struct DescribeAclsResponse {
  static constexpr int16_t kApiKey = DescribeAclsRequest::kApiKey;
  static constexpr Versions kVersions = DescribeAclsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DescribeAclsRequest::kFlexibleFrom;

  // Kafka's AclDescription: one ACL of a resource pattern.
  struct Acl {
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;
    template <class V>
    void visit(V& v) {
      v(principal, F{{0}});
      v(host, F{{0}});
      v(operation, F{{0}});
      v(permission_type, F{{0}});
    }
  };
  // Kafka's DescribeAclsResource: a resource pattern and its matching ACLs.
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t pattern_type = 3;  // v1+
    std::vector<Acl> acls;
    template <class V>
    void visit(V& v) {
      v(resource_type, F{{0}});
      v(resource_name, F{{0}});
      v(pattern_type, F{{1}});
      v(acls, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message = "";
  std::vector<Resource> resources;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{0}});
    v(error_message, F{{0}, {0}});
    v(resources, F{{0}});
  }
};

}  // namespace strata::protocol

// DeleteAcls (key 31): delete the ACLs each filter matches; one result per filter, in
// the request's order, listing the ACLs it matched (an ACL two filters match is listed
// under both).
//
// Follows Kafka 4.0's schema: versions 0-3 (0 deprecated; Kafka 4.0 final removed it),
// flexible from 2. v1 adds the pattern type (filter and matched ACL); v2 is flexible;
// v3 allows the USER resource type. A v0 filter has no pattern type on the wire and
// decodes as LITERAL (3), as Kafka's v0 clients mean it; a v0 response has room for
// LITERAL ACLs only.
//
// Codes are Kafka's (security/acl.h). A null string in a filter matches anything.
// Defaults are Kafka's: a nullable string with no stated default starts as "", the
// pattern types as 3 (LITERAL).
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DeleteAclsRequest {
  static constexpr int16_t kApiKey = 31;
  static constexpr Versions kVersions{0, 3};
  static constexpr int16_t kFlexibleFrom = 2;

  // Kafka's DeleteAclsFilter.
  struct Filter {
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

  std::vector<Filter> filters;

  template <class V>
  void visit(V& v) {
    v(filters, F{{0}});
  }
};

struct DeleteAclsResponse {
  static constexpr int16_t kApiKey = DeleteAclsRequest::kApiKey;
  static constexpr Versions kVersions = DeleteAclsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DeleteAclsRequest::kFlexibleFrom;

  // Kafka's DeleteAclsMatchingAcl: one ACL a filter matched, and whether it went.
  struct MatchingAcl {
    int16_t error_code = 0;
    std::optional<std::string> error_message = "";
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t pattern_type = 3;  // v1+
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(error_message, F{{0}, {0}});
      v(resource_type, F{{0}});
      v(resource_name, F{{0}});
      v(pattern_type, F{{1}});
      v(principal, F{{0}});
      v(host, F{{0}});
      v(operation, F{{0}});
      v(permission_type, F{{0}});
    }
  };
  // Kafka's DeleteAclsFilterResult.
  struct FilterResult {
    int16_t error_code = 0;
    std::optional<std::string> error_message = "";
    std::vector<MatchingAcl> matching_acls;
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(error_message, F{{0}, {0}});
      v(matching_acls, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<FilterResult> filter_results;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(filter_results, F{{0}});
  }
};

}  // namespace strata::protocol

// Short names the ACL tests build bindings with (acl_test.cc, acl_text_test.cc).
#pragma once

#include <string>
#include <utility>

#include "security/acl.h"

namespace strata::security::test {

using AT = AclOperation;
using PT = PatternType;
using PM = PermissionType;
using RT = ResourceType;

inline AclBinding acl(RT type, std::string name, PT pattern, std::string principal, std::string host, AT op,
                      PM permission) {
  return {type, std::move(name), pattern, std::move(principal), std::move(host), op, permission};
}

}  // namespace strata::security::test

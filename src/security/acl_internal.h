// Checks the ACL sources share (acl.cc, acl_json.cc); not part of the module's interface.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "security/acl.h"

namespace strata::security::detail {

// Kafka's principal form: a type, a colon, a name (either may be empty, as Kafka's
// split(":", 2) allows).
bool is_principal(std::string_view p);
// Kafka's message for a principal without a colon (StandardAcl.kafkaPrincipal).
std::string principal_error(std::string_view p);

// The entry half of validate_acl_binding: a concrete operation, ALLOW or DENY, a UTF-8
// principal with a colon, a non-empty UTF-8 host. The error is the message alone.
Result<void, std::string> check_entry(std::string_view principal, std::string_view host,
                                      AclOperation op, PermissionType permission);

}  // namespace strata::security::detail

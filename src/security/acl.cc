// The ACL model and the authorizer's decision; the text forms are in acl_json.cc.
#include "security/acl.h"

#include <algorithm>
#include <cassert>
#include <iterator>

#include "common/kafka_errors.h"
#include "common/utf8.h"
#include "security/acl_internal.h"

namespace strata::security {
namespace {

// Each enum's names, indexed by wire code: Kafka's enum name and SecurityUtils' Pascal
// case ("" where Kafka has none).
struct Names {
  std::string_view upper;
  std::string_view pascal;
};
constexpr Names kResourceTypeNames[] = {
    {"UNKNOWN", "Unknown"},
    {"ANY", "Any"},
    {"TOPIC", "Topic"},
    {"GROUP", "Group"},
    {"CLUSTER", "Cluster"},
    {"TRANSACTIONAL_ID", "TransactionalId"},
    {"DELEGATION_TOKEN", "DelegationToken"},
    {"USER", "User"},
};
constexpr Names kPatternTypeNames[] = {
    {"UNKNOWN", ""}, {"ANY", ""}, {"MATCH", ""}, {"LITERAL", ""}, {"PREFIXED", ""},
};
constexpr Names kOperationNames[] = {
    {"UNKNOWN", "Unknown"},
    {"ANY", "Any"},
    {"ALL", "All"},
    {"READ", "Read"},
    {"WRITE", "Write"},
    {"CREATE", "Create"},
    {"DELETE", "Delete"},
    {"ALTER", "Alter"},
    {"DESCRIBE", "Describe"},
    {"CLUSTER_ACTION", "ClusterAction"},
    {"DESCRIBE_CONFIGS", "DescribeConfigs"},
    {"ALTER_CONFIGS", "AlterConfigs"},
    {"IDEMPOTENT_WRITE", "IdempotentWrite"},
    {"CREATE_TOKENS", "CreateTokens"},
    {"DESCRIBE_TOKENS", "DescribeTokens"},
};
constexpr Names kPermissionNames[] = {
    {"UNKNOWN", "Unknown"}, {"ANY", "Any"}, {"DENY", "Deny"}, {"ALLOW", "Allow"}};

static_assert(std::size(kResourceTypeNames) == acl_code(ResourceType::kUser) + 1);
static_assert(std::size(kPatternTypeNames) == acl_code(PatternType::kPrefixed) + 1);
static_assert(std::size(kOperationNames) == acl_code(AclOperation::kDescribeTokens) + 1);
static_assert(std::size(kPermissionNames) == acl_code(PermissionType::kAllow) + 1);

// The entry for `code`; UNKNOWN's for a code outside the table (an enum cast from a
// wire byte without *_from_code).
template <size_t N>
const Names& names_of(const Names (&table)[N], int8_t code) {
  return code >= 0 && size_t(code) < N ? table[code] : table[0];
}

template <size_t N>
bool is_code(const Names (&)[N], int8_t code) {
  return code >= 0 && size_t(code) < N;
}

bool equal_ascii_nocase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = char(x - 'a' + 'A');
    if (y >= 'a' && y <= 'z') y = char(y - 'a' + 'A');
    if (x != y) return false;
  }
  return true;
}

// The code whose upper or Pascal name is `name`, any case; 0 (UNKNOWN) if none.
template <size_t N>
int8_t code_named(const Names (&table)[N], std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (equal_ascii_nocase(name, table[i].upper)) return int8_t(i);
    if (!table[i].pascal.empty() && equal_ascii_nocase(name, table[i].pascal)) return int8_t(i);
  }
  return 0;
}

AclError invalid_request(std::string message) {
  return AclError{kafka_error::kInvalidRequest, std::move(message)};
}

}  // namespace

// ---- enums ------------------------------------------------------------------------------

ResourceType resource_type_from_code(int8_t code) {
  return is_code(kResourceTypeNames, code) ? ResourceType(code) : ResourceType::kUnknown;
}
PatternType pattern_type_from_code(int8_t code) {
  return is_code(kPatternTypeNames, code) ? PatternType(code) : PatternType::kUnknown;
}
AclOperation acl_operation_from_code(int8_t code) {
  return is_code(kOperationNames, code) ? AclOperation(code) : AclOperation::kUnknown;
}
PermissionType permission_type_from_code(int8_t code) {
  return is_code(kPermissionNames, code) ? PermissionType(code) : PermissionType::kUnknown;
}

std::string_view acl_name(ResourceType v) {
  return names_of(kResourceTypeNames, acl_code(v)).upper;
}
std::string_view acl_name(PatternType v) {
  return names_of(kPatternTypeNames, acl_code(v)).upper;
}
std::string_view acl_name(AclOperation v) {
  return names_of(kOperationNames, acl_code(v)).upper;
}
std::span<const AclOperation> supported_operations(ResourceType type) {
  using O = AclOperation;
  static constexpr O kTopic[] = {O::kRead,     O::kWrite,           O::kCreate,       O::kDescribe,
                                 O::kDelete,   O::kAlter,           O::kDescribeConfigs, O::kAlterConfigs};
  static constexpr O kGroup[] = {O::kRead, O::kDescribe, O::kDelete};
  static constexpr O kCluster[] = {O::kCreate,       O::kClusterAction, O::kDescribeConfigs, O::kAlterConfigs,
                                   O::kIdempotentWrite, O::kAlter,      O::kDescribe};
  static constexpr O kTransactionalId[] = {O::kDescribe, O::kWrite};
  static constexpr O kDelegationToken[] = {O::kDescribe};
  switch (type) {
    case ResourceType::kTopic: return kTopic;
    case ResourceType::kGroup: return kGroup;
    case ResourceType::kCluster: return kCluster;
    case ResourceType::kTransactionalId: return kTransactionalId;
    case ResourceType::kDelegationToken: return kDelegationToken;
    default: return {};
  }
}

int32_t operations_bits(std::span<const AclOperation> ops) {
  int32_t bits = 0;
  for (AclOperation op : ops) bits |= int32_t(1) << acl_code(op);
  return bits;
}

std::string_view acl_name(PermissionType v) {
  return names_of(kPermissionNames, acl_code(v)).upper;
}

std::string_view acl_pascal_name(ResourceType v) {
  return names_of(kResourceTypeNames, acl_code(v)).pascal;
}
std::string_view acl_pascal_name(AclOperation v) {
  return names_of(kOperationNames, acl_code(v)).pascal;
}
std::string_view acl_pascal_name(PermissionType v) {
  return names_of(kPermissionNames, acl_code(v)).pascal;
}

ResourceType resource_type_from_name(std::string_view name) {
  return ResourceType(code_named(kResourceTypeNames, name));
}
PatternType pattern_type_from_name(std::string_view name) {
  return PatternType(code_named(kPatternTypeNames, name));
}
AclOperation acl_operation_from_name(std::string_view name) {
  return AclOperation(code_named(kOperationNames, name));
}
PermissionType permission_type_from_name(std::string_view name) {
  return PermissionType(code_named(kPermissionNames, name));
}

// ---- bindings and filters ---------------------------------------------------------------

std::string to_string(const AclBinding& b) {
  std::string s = "(pattern=ResourcePattern(resourceType=";
  s.append(acl_name(b.type)).append(", name=").append(b.name);
  s.append(", patternType=").append(acl_name(b.pattern));
  s.append("), entry=(principal=").append(b.principal).append(", host=").append(b.host);
  s.append(", operation=").append(acl_name(b.operation));
  s.append(", permissionType=").append(acl_name(b.permission)).append("))");
  return s;
}

namespace detail {


bool is_principal(std::string_view p) {
  return p.find(':') != std::string_view::npos;
}

std::string principal_error(std::string_view p) {
  return "Could not parse principal from `" + std::string(p) +
         "` (no colon is present separating the principal type from the principal name)";
}

Result<void, std::string> check_entry(std::string_view principal, std::string_view host,
                                      AclOperation op, PermissionType permission) {
  if (op == AclOperation::kUnknown || op == AclOperation::kAny) {
    return fail("Invalid operation " + std::string(acl_name(op)));
  }
  if (permission != PermissionType::kAllow && permission != PermissionType::kDeny) {
    return fail("Invalid permissionType " + std::string(acl_name(permission)));
  }
  if (!valid_utf8(principal)) return fail(std::string("The principal is not valid UTF-8"));
  if (!is_principal(principal)) return fail(principal_error(principal));
  if (host.empty()) return fail(std::string("Invalid empty host"));
  if (!valid_utf8(host)) return fail(std::string("The host is not valid UTF-8"));
  return {};
}

}  // namespace detail

Result<void, AclError> validate_acl_binding(const AclBinding& b) {
  if (b.type == ResourceType::kUnknown || b.type == ResourceType::kAny ||
      !is_code(kResourceTypeNames, acl_code(b.type))) {
    return fail(invalid_request("Invalid resourceType " + std::string(acl_name(b.type))));
  }
  if (b.pattern != PatternType::kLiteral && b.pattern != PatternType::kPrefixed) {
    return fail(invalid_request("Invalid patternType " + std::string(acl_name(b.pattern))));
  }
  // The operation and permission before the name, as Kafka's controller has them.
  if (b.operation == AclOperation::kUnknown || b.operation == AclOperation::kAny ||
      !is_code(kOperationNames, acl_code(b.operation))) {
    return fail(invalid_request("Invalid operation " + std::string(acl_name(b.operation))));
  }
  if (b.permission != PermissionType::kAllow && b.permission != PermissionType::kDeny) {
    return fail(invalid_request("Invalid permissionType " + std::string(acl_name(b.permission))));
  }
  if (b.type == ResourceType::kCluster && b.name != kClusterResourceName) {
    return fail(invalid_request("The only valid name for the CLUSTER resource is " +
                                std::string(kClusterResourceName)));
  }
  if (b.name.empty()) return fail(invalid_request("Invalid empty resource name"));
  if (!valid_utf8(b.name)) {
    return fail(invalid_request("The resource name is not valid UTF-8"));
  }
  auto entry = detail::check_entry(b.principal, b.host, b.operation, b.permission);
  if (!entry) return fail(invalid_request(entry.error()));
  return {};
}

namespace {

// Kafka's ResourcePatternFilter.matches.
bool resource_matches(const AclFilter& f, const AclBinding& b) {
  if (f.type != ResourceType::kAny && f.type != b.type) return false;
  if (f.pattern != PatternType::kAny && f.pattern != PatternType::kMatch &&
      f.pattern != b.pattern) {
    return false;
  }
  if (!f.name) return true;
  if (f.pattern == PatternType::kAny || f.pattern == b.pattern) return *f.name == b.name;
  switch (b.pattern) {  // f.pattern is MATCH
    case PatternType::kLiteral:
      return *f.name == b.name || b.name == kWildcardResource;
    case PatternType::kPrefixed:
      return f.name->starts_with(b.name);
    case PatternType::kUnknown:
    case PatternType::kAny:
    case PatternType::kMatch:
      return false;  // not a binding's pattern (Kafka throws)
  }
  return false;
}

// Kafka's AccessControlEntryFilter.matches.
bool entry_matches(const AclFilter& f, const AclBinding& b) {
  if (f.principal && *f.principal != b.principal) return false;
  if (f.host && *f.host != b.host) return false;
  if (f.operation != AclOperation::kAny && f.operation != b.operation) return false;
  return f.permission == PermissionType::kAny || f.permission == b.permission;
}

}  // namespace

bool matches(const AclFilter& f, const AclBinding& b) {
  return resource_matches(f, b) && entry_matches(f, b);
}

Result<void, AclError> validate_acl_filter(const AclFilter& f) {
  if (f.type == ResourceType::kUnknown || f.pattern == PatternType::kUnknown) {
    return fail(invalid_request("Unknown patternFilter."));
  }
  if (f.operation == AclOperation::kUnknown || f.permission == PermissionType::kUnknown) {
    return fail(invalid_request("Unknown entryFilter."));
  }
  return {};
}

// ---- AclSet -----------------------------------------------------------------------------

namespace {

std::shared_ptr<const std::vector<AclBinding>> sorted_unique(std::vector<AclBinding> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return std::make_shared<const std::vector<AclBinding>>(std::move(v));
}

}  // namespace

AclSet::AclSet() : bindings_(std::make_shared<const std::vector<AclBinding>>()) {}

AclSet::AclSet(std::vector<AclBinding> bindings) : bindings_(sorted_unique(std::move(bindings))) {}

bool AclSet::contains(const AclBinding& b) const {
  return std::binary_search(bindings_->begin(), bindings_->end(), b);
}

std::vector<AclBinding> AclSet::matching(const AclFilter& f) const {
  std::vector<AclBinding> out;
  std::copy_if(bindings_->begin(), bindings_->end(), std::back_inserter(out),
               [&f](const AclBinding& b) { return matches(f, b); });
  return out;
}

AclSet AclSet::with(const std::vector<AclBinding>& add) const {
  std::vector<AclBinding> all = *bindings_;
  all.insert(all.end(), add.begin(), add.end());
  return AclSet(std::move(all));
}

AclSet AclSet::without(const std::vector<AclBinding>& remove) const {
  std::vector<AclBinding> gone = remove;
  std::sort(gone.begin(), gone.end());
  std::vector<AclBinding> kept;
  kept.reserve(bindings_->size());
  std::set_difference(bindings_->begin(), bindings_->end(), gone.begin(), gone.end(),
                      std::back_inserter(kept));
  AclSet out;
  out.bindings_ = std::make_shared<const std::vector<AclBinding>>(std::move(kept));
  return out;
}

}  // namespace strata::security

// Kafka's ACLs and its authorizer's decision, as pure code: the enums with Kafka's wire
// codes and names, a binding (resource pattern + entry), the filters DescribeAcls and
// DeleteAcls match with, an immutable snapshot of every ACL, `authorize`, and the text
// forms ACLs are kept in (docs/formats/acls.md). No I/O, no thread affinity; an AclSet
// is immutable, so any thread may read a snapshot while another builds the next.
//
// Facts from Kafka 4.0 (StandardAuthorizerData, AclControlManager, AclApis,
// ResourcePatternFilter, AccessControlEntryFilter, AclEntry, ZkData). Where Strata is
// stricter than Kafka, the function says so.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace strata::security {

// ---- Kafka's enums: wire codes, names ----------------------------------------------------

enum class ResourceType : int8_t {
  kUnknown = 0,
  kAny = 1,
  kTopic = 2,
  kGroup = 3,
  kCluster = 4,
  kTransactionalId = 5,
  kDelegationToken = 6,
  kUser = 7,
};
enum class PatternType : int8_t { kUnknown = 0, kAny = 1, kMatch = 2, kLiteral = 3, kPrefixed = 4 };
enum class AclOperation : int8_t {
  kUnknown = 0,
  kAny = 1,
  kAll = 2,
  kRead = 3,
  kWrite = 4,
  kCreate = 5,
  kDelete = 6,
  kAlter = 7,
  kDescribe = 8,
  kClusterAction = 9,
  kDescribeConfigs = 10,
  kAlterConfigs = 11,
  kIdempotentWrite = 12,
  kCreateTokens = 13,
  kDescribeTokens = 14,
};
enum class PermissionType : int8_t { kUnknown = 0, kAny = 1, kDeny = 2, kAllow = 3 };

// The wire code, and back: a code Kafka does not define is kUnknown (Kafka's fromCode).
constexpr int8_t acl_code(ResourceType v) {
  return static_cast<int8_t>(v);
}
constexpr int8_t acl_code(PatternType v) {
  return static_cast<int8_t>(v);
}
constexpr int8_t acl_code(AclOperation v) {
  return static_cast<int8_t>(v);
}
constexpr int8_t acl_code(PermissionType v) {
  return static_cast<int8_t>(v);
}
ResourceType resource_type_from_code(int8_t code);
PatternType pattern_type_from_code(int8_t code);
AclOperation acl_operation_from_code(int8_t code);
PermissionType permission_type_from_code(int8_t code);

// Kafka's enum names ("TOPIC", "TRANSACTIONAL_ID", "CLUSTER_ACTION", "ALLOW"), as
// AclBinding.toString, DescribeAcls output and acls.json show them.
std::string_view acl_name(ResourceType v);
std::string_view acl_name(PatternType v);
std::string_view acl_name(AclOperation v);

// The operations a resource type supports (Kafka's AclEntry.supportedOperations): what an
// authorized-operations bit field (Metadata, DescribeCluster, DescribeGroups) is made of.
// Empty for kUnknown, kAny and kUser.
std::span<const AclOperation> supported_operations(ResourceType type);
// That bit field: bit n set for each operation of code n in `ops`.
int32_t operations_bits(std::span<const AclOperation> ops);
std::string_view acl_name(PermissionType v);
// Kafka's Pascal-case names ("Topic", "TransactionalId", "ClusterAction", "Allow"), as
// SecurityUtils writes them into ZooKeeper paths and values. PatternType has none.
std::string_view acl_pascal_name(ResourceType v);
std::string_view acl_pascal_name(AclOperation v);
std::string_view acl_pascal_name(PermissionType v);
// Parses either name, ASCII case-insensitively: "Read", "read", "READ", "ClusterAction",
// "cluster_action" (the union of Java's valueOf(toUpperCase) and SecurityUtils' lookup,
// which is what kafka-acls.sh and ZooKeeper values accept between them). Anything else
// is kUnknown, as Kafka's fromString.
ResourceType resource_type_from_name(std::string_view name);
PatternType pattern_type_from_name(std::string_view name);
AclOperation acl_operation_from_name(std::string_view name);
PermissionType permission_type_from_name(std::string_view name);

// Kafka's wildcards: a LITERAL resource named "*" matches every name of its type; an
// entry for "User:*" matches every principal, one for host "*" every host.
inline constexpr std::string_view kWildcardResource = "*";
inline constexpr std::string_view kWildcardPrincipal = "User:*";
inline constexpr std::string_view kWildcardHost = "*";
// The only name a CLUSTER resource may have (Kafka's CLUSTER_NAME).
inline constexpr std::string_view kClusterResourceName = "kafka-cluster";

// ---- bindings and filters ---------------------------------------------------------------

// One ACL: a resource pattern (type, name, pattern) and an entry (principal, host,
// operation, permission). Ordered member-wise, so a sorted list keeps each resource's
// ACLs together, resources by type then name then pattern.
struct AclBinding {
  ResourceType type = ResourceType::kUnknown;
  std::string name;
  PatternType pattern = PatternType::kUnknown;
  std::string principal;  // "User:alice": type, colon, name
  std::string host;       // an IP address as text, or "*"
  AclOperation operation = AclOperation::kUnknown;
  PermissionType permission = PermissionType::kUnknown;

  friend bool operator==(const AclBinding&, const AclBinding&) = default;
  friend auto operator<=>(const AclBinding&, const AclBinding&) = default;
};

// Kafka's AclBinding.toString: "(pattern=ResourcePattern(resourceType=TOPIC, name=a,
// patternType=LITERAL), entry=(principal=User:alice, host=*, operation=READ,
// permissionType=ALLOW))".
std::string to_string(const AclBinding& b);

// An error for one ACL or filter: a Kafka error code and the message Kafka sends.
struct AclError {
  int16_t error_code = 0;
  std::string message;
  friend bool operator==(const AclError&, const AclError&) = default;
};

// Whether `b` may be created (CreateAcls), with Kafka's error and message, checked in
// this order: resource type concrete ("Invalid resourceType ANY"), pattern LITERAL or
// PREFIXED ("Invalid patternType MATCH"), operation concrete ("Invalid operation ANY"),
// permission ALLOW or DENY ("Invalid permissionType ANY"), a CLUSTER named kafka-cluster
// ("The only valid name for the CLUSTER resource is kafka-cluster"), a non-empty name
// ("Invalid empty resource name"); all INVALID_REQUEST (42). Stricter than Kafka, also
// INVALID_REQUEST: a principal without a colon (Kafka 4.0 stores it and then fails every
// authorization that meets it), an empty host (it can match no client), and a name,
// principal or host that is not valid UTF-8 (Java would have replaced the bytes; the
// JSON forms below could not keep them). Like Kafka, a PREFIXED "*" is allowed (it is a
// prefix like any other, not a wildcard), and so is '/' in a name.
Result<void, AclError> validate_acl_binding(const AclBinding& b);

// DescribeAcls / DeleteAcls: a null string matches anything, as do the ANY enumerators.
// The default filter matches every binding.
struct AclFilter {
  ResourceType type = ResourceType::kAny;
  std::optional<std::string> name;
  PatternType pattern = PatternType::kAny;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  AclOperation operation = AclOperation::kAny;
  PermissionType permission = PermissionType::kAny;

  friend bool operator==(const AclFilter&, const AclFilter&) = default;
};

// Kafka's AclBindingFilter.matches. The resource part (ResourcePatternFilter): the type
// is ANY or equal; the pattern is ANY, MATCH or equal; a null name matches; with ANY or
// an equal pattern the name must be equal; with MATCH, a LITERAL binding matches when
// its name is the filter's or "*", a PREFIXED one when it is a prefix of the filter's
// name (the ACLs that would apply to a resource of that name). The entry part: null or
// equal principal and host; ANY or equal operation and permission (no implication:
// a READ ACL does not match an operation filter of DESCRIBE).
bool matches(const AclFilter& f, const AclBinding& b);

// Whether DeleteAcls may use `f` (AclControlManager.validateFilter): INVALID_REQUEST with
// "Unknown patternFilter." for an UNKNOWN resource or pattern type, "Unknown
// entryFilter." for an UNKNOWN operation or permission. DescribeAcls refuses the same.
Result<void, AclError> validate_acl_filter(const AclFilter& f);

// ---- the set of all ACLs ----------------------------------------------------------------

// An immutable snapshot of every ACL: sorted, without duplicates. Copies share the
// bindings (one shared_ptr); changes make a new set. Holds whatever it is given:
// validate bindings before adding them (decode_acls does).
class AclSet {
 public:
  AclSet();
  explicit AclSet(std::vector<AclBinding> bindings);

  // Sorted (AclBinding's order), each binding once.
  const std::vector<AclBinding>& bindings() const { return *bindings_; }
  size_t size() const { return bindings_->size(); }
  bool empty() const { return bindings_->empty(); }
  bool contains(const AclBinding& b) const;

  // The bindings `f` matches, sorted, so a resource's ACLs are consecutive
  // (DescribeAclsResponse groups them by resource).
  std::vector<AclBinding> matching(const AclFilter& f) const;
  // A new set: this one with `add` (those already present stay once), or without
  // `remove` (those absent are ignored). DeleteAcls: each filter's `matching` against
  // the same snapshot, then one `without` of them all, as Kafka reports a binding that
  // several filters match under each of them.
  AclSet with(const std::vector<AclBinding>& add) const;
  AclSet without(const std::vector<AclBinding>& remove) const;

 private:
  std::shared_ptr<const std::vector<AclBinding>> bindings_;  // never null
};

// ---- the authorizer's decision ----------------------------------------------------------

// `authorizer.class.name`'s settings that take part in a decision.
struct AuthorizerConfig {
  std::set<std::string, std::less<>> super_users;  // "User:admin", as super.users lists them
  bool allow_everyone_if_no_acl_found = false;     // allow.everyone.if.no.acl.found
};

// Kafka's `super.users`: principals separated by ';', each trimmed, empty ones skipped,
// each of the form type:name ("expected a string in format principalType:principalName
// but got <p>" otherwise).
Result<std::set<std::string, std::less<>>, std::string> parse_super_users(std::string_view text);

// One action on one resource. The strings are the caller's and need only outlive the call.
struct AuthorizeRequest {
  std::string_view principal;  // "User:alice" (the session's principal, type and name)
  std::string_view host;       // the client's IP address as text, compared as text with
                               // each ACL's host (Kafka compares Java's getHostAddress())
  AclOperation operation = AclOperation::kUnknown;
  ResourceType resource_type = ResourceType::kUnknown;
  std::string_view resource_name;
};

// Which rule decided, for the audit line. Kafka names them SuperUser, MatchingAcl(acl=..),
// DefaultAllow and DefaultDeny; Strata tells DefaultDeny's two cases apart.
enum class AuthorizeRule : uint8_t {
  kSuperUser,   // allowed: the principal is in super.users
  kDenyAcl,     // denied by `acl`: a DENY always wins
  kAllowAcl,    // allowed by `acl`, no DENY applying
  kNoAclFound,  // the resource has no ACL at all: allow.everyone.if.no.acl.found
  kNoAllowAcl,  // denied: the resource has ACLs, none allows this (Kafka's DefaultDeny)
};

struct AuthorizeDecision {
  bool allowed = false;
  AuthorizeRule rule = AuthorizeRule::kNoAclFound;
  // For kDenyAcl and kAllowAcl, the deciding ACL, inside the AclSet given to authorize:
  // valid while that set (or a copy of it) lives. Null for the other rules.
  const AclBinding* acl = nullptr;
};

// Kafka's rule text: "SuperUser", "MatchingAcl(acl=<binding>)", "DefaultAllow",
// "DefaultDeny" (both kNoAclFound denying and kNoAllowAcl).
std::string to_string(const AuthorizeDecision& d);

// Kafka's StandardAuthorizer decision. Super users are allowed everything. Otherwise
// the ACLs that apply to the resource are those of its type that are LITERAL with its
// name, LITERAL "*", or PREFIXED with a prefix of its name (the name itself included).
// Among them an ACL applies to the request when its principal is the request's or
// "User:*", its host the request's or "*", and its operation:
//   DENY:  the request's operation, or ALL;
//   ALLOW: the request's operation, or ALL, or for DESCRIBE any of READ, WRITE, DELETE,
//          ALTER, and for DESCRIBE_CONFIGS ALTER_CONFIGS.
// So a DENY on READ does not deny DESCRIBE, while an ALLOW on READ allows it. Any
// applying DENY denies; else any applying ALLOW allows; else, if the resource has no
// ACLs at all (for anyone, any operation), allow_everyone_if_no_acl_found decides, and
// if it has some, the request is denied. O(log n) per distinct prefix length the
// resource's ACL names diverge at, plus the ACLs on the resource.
AuthorizeDecision authorize(const AclSet& acls, const AuthorizerConfig& config,
                            const AuthorizeRequest& request);

// ---- text forms (docs/formats/acls.md) --------------------------------------------------

// Bounds on the texts the decoders accept.
inline constexpr size_t kAclsTextBytesMax = 64 << 20;   // <log.dir>/acls.json
inline constexpr size_t kZkAclsTextBytesMax = 1 << 20;  // one resource's value (ZooKeeper's
                                                        // jute.maxbuffer; etcd allows 1.5 MiB)

// Single node, every ACL in one file:
//   {"version":1,"acls":[{"resourceType":"TOPIC","name":"a","patternType":"LITERAL",
//     "principal":"User:alice","host":"*","operation":"WRITE","permissionType":"ALLOW"}]}
// encode writes the bindings in the order given, Kafka's enum names, one line, ending in
// a newline. decode requires version 1 and every key of every ACL (string values; the
// names as *_from_name parses them; other keys are ignored) and each ACL to pass
// validate_acl_binding; an error names the ACL's index and what is wrong. Texts over
// kAclsTextBytesMax are refused. Any bytes give a value or an error.
std::string encode_acls(const std::vector<AclBinding>& acls);
Result<std::vector<AclBinding>, std::string> decode_acls(std::string_view text);

// Cluster: one etcd key per resource pattern, Kafka's ZooKeeper layout.
struct AclResource {
  ResourceType type = ResourceType::kUnknown;
  std::string name;
  PatternType pattern = PatternType::kUnknown;
  friend bool operator==(const AclResource&, const AclResource&) = default;
  friend auto operator<=>(const AclResource&, const AclResource&) = default;
};
// One entry of a resource's value (Kafka's AclEntry).
struct ZkAclEntry {
  std::string principal;
  PermissionType permission = PermissionType::kUnknown;
  AclOperation operation = AclOperation::kUnknown;
  std::string host;
  friend bool operator==(const ZkAclEntry&, const ZkAclEntry&) = default;
  friend auto operator<=>(const ZkAclEntry&, const ZkAclEntry&) = default;
};

AclResource resource_of(const AclBinding& b);
ZkAclEntry entry_of(const AclBinding& b);
AclBinding binding_of(const AclResource& r, const ZkAclEntry& e);

// The key of a resource's ACLs below the etcd root: "/kafka-acl/Topic/a" (LITERAL) or
// "/kafka-acl-extended/prefixed/Group/g-" (PREFIXED): Pascal-case type, the name as is
// (everything after the type's '/' is the name, '/' included). Requires a concrete type
// and pattern LITERAL or PREFIXED (asserted).
std::string zk_acl_path(const AclResource& r);
// The resource a key names; nullopt for any other key (an unknown or non-concrete type,
// an empty name, another prefix).
std::optional<AclResource> parse_zk_acl_path(std::string_view path);
// Prefixes under which every such key lies, for a range read or a watch.
inline constexpr std::string_view kZkLiteralAclPrefix = "/kafka-acl/";
inline constexpr std::string_view kZkPrefixedAclPrefix = "/kafka-acl-extended/prefixed/";

// A resource's value, Kafka's AclEntry JSON:
//   {"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow",
//     "operation":"Read","host":"*"}]}
// encode writes Pascal-case names, entries in the order given, no newline. decode, as
// Kafka's AclEntry.fromBytes: an empty text is no entries; version must be 1; the names
// are matched as *_from_name does (Kafka: Pascal case, any letter case). Stricter than
// Kafka: an unknown operation or permission, a principal without a colon, a missing
// key, an empty host or non-UTF-8 text is an error, not an entry no request matches.
std::string encode_zk_acls(const std::vector<ZkAclEntry>& entries);
Result<std::vector<ZkAclEntry>, std::string> decode_zk_acls(std::string_view text);

}  // namespace strata::security

// The authorizer's decision over an AclSet (Kafka's StandardAuthorizerData).
#include <algorithm>
#include <type_traits>

#include "security/acl.h"

namespace strata::security {
namespace {

using Iter = std::vector<AclBinding>::const_iterator;

enum class Effect : uint8_t { kNone, kAllow, kDeny };

// Whether an ALLOW ACL on `granted` allows `wanted`: the operation itself, ALL, and the
// implications (Kafka's IMPLIES_DESCRIBE and IMPLIES_DESCRIBE_CONFIGS).
bool allow_covers(AclOperation granted, AclOperation wanted) {
  if (granted == AclOperation::kAll || granted == wanted) return true;
  switch (wanted) {
    case AclOperation::kDescribe:
      return granted == AclOperation::kRead || granted == AclOperation::kWrite ||
             granted == AclOperation::kDelete || granted == AclOperation::kAlter;
    case AclOperation::kDescribeConfigs:
      return granted == AclOperation::kAlterConfigs;
    default:
      return false;
  }
}

// What `acl` (whose resource pattern applies) says about the request (Kafka's
// findResult): nothing unless principal and host match; a DENY only on the very
// operation or ALL; any permission but ALLOW denies, as in Kafka.
Effect effect_of(const AclBinding& acl, const AuthorizeRequest& r) {
  if (acl.principal != r.principal && acl.principal != kWildcardPrincipal) return Effect::kNone;
  if (acl.host != kWildcardHost && acl.host != r.host) return Effect::kNone;
  if (acl.permission == PermissionType::kAllow) {
    return allow_covers(acl.operation, r.operation) ? Effect::kAllow : Effect::kNone;
  }
  if (acl.operation != AclOperation::kAll && acl.operation != r.operation) return Effect::kNone;
  return Effect::kDeny;
}

// The ACLs found so far for one request.
struct Findings {
  const AuthorizeRequest& request;
  bool resource_has_acls = false;
  const AclBinding* allow = nullptr;
  const AclBinding* deny = nullptr;

  // `acl`'s pattern applies to the resource. False once a DENY is found: nothing can
  // change the outcome after it.
  bool consider(const AclBinding& acl) {
    resource_has_acls = true;
    switch (effect_of(acl, request)) {
      case Effect::kAllow:
        allow = &acl;
        return true;
      case Effect::kDeny:
        deny = &acl;
        return false;
      case Effect::kNone:
        return true;
    }
    return true;
  }
};

// First binding in [first, last) (sorted by name) whose name is greater than `key`.
Iter upper_bound_name(Iter first, Iter last, std::string_view key) {
  return std::upper_bound(first, last, key,
                          [](std::string_view k, const AclBinding& b) { return k < b.name; });
}

size_t common_prefix(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// Considers, in [first, last) (one type's bindings, sorted by name), every LITERAL
// binding named `name` and every PREFIXED one whose name is a prefix of `name`: all
// have names <= `name`. Walks down from `name`; a binding whose name diverges from
// `name` at position m is passed over to the bindings <= name[0, m), as no prefix of
// `name` lies between (Kafka's checkSection, over an ascending order). Each jump
// shortens the key, so it ends after at most name.size() jumps.
void consider_name_and_prefixes(Iter first, Iter last, std::string_view name, Findings& f) {
  Iter it = upper_bound_name(first, last, name);
  while (it != first) {
    const AclBinding& b = *(it - 1);
    const size_t m = common_prefix(b.name, name);
    if (m < b.name.size()) {  // b.name < name[0, m] + b.name[m..]: skip to name[0, m)
      it = upper_bound_name(first, it - 1, name.substr(0, m));
      continue;
    }
    --it;
    const bool applies = b.pattern == PatternType::kPrefixed ||
                         (b.pattern == PatternType::kLiteral && b.name.size() == name.size());
    if (applies && !f.consider(b)) return;
  }
}

// The LITERAL "*" bindings of the type.
void consider_wildcard(Iter first, Iter last, Findings& f) {
  const auto [from, to] =
      std::equal_range(first, last, kWildcardResource, [](const auto& x, const auto& y) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, AclBinding>) {
          return std::string_view(x.name) < y;
        } else {
          return x < std::string_view(y.name);
        }
      });
  for (Iter it = from; it != to; ++it) {
    if (it->pattern == PatternType::kLiteral && !f.consider(*it)) return;
  }
}

}  // namespace

Result<std::set<std::string, std::less<>>, std::string> parse_super_users(std::string_view text) {
  std::set<std::string, std::less<>> out;
  while (true) {
    const size_t semi = text.find(';');
    std::string_view p = text.substr(0, semi);
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!p.empty() && space(p.front())) p.remove_prefix(1);
    while (!p.empty() && space(p.back())) p.remove_suffix(1);
    if (!p.empty()) {
      if (p.find(':') == std::string_view::npos) {
        return fail("expected a string in format principalType:principalName but got " +
                    std::string(p));
      }
      out.emplace(p);
    }
    if (semi == std::string_view::npos) return out;
    text.remove_prefix(semi + 1);
  }
}

std::string to_string(const AuthorizeDecision& d) {
  switch (d.rule) {
    case AuthorizeRule::kSuperUser:
      return "SuperUser";
    case AuthorizeRule::kDenyAcl:
    case AuthorizeRule::kAllowAcl:
      return "MatchingAcl(acl=" + (d.acl != nullptr ? to_string(*d.acl) : std::string()) + ")";
    case AuthorizeRule::kNoAclFound:
    case AuthorizeRule::kNoAllowAcl:
      return d.allowed ? "DefaultAllow" : "DefaultDeny";
  }
  return "?";
}

AuthorizeDecision authorize(const AclSet& acls, const AuthorizerConfig& config,
                            const AuthorizeRequest& request) {
  if (config.super_users.contains(request.principal)) {
    return {true, AuthorizeRule::kSuperUser, nullptr};
  }
  const std::vector<AclBinding>& all = acls.bindings();
  const auto [first, last] = std::equal_range(
      all.begin(), all.end(), request.resource_type, [](const auto& x, const auto& y) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, AclBinding>) {
          return x.type < y;
        } else {
          return x < y.type;
        }
      });
  Findings f{request};
  consider_name_and_prefixes(first, last, request.resource_name, f);
  if (f.deny == nullptr) consider_wildcard(first, last, f);
  if (f.deny != nullptr) return {false, AuthorizeRule::kDenyAcl, f.deny};
  if (f.allow != nullptr) return {true, AuthorizeRule::kAllowAcl, f.allow};
  if (!f.resource_has_acls) {
    return {config.allow_everyone_if_no_acl_found, AuthorizeRule::kNoAclFound, nullptr};
  }
  return {false, AuthorizeRule::kNoAllowAcl, nullptr};
}

}  // namespace strata::security

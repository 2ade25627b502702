// The text forms of ACLs (docs/formats/acls.md): <log.dir>/acls.json, and Kafka's
// ZooKeeper layout and values for the cluster's etcd keys. nlohmann::json without
// exceptions: parse(.., allow_exceptions = false), every value's type checked before it
// is read, and dump with invalid UTF-8 replaced (validation keeps it out anyway).
#include <cassert>
#include <nlohmann/json.hpp>

#include "security/acl.h"
#include "security/acl_internal.h"

namespace strata::security {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;  // keys in the documented order

std::string dump(const OrderedJson& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Parses `text` as a {"version":1,"acls":[...]} object; the error says why not.
Result<Json, std::string> parse_versioned(std::string_view text, size_t bytes_max) {
  if (text.size() > bytes_max) {
    return fail("larger than " + std::to_string(bytes_max) + " bytes");
  }
  Json j = Json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return fail(std::string("not JSON"));
  if (!j.is_object()) return fail(std::string("not a JSON object"));
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer()) {
    return fail(std::string("no integer \"version\""));
  }
  if (version->get<int64_t>() != 1) {
    return fail("unsupported version " + std::to_string(version->get<int64_t>()));
  }
  const auto acls = j.find("acls");
  if (acls == j.end() || !acls->is_array()) return fail(std::string("no \"acls\" array"));
  return j;
}

// The string at `key` of object `o`, or an error naming the key.
Result<std::string, std::string> string_at(const Json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_string()) {
    return fail("\"" + std::string(key) + "\" is missing or not a string");
  }
  return it->get<std::string>();
}

std::string at_index(size_t i, const std::string& what) {
  return "acls[" + std::to_string(i) + "]: " + what;
}

// One acls.json entry; validate_acl_binding decides the rest.
Result<AclBinding, std::string> binding_from(const Json& o) {
  if (!o.is_object()) return fail(std::string("not a JSON object"));
  static constexpr const char* kKeys[] = {"resourceType", "name",      "patternType",   "principal",
                                          "host",         "operation", "permissionType"};
  std::string v[std::size(kKeys)];
  for (size_t k = 0; k < std::size(kKeys); ++k) {
    auto s = string_at(o, kKeys[k]);
    if (!s) return fail(s.error());
    v[k] = std::move(*s);
  }
  AclBinding b{resource_type_from_name(v[0]),
               std::move(v[1]),
               pattern_type_from_name(v[2]),
               std::move(v[3]),
               std::move(v[4]),
               acl_operation_from_name(v[5]),
               permission_type_from_name(v[6])};
  auto valid = validate_acl_binding(b);
  if (!valid) return fail(valid.error().message);
  return b;
}

// One entry of a ZooKeeper value.
Result<ZkAclEntry, std::string> entry_from(const Json& o) {
  if (!o.is_object()) return fail(std::string("not a JSON object"));
  auto principal = string_at(o, "principal");
  if (!principal) return fail(principal.error());
  auto permission = string_at(o, "permissionType");
  if (!permission) return fail(permission.error());
  auto operation = string_at(o, "operation");
  if (!operation) return fail(operation.error());
  auto host = string_at(o, "host");
  if (!host) return fail(host.error());
  ZkAclEntry e{std::move(*principal), permission_type_from_name(*permission),
               acl_operation_from_name(*operation), std::move(*host)};
  auto valid = detail::check_entry(e.principal, e.host, e.operation, e.permission);
  if (!valid) return fail(valid.error());
  return e;
}

}  // namespace

// ---- <log.dir>/acls.json ----------------------------------------------------------------

std::string encode_acls(const std::vector<AclBinding>& acls) {
  OrderedJson list = OrderedJson::array();
  for (const AclBinding& b : acls) {
    list.push_back(OrderedJson{{"resourceType", acl_name(b.type)},
                               {"name", b.name},
                               {"patternType", acl_name(b.pattern)},
                               {"principal", b.principal},
                               {"host", b.host},
                               {"operation", acl_name(b.operation)},
                               {"permissionType", acl_name(b.permission)}});
  }
  return dump(OrderedJson{{"version", 1}, {"acls", std::move(list)}}) + "\n";
}

Result<std::vector<AclBinding>, std::string> decode_acls(std::string_view text) {
  auto j = parse_versioned(text, kAclsTextBytesMax);
  if (!j) return fail(j.error());
  const Json& list = (*j)["acls"];
  std::vector<AclBinding> out;
  out.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    auto b = binding_from(list[i]);
    if (!b) return fail(at_index(i, b.error()));
    out.push_back(std::move(*b));
  }
  return out;
}

// ---- the cluster: Kafka's ZooKeeper layout ----------------------------------------------

AclResource resource_of(const AclBinding& b) {
  return {b.type, b.name, b.pattern};
}

ZkAclEntry entry_of(const AclBinding& b) {
  return {b.principal, b.permission, b.operation, b.host};
}

AclBinding binding_of(const AclResource& r, const ZkAclEntry& e) {
  return {r.type, r.name, r.pattern, e.principal, e.host, e.operation, e.permission};
}

std::string zk_acl_path(const AclResource& r) {
  assert(r.pattern == PatternType::kLiteral || r.pattern == PatternType::kPrefixed);
  assert(r.type != ResourceType::kUnknown && r.type != ResourceType::kAny);
  std::string path(r.pattern == PatternType::kLiteral ? kZkLiteralAclPrefix : kZkPrefixedAclPrefix);
  path.append(acl_pascal_name(r.type)).append("/").append(r.name);
  return path;
}

std::optional<AclResource> parse_zk_acl_path(std::string_view path) {
  AclResource r;
  if (path.starts_with(kZkLiteralAclPrefix)) {
    r.pattern = PatternType::kLiteral;
    path.remove_prefix(kZkLiteralAclPrefix.size());
  } else if (path.starts_with(kZkPrefixedAclPrefix)) {
    r.pattern = PatternType::kPrefixed;
    path.remove_prefix(kZkPrefixedAclPrefix.size());
  } else {
    return std::nullopt;
  }
  const size_t slash = path.find('/');
  if (slash == std::string_view::npos || slash + 1 == path.size()) return std::nullopt;
  r.type = resource_type_from_name(path.substr(0, slash));
  if (r.type == ResourceType::kUnknown || r.type == ResourceType::kAny) return std::nullopt;
  r.name = std::string(path.substr(slash + 1));
  return r;
}

std::string encode_zk_acls(const std::vector<ZkAclEntry>& entries) {
  OrderedJson list = OrderedJson::array();
  for (const ZkAclEntry& e : entries) {
    list.push_back(OrderedJson{{"principal", e.principal},
                               {"permissionType", acl_pascal_name(e.permission)},
                               {"operation", acl_pascal_name(e.operation)},
                               {"host", e.host}});
  }
  return dump(OrderedJson{{"version", 1}, {"acls", std::move(list)}});
}

Result<std::vector<ZkAclEntry>, std::string> decode_zk_acls(std::string_view text) {
  if (text.empty()) return std::vector<ZkAclEntry>{};  // Kafka: no bytes, no ACLs
  auto j = parse_versioned(text, kZkAclsTextBytesMax);
  if (!j) return fail(j.error());
  const Json& list = (*j)["acls"];
  std::vector<ZkAclEntry> out;
  out.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    auto e = entry_from(list[i]);
    if (!e) return fail(at_index(i, e.error()));
    out.push_back(std::move(*e));
  }
  return out;
}

}  // namespace strata::security

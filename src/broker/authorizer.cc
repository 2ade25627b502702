#include "broker/authorizer.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cluster/etcd_client.h"
#include "cluster/keys.h"
#include "common/kafka_errors.h"
#include "common/log_limit.h"
#include "storage/checkpoint.h"

namespace strata::broker {
namespace {

using security::AclBinding;
using security::AclSet;

constexpr const char* kFileName = "acls.json";

bool known_authorizer(const std::string& name) {
  return name == "kafka.security.authorizer.AclAuthorizer" ||
         name == "org.apache.kafka.metadata.authorizer.StandardAuthorizer" ||
         name == "kafka.security.auth.SimpleAclAuthorizer";
}

// The ACLs of the cluster view's keys: every resource key's entries.
AclSet acls_of(const std::map<std::string, std::string>& keys) {
  std::vector<AclBinding> all;
  for (const auto& [key, value] : keys) {
    auto resource = security::parse_zk_acl_path(key);
    if (!resource) continue;
    auto entries = security::decode_zk_acls(value);
    if (!entries) {
      static LogLimit bad("unreadable ACL key");
      bad.warn("ACLs at {} ignored: {}", key, entries.error());
      continue;
    }
    for (const auto& e : *entries) all.push_back(security::binding_of(*resource, e));
  }
  return AclSet(std::move(all));
}

}  // namespace

std::string_view client_host(std::string_view client_address) {
  const auto colon = client_address.rfind(':');
  return colon == std::string_view::npos ? client_address : client_address.substr(0, colon);
}

Result<std::unique_ptr<Authorizer>, std::string> Authorizer::create(const BrokerConfig& config) {
  std::unique_ptr<Authorizer> a(new Authorizer());
  const auto& settings = config.security.settings;
  auto get = [&settings](const char* key) -> std::string {
    auto it = settings.find(key);
    return it == settings.end() ? "" : it->second;
  };
  const std::string cls = get("authorizer.class.name");
  if (cls.empty()) return a;
  if (!known_authorizer(cls)) {
    return fail("authorizer.class.name: " + cls +
                " is not known (kafka.security.authorizer.AclAuthorizer or "
                "org.apache.kafka.metadata.authorizer.StandardAuthorizer select Strata's)");
  }
  a->enabled_ = true;
  auto supers = security::parse_super_users(get("super.users"));
  if (!supers) return fail("super.users: " + supers.error());
  a->config_.super_users = std::move(*supers);
  const std::string everyone = get("allow.everyone.if.no.acl.found");
  if (!everyone.empty() && everyone != "true" && everyone != "false") {
    return fail("allow.everyone.if.no.acl.found: expected true or false: " + everyone);
  }
  a->config_.allow_everyone_if_no_acl_found = everyone == "true";
  return a;
}

Result<void, std::string> Authorizer::use_file(const std::string& log_dir) {
  file_ = (std::filesystem::path(log_dir) / kFileName).string();
  std::ifstream in(file_);
  if (!in) return {};  // no ACLs yet
  std::stringstream text;
  text << in.rdbuf();
  auto acls = security::decode_acls(text.str());
  if (!acls) return fail(file_ + ": " + acls.error());
  std::lock_guard lock(mu_);
  acls_ = AclSet(std::move(*acls));
  return {};
}

void Authorizer::use_etcd(cluster::EtcdClient& etcd, const cluster::Keys& keys) {
  etcd_ = &etcd;
  keys_ = &keys;
}

void Authorizer::on_view(const std::map<std::string, std::string>& acl_keys) {
  if (acl_keys == view_keys_) return;  // most views change other keys
  view_keys_ = acl_keys;
  AclSet next = acls_of(acl_keys);
  std::lock_guard lock(mu_);
  acls_ = std::move(next);
}

security::AclSet Authorizer::snapshot() const {
  std::lock_guard lock(mu_);
  return acls_;
}

bool Authorizer::allowed(std::string_view principal, std::string_view host, security::AclOperation op,
                         security::ResourceType type, std::string_view name) const {
  if (!enabled_) return true;
  const AclSet acls = snapshot();
  const auto d = security::authorize(acls, config_, {principal, host, op, type, name});
  if (!d.allowed) {
    static LogLimit denied("authorizer: denied");
    denied.warn("Principal = {} is Denied operation = {} from host = {} on resource = {}:LITERAL:{} ({})",
                principal, security::acl_name(op), host, security::acl_name(type), name,
                security::to_string(d));
  }
  return d.allowed;
}

int32_t Authorizer::authorized_operations(std::string_view principal, std::string_view host,
                                          security::ResourceType type, std::string_view name) const {
  const auto supported = security::supported_operations(type);
  if (!enabled_) return security::operations_bits(supported);
  const AclSet acls = snapshot();
  std::vector<security::AclOperation> allowed_ops;
  for (security::AclOperation op : supported) {
    if (security::authorize(acls, config_, {principal, host, op, type, name}).allowed) allowed_ops.push_back(op);
  }
  return security::operations_bits(allowed_ops);
}

std::vector<std::optional<security::AclError>> Authorizer::create(const std::vector<AclBinding>& bindings) {
  std::vector<std::optional<security::AclError>> out(bindings.size());
  std::vector<AclBinding> valid;
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (auto v = security::validate_acl_binding(bindings[i]); !v) {
      out[i] = v.error();
    } else {
      valid.push_back(bindings[i]);
    }
  }
  if (auto w = update([&valid](const AclSet& before) { return before.with(valid); }); !w) {
    for (auto& o : out) {
      if (!o) o = security::AclError{kafka_error::kUnknownServerError, w.error()};
    }
  }
  return out;
}

std::vector<Authorizer::Removed> Authorizer::remove(const std::vector<security::AclFilter>& filters) {
  std::vector<Removed> out(filters.size());
  for (size_t i = 0; i < filters.size(); ++i) {
    if (auto v = security::validate_acl_filter(filters[i]); !v) out[i].error = v.error();
  }
  auto w = update([&filters, &out](const AclSet& before) {
    std::vector<AclBinding> gone;
    for (size_t i = 0; i < filters.size(); ++i) {
      if (out[i].error) continue;
      out[i].bindings = before.matching(filters[i]);
      gone.insert(gone.end(), out[i].bindings.begin(), out[i].bindings.end());
    }
    return before.without(gone);
  });
  if (!w) {
    for (Removed& r : out) {
      if (!r.error) r = Removed{{}, security::AclError{kafka_error::kUnknownServerError, w.error()}};
    }
  }
  return out;
}

Result<void, std::string> Authorizer::update(const std::function<AclSet(const AclSet&)>& edit) {
  std::lock_guard change(change_mu_);
  if (etcd_ != nullptr) return update_etcd(edit);
  if (file_.empty()) return fail(std::string("no ACL store"));
  const AclSet next = edit(snapshot());
  if (auto w = storage::atomic_write_file(file_, security::encode_acls(next.bindings())); !w) {
    return fail(file_ + ": " + w.error().message());
  }
  std::lock_guard lock(mu_);
  acls_ = next;
  return {};
}

// Read, edit, and write back every resource key whose entries changed (deleted when it
// has none), on condition that none of them changed in etcd since the read: another
// broker's concurrent change makes the transaction fail, and the edit is made again on
// what etcd then holds. Bounded: a key rewritten this often is a fight, reported.
Result<void, std::string> Authorizer::update_etcd(const std::function<AclSet(const AclSet&)>& edit) {
  constexpr int kAttempts = 8;
  const std::string root = keys_->root();
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::map<std::string, std::string> values;      // below the root, as the view has them
    std::map<std::string, int64_t> revisions;       // full key -> mod revision
    for (const char* prefix : {"/kafka-acl/", "/kafka-acl-extended/"}) {
      const std::string from = root + prefix;
      auto got = etcd_->range(from, cluster::prefix_end(from));
      if (!got) return fail("etcd: " + got.error().message);
      for (const auto& kv : got->kvs) {
        values[kv.key.substr(root.size())] = kv.value;
        revisions[kv.key] = kv.mod_revision;
      }
    }
    const AclSet before = acls_of(values);
    const AclSet next = edit(before);
    std::map<security::AclResource, std::vector<security::ZkAclEntry>> old_by, new_by;
    for (const auto& b : before.bindings()) old_by[security::resource_of(b)].push_back(security::entry_of(b));
    for (const auto& b : next.bindings()) new_by[security::resource_of(b)].push_back(security::entry_of(b));
    std::set<security::AclResource> touched;
    for (const auto& [r, e] : old_by) {
      if (new_by[r] != e) touched.insert(r);
    }
    for (const auto& [r, e] : new_by) {
      if (!e.empty() && old_by[r] != e) touched.insert(r);
    }
    cluster::TxnRequest t;
    for (const auto& r : touched) {
      const std::string key = root + security::zk_acl_path(r);
      const auto rev = revisions.find(key);
      t.compare.push_back({key, rev == revisions.end() ? cluster::Compare::Target::kCreate
                                                        : cluster::Compare::Target::kMod,
                           cluster::Compare::Result::kEqual, rev == revisions.end() ? 0 : rev->second, ""});
      const auto& entries = new_by[r];
      if (entries.empty()) {
        t.success.push_back({cluster::Op::Kind::kDelete, key, "", "", 0});
      } else {
        t.success.push_back({cluster::Op::Kind::kPut, key, "", security::encode_zk_acls(entries), 0});
      }
    }
    if (t.success.empty()) return {};
    auto r = etcd_->txn(t);
    if (!r) return fail("etcd: " + r.error().message);
    if (r->succeeded) {
      std::lock_guard lock(mu_);
      acls_ = next;  // the watch brings the same soon; this broker sees its change at once
      return {};
    }
  }
  return fail(std::string("the ACLs kept changing under concurrent updates; try again"));
}

}  // namespace strata::broker

// The broker's authorizer (issue 17): Kafka's ACL semantics (security/acl.h) over the
// ACLs of the cluster, checked when `authorizer.class.name` names one of Kafka's
// authorizers (kafka.security.authorizer.AclAuthorizer,
// org.apache.kafka.metadata.authorizer.StandardAuthorizer, or the old
// kafka.security.auth.SimpleAclAuthorizer: all select this one), with `super.users` and
// `allow.everyone.if.no.acl.found`. Unset: every request is allowed and the ACL APIs
// answer SECURITY_DISABLED, as Kafka does.
//
// Where the ACLs live (docs/formats/acls.md): on a single node `<log.dir>/acls.json`,
// rewritten whole on a change; in a cluster one etcd key per resource pattern (Kafka's
// ZooKeeper layout), written by whichever broker takes the CreateAcls/DeleteAcls and
// seen by every broker through its cluster view.
//
// Threads: decisions from any thread (a snapshot under a mutex, copied); changes on the
// blocking pool (they write a file or etcd), one at a time.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/config.h"
#include "common/result.h"
#include "security/acl.h"

namespace strata::cluster {
class EtcdClient;
class Keys;
}  // namespace strata::cluster

namespace strata::broker {

class Authorizer {
 public:
  // Fails on an authorizer class Strata does not know or a bad super.users.
  static Result<std::unique_ptr<Authorizer>, std::string> create(const BrokerConfig& config);

  bool enabled() const { return enabled_; }
  // Where ACLs are kept. Single node: reads the file (fails if it does not parse).
  Result<void, std::string> use_file(const std::string& log_dir);
  void use_etcd(cluster::EtcdClient& etcd, const cluster::Keys& keys);
  // Cluster: the ACL keys of a new view (key below the root -> value).
  void on_view(const std::map<std::string, std::string>& acl_keys);

  // Whether `principal` at `host` may do `op` on the resource. Always true when
  // disabled. A denial is logged (rate-limited), as Kafka's authorizer logger does.
  bool allowed(std::string_view principal, std::string_view host, security::AclOperation op,
               security::ResourceType type, std::string_view name) const;

  // Kafka's authorized-operations bit field of the resource for `principal` at `host`:
  // the operations of security::supported_operations(type) it is allowed (all of them
  // when disabled). Denials are not logged: this is a question, not a request.
  int32_t authorized_operations(std::string_view principal, std::string_view host, security::ResourceType type,
                                std::string_view name) const;

  security::AclSet snapshot() const;
  // CreateAcls: each binding's error (nullopt: created or already there). Blocking.
  std::vector<std::optional<security::AclError>> create(const std::vector<security::AclBinding>& bindings);
  // DeleteAcls: what each filter removed, or its error. Blocking.
  struct Removed {
    std::vector<security::AclBinding> bindings;
    std::optional<security::AclError> error;
  };
  std::vector<Removed> remove(const std::vector<security::AclFilter>& filters);

 private:
  Authorizer() = default;
  // Applies `edit` (current ACLs -> new ACLs) where the ACLs are kept, one change at a
  // time in this broker; in etcd a compare-and-swap against other brokers' changes.
  // `edit` may run more than once.
  Result<void, std::string> update(const std::function<security::AclSet(const security::AclSet&)>& edit);
  Result<void, std::string> update_etcd(const std::function<security::AclSet(const security::AclSet&)>& edit);

  bool enabled_ = false;
  security::AuthorizerConfig config_;
  mutable std::mutex mu_;
  security::AclSet acls_;  // guarded by mu_
  std::mutex change_mu_;   // one change at a time
  std::string file_;       // single node
  cluster::EtcdClient* etcd_ = nullptr;
  const cluster::Keys* keys_ = nullptr;
  std::map<std::string, std::string> view_keys_;  // the etcd watch thread's
};

// The client's address of a request ("ip" of "ip:port").
std::string_view client_host(std::string_view client_address);

}  // namespace strata::broker

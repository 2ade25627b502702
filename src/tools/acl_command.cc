#include "tools/acl_command.h"

#include <CLI/CLI.hpp>

#include <map>
#include <ostream>
#include <set>

#include "protocol/apis/create_acls.h"
#include "protocol/apis/delete_acls.h"
#include "protocol/apis/describe_acls.h"
#include "security/acl.h"
#include "tools/cli.h"
#include "tools/cluster.h"

namespace strata::tools {

namespace {

using security::AclBinding;
using security::AclOperation;
using security::PatternType;
using security::PermissionType;
using security::ResourceType;

constexpr const char* kClientId = "strata-acl";

struct Resource {
  ResourceType type;
  std::string name;
};

// Kafka's ResourcePattern text.
std::string pattern_text(ResourceType t, const std::string& name, PatternType p) {
  return "ResourcePattern(resourceType=" + std::string(security::acl_name(t)) + ", name=" + name +
         ", patternType=" + std::string(security::acl_name(p)) + ")";
}

std::string entry_text(const std::string& principal, const std::string& host, AclOperation op, PermissionType perm) {
  return "(principal=" + principal + ", host=" + host + ", operation=" + std::string(security::acl_name(op)) +
         ", permissionType=" + std::string(security::acl_name(perm)) + ")";
}

std::vector<Resource> resources_of(const AclArgs& a) {
  std::vector<Resource> out;
  for (const auto& t : a.topics) out.push_back({ResourceType::kTopic, t});
  for (const auto& g : a.groups) out.push_back({ResourceType::kGroup, g});
  for (const auto& t : a.transactional_ids) out.push_back({ResourceType::kTransactionalId, t});
  if (a.cluster) out.push_back({ResourceType::kCluster, std::string(security::kClusterResourceName)});
  return out;
}

// The operations for each resource: --operation, or what --producer/--consumer imply.
Result<std::map<ResourceType, std::set<AclOperation>>, CommandError> operations_of(const AclArgs& a) {
  std::map<ResourceType, std::set<AclOperation>> out;
  if (a.producer) {
    out[ResourceType::kTopic] = {AclOperation::kWrite, AclOperation::kDescribe, AclOperation::kCreate};
    out[ResourceType::kTransactionalId] = {AclOperation::kWrite, AclOperation::kDescribe};
  }
  if (a.consumer) {
    out[ResourceType::kTopic].insert({AclOperation::kRead, AclOperation::kDescribe});
    out[ResourceType::kGroup] = {AclOperation::kRead};
  }
  if (a.producer || a.consumer) return out;
  std::set<AclOperation> ops;
  for (const std::string& name : a.operations) {
    const AclOperation op = security::acl_operation_from_name(name);
    if (op == AclOperation::kUnknown || op == AclOperation::kAny) {
      return fail(CommandError{"unknown --operation " + name});
    }
    ops.insert(op);
  }
  if (ops.empty()) ops.insert(AclOperation::kAll);
  for (ResourceType t : {ResourceType::kTopic, ResourceType::kGroup, ResourceType::kTransactionalId,
                         ResourceType::kCluster}) {
    out[t] = ops;
  }
  return out;
}

std::vector<AclBinding> bindings_of(const AclArgs& a, PatternType pattern,
                                    const std::map<ResourceType, std::set<AclOperation>>& ops) {
  std::vector<AclBinding> out;
  auto hosts = [](const std::vector<std::string>& h) { return h.empty() ? std::vector<std::string>{"*"} : h; };
  for (const Resource& r : resources_of(a)) {
    auto it = ops.find(r.type);
    if (it == ops.end()) continue;
    for (AclOperation op : it->second) {
      for (const auto& p : a.allow_principals) {
        for (const auto& h : hosts(a.allow_hosts)) out.push_back({r.type, r.name, pattern, p, h, op, PermissionType::kAllow});
      }
      for (const auto& p : a.deny_principals) {
        for (const auto& h : hosts(a.deny_hosts)) out.push_back({r.type, r.name, pattern, p, h, op, PermissionType::kDeny});
      }
    }
  }
  return out;
}

Result<std::vector<AclBinding>, CommandError> describe(KafkaClient& client, protocol::DescribeAclsRequest q) {
  auto r = client.call<protocol::DescribeAclsResponse>(q);
  if (!r) return fail(client_error(r.error()));
  if (r->error_code != 0) return fail(kafka_error(r->error_code, r->error_message));
  std::vector<AclBinding> out;
  for (const auto& res : r->resources) {
    for (const auto& acl : res.acls) {
      out.push_back({security::resource_type_from_code(res.resource_type), res.resource_name,
                     security::pattern_type_from_code(res.pattern_type), acl.principal, acl.host,
                     security::acl_operation_from_code(acl.operation),
                     security::permission_type_from_code(acl.permission_type)});
    }
  }
  return out;
}

protocol::DescribeAclsRequest filter_request(ResourceType type, std::optional<std::string> name, PatternType pattern,
                                             std::optional<std::string> principal) {
  protocol::DescribeAclsRequest q;
  q.resource_type_filter = int8_t(type);
  q.resource_name_filter = std::move(name);
  q.pattern_type_filter = int8_t(pattern);
  q.principal_filter = std::move(principal);
  q.host_filter = std::nullopt;
  q.operation = int8_t(AclOperation::kAny);
  q.permission_type = int8_t(PermissionType::kAny);
  return q;
}

// "Current ACLs for resource `...`:" blocks, one per resource, as kafka-acls.sh prints.
void print_current(const std::vector<AclBinding>& acls, std::ostream& out) {
  std::map<std::tuple<ResourceType, std::string, PatternType>, std::vector<const AclBinding*>> by;
  for (const auto& b : acls) by[{b.type, b.name, b.pattern}].push_back(&b);
  for (const auto& [k, list] : by) {
    out << "Current ACLs for resource `" << pattern_text(std::get<0>(k), std::get<1>(k), std::get<2>(k)) << "`: \n";
    for (const AclBinding* b : list) out << " \t" << entry_text(b->principal, b->host, b->operation, b->permission) << " \n";
    out << "\n";
  }
}

Result<int, CommandError> list(KafkaClient& client, const AclArgs& a, PatternType pattern, std::ostream& out) {
  std::vector<AclBinding> all;
  std::vector<std::optional<std::string>> principals(a.principals.begin(), a.principals.end());
  if (principals.empty()) principals.push_back(std::nullopt);
  auto resources = resources_of(a);
  const bool any_resource = resources.empty();
  if (any_resource) resources.push_back({ResourceType::kAny, ""});
  for (const Resource& r : resources) {
    for (const auto& p : principals) {
      auto got = describe(client, filter_request(r.type, any_resource ? std::nullopt : std::optional(r.name),
                                                 any_resource ? PatternType::kAny : pattern, p));
      if (!got) return fail(got.error());
      all.insert(all.end(), got->begin(), got->end());
    }
  }
  print_current(all, out);
  return 0;
}

Result<int, CommandError> add(KafkaClient& client, const AclArgs& a, PatternType pattern, std::ostream& out) {
  if (pattern != PatternType::kLiteral && pattern != PatternType::kPrefixed) {
    return fail(CommandError{"A '--resource-pattern-type' value of 'literal' or 'prefixed' is required to add ACLs"});
  }
  auto ops = operations_of(a);
  if (!ops) return fail(ops.error());
  auto bindings = bindings_of(a, pattern, *ops);
  if (bindings.empty()) return fail(CommandError{"nothing to add: name a principal and a resource"});
  protocol::CreateAclsRequest q;
  for (const auto& b : bindings) {
    out << "Adding ACLs for resource `" << pattern_text(b.type, b.name, b.pattern) << "`: \n \t"
        << entry_text(b.principal, b.host, b.operation, b.permission) << " \n\n";
    q.creations.push_back({int8_t(b.type), b.name, int8_t(b.pattern), b.principal, b.host, int8_t(b.operation),
                           int8_t(b.permission)});
  }
  auto r = client.call<protocol::CreateAclsResponse>(q);
  if (!r) return fail(client_error(r.error()));
  for (const auto& res : r->results) {
    if (res.error_code != 0) return fail(kafka_error(res.error_code, res.error_message));
  }
  return list(client, a, pattern, out);
}

Result<int, CommandError> remove(KafkaClient& client, const AclArgs& a, PatternType pattern, std::ostream& out) {
  auto ops = operations_of(a);
  if (!ops) return fail(ops.error());
  protocol::DeleteAclsRequest q;
  const bool whole = a.allow_principals.empty() && a.deny_principals.empty() && a.operations.empty() &&
                     !a.producer && !a.consumer;
  if (whole) {  // every ACL of the resources
    for (const Resource& r : resources_of(a)) {
      auto f = filter_request(r.type, r.name, pattern, std::nullopt);
      q.filters.push_back({f.resource_type_filter, f.resource_name_filter, f.pattern_type_filter, std::nullopt,
                           std::nullopt, f.operation, f.permission_type});
    }
  } else {
    for (const auto& b : bindings_of(a, pattern, *ops)) {
      q.filters.push_back({int8_t(b.type), b.name, int8_t(pattern), b.principal, b.host, int8_t(b.operation),
                           int8_t(b.permission)});
    }
  }
  if (q.filters.empty()) return fail(CommandError{"nothing to remove: name a resource"});
  auto r = client.call<protocol::DeleteAclsResponse>(q);
  if (!r) return fail(client_error(r.error()));
  for (const auto& fr : r->filter_results) {
    if (fr.error_code != 0) return fail(kafka_error(fr.error_code, fr.error_message));
    for (const auto& m : fr.matching_acls) {
      out << "Removed ACL for resource `"
          << pattern_text(security::resource_type_from_code(m.resource_type), m.resource_name,
                          security::pattern_type_from_code(m.pattern_type))
          << "`: \n \t"
          << entry_text(m.principal, m.host, security::acl_operation_from_code(m.operation),
                        security::permission_type_from_code(m.permission_type))
          << " \n\n";
    }
  }
  return list(client, a, pattern, out);
}

}  // namespace

void add_acl_command(CLI::App& app, AclArgs& args) {
  CLI::App* cmd = app.add_subcommand("acl", "Add, remove or list ACLs, as kafka-acls.sh");
  add_connection_options(*cmd, args);
  auto* add_flag = cmd->add_flag("--add", args.add, "Add ACLs");
  auto* remove_flag = cmd->add_flag("--remove", args.remove, "Remove ACLs");
  auto* list_flag = cmd->add_flag("--list", args.list, "List ACLs");
  add_flag->excludes(remove_flag)->excludes(list_flag);
  remove_flag->excludes(list_flag);
  cmd->add_option("--allow-principal", args.allow_principals, "Principal (User:name) the ACLs allow");
  cmd->add_option("--deny-principal", args.deny_principals, "Principal (User:name) the ACLs deny");
  cmd->add_option("--allow-host", args.allow_hosts, "Host of --allow-principal (default *)");
  cmd->add_option("--deny-host", args.deny_hosts, "Host of --deny-principal (default *)");
  cmd->add_option("--operation", args.operations, "Read, Write, Create, Delete, Alter, Describe, ClusterAction, "
                                                  "DescribeConfigs, AlterConfigs, IdempotentWrite, All");
  cmd->add_option("--topic", args.topics, "Topic (repeatable)");
  cmd->add_option("--group", args.groups, "Consumer group (repeatable)");
  cmd->add_option("--transactional-id", args.transactional_ids, "Transactional id (repeatable)");
  cmd->add_flag("--cluster", args.cluster, "The cluster resource");
  cmd->add_flag("--producer", args.producer, "WRITE, DESCRIBE, CREATE on the topics");
  cmd->add_flag("--consumer", args.consumer, "READ, DESCRIBE on the topics, READ on the groups");
  cmd->add_flag("--force", args.force, "Accepted for kafka-acls.sh compatibility (Strata never asks)");
  cmd->add_option("--resource-pattern-type", args.pattern_type, "literal, prefixed, any, match")
      ->check(CLI::IsMember({"literal", "prefixed", "any", "match"}, CLI::ignore_case));
  cmd->add_option("--principal", args.principals, "--list: only these principals' ACLs");
  cmd->add_option("--timeout-ms", args.timeout_ms, "Connect and request timeout")->check(CLI::PositiveNumber);
  cmd->callback([&args] {
    if (!args.add && !args.remove && !args.list) throw CLI::ValidationError("one of --add, --remove or --list is required");
  });
}

int run_acl(const AclArgs& args, std::ostream& out, std::ostream& err) {
  const PatternType pattern = security::pattern_type_from_name(args.pattern_type);
  auto client = connect_bootstrap(args.bootstrap_server, args.timeout_ms, kClientId, args.command_config);
  Result<int, CommandError> r = !client      ? Result<int, CommandError>(fail(client.error()))
                                : args.add   ? add(*client, args, pattern, out)
                                : args.remove ? remove(*client, args, pattern, out)
                                              : list(*client, args, pattern, out);
  out.flush();
  if (r) return *r;
  err << "Error while executing ACL command: " << r.error().message << "\n";
  return 1;
}

}  // namespace strata::tools

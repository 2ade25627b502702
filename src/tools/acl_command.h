// `strata acl`: ACLs as kafka-acls.sh manages them (CreateAcls, DescribeAcls,
// DeleteAcls), with its flags and output:
//
//   strata acl --add --allow-principal User:alice --operation Write --topic a
//   strata acl --add --allow-principal User:alice --consumer --topic a --group g
//   strata acl --add --deny-principal User:bob --operation Read --topic logs- --resource-pattern-type prefixed
//   strata acl --list [--topic a] [--principal User:alice]
//   strata acl --remove --allow-principal User:alice --operation Write --topic a
//
// Resources: --topic, --group, --transactional-id (each repeatable), --cluster.
// --producer gives WRITE, DESCRIBE and CREATE on the topics (and WRITE, DESCRIBE on
// --transactional-id); --consumer READ and DESCRIBE on the topics and READ on --group.
// Hosts default to "*". --resource-pattern-type: literal (default), prefixed; for
// --list and --remove also any and match.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace strata::tools {

struct AclArgs {
  std::string bootstrap_server = "127.0.0.1:9092";
  std::string command_config;  // --command-config: the client security settings file
  bool add = false;
  bool remove = false;
  bool list = false;
  std::vector<std::string> allow_principals;
  std::vector<std::string> deny_principals;
  std::vector<std::string> allow_hosts;
  std::vector<std::string> deny_hosts;
  std::vector<std::string> operations;
  std::vector<std::string> topics;
  std::vector<std::string> groups;
  std::vector<std::string> transactional_ids;
  bool cluster = false;
  bool producer = false;
  bool consumer = false;
  bool force = false;
  std::string pattern_type = "literal";
  std::vector<std::string> principals;  // --list filter
  int timeout_ms = 30000;
};

void add_acl_command(CLI::App& app, AclArgs& args);
int run_acl(const AclArgs& args, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

// `strata user`: SCRAM credentials of users, as kafka-configs.sh --entity-type users
// manages them (AlterUserScramCredentials and DescribeUserScramCredentials, KIP-554).
//
//   strata user --alter --add-config 'SCRAM-SHA-512=[iterations=8192,password=alice-secret]'
//               --entity-name alice [--bootstrap-server ...]
//   strata user --alter --delete-config SCRAM-SHA-512 --entity-name alice
//   strata user --describe [--entity-name alice]
//
// prints, as Kafka does,
//   Completed updating config for user alice.
//   SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-512=iterations=8192
// The password never leaves this process: the salted password is computed here (Hi,
// RFC 5802) with a random salt, and only it and the salt are sent. Iterations default
// to 4096, Kafka's minimum. --entity-type users is accepted (and is the only type).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace strata::tools {

struct UserArgs {
  std::string bootstrap_server = "127.0.0.1:9092";
  std::string command_config;  // --command-config: the client security settings file
  bool alter = false;
  bool describe = false;
  std::string entity_type = "users";
  std::vector<std::string> entity_names;
  std::string add_config;
  std::vector<std::string> delete_config;
  int timeout_ms = 30000;
};

void add_user_command(CLI::App& app, UserArgs& args);
int run_user(const UserArgs& args, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

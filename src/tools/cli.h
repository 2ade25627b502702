// Command-line pieces the client tools (strata topic, group, txn) share, on CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace strata::tools {

// --bootstrap-server and --command-config, as kafka-topics.sh / kafka-consumer-groups.sh
// take them (the file: a client's security.protocol, sasl.* and ssl.* properties).
template <class Args>
void add_connection_options(CLI::App& cmd, Args& args) {
  cmd.add_option("--bootstrap-server", args.bootstrap_server,
                 "HOST:PORT[,HOST:PORT...] of a broker (default 127.0.0.1:9092)");
  cmd.add_option("--command-config", args.command_config,
                 "Properties file with the client's security settings (security.protocol, "
                 "sasl.mechanism, sasl.jaas.config, ssl.truststore.location, ...)")
      ->check(CLI::ExistingFile);
}

// A subcommand of a client tool: --bootstrap-server and --timeout-ms into `args`, and
// args.action = action when it is the one chosen.
template <class Args, class Action>
CLI::App* add_client_action(CLI::App& parent, Args& args, Action action, const char* name,
                            const char* description) {
  CLI::App* cmd = parent.add_subcommand(name, description);
  add_connection_options(*cmd, args);
  cmd->add_option("--timeout-ms", args.timeout_ms, "Connect and request timeout")
      ->check(CLI::PositiveNumber);
  cmd->callback([&args, action] { args.action = action; });
  return cmd;
}

}  // namespace strata::tools

#include "tools/broker_command.h"

#include <CLI/CLI.hpp>
#include <signal.h>
#include <spdlog/spdlog.h>

#include "broker/broker.h"

namespace strata::tools {

void add_broker_command(CLI::App& app, BrokerArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "broker", "Run the broker (default: one node on 127.0.0.1:9092, data in ./strata-data)");
  cmd->add_option("--config", args.config_file, "A server.properties file (Kafka's names)");
  cmd->add_option("--override", args.overrides, "key=value, applied after the file")
      ->allow_extra_args(false);
}

int run_broker(const BrokerArgs& args) {
  broker::BrokerConfig config;
  std::map<std::string, std::string> props;
  if (!args.config_file.empty()) {
    auto file = broker::read_properties_file(args.config_file);
    if (!file) {
      spdlog::error("{}", file.error());
      return 2;
    }
    props = *file;
  }
  for (const std::string& o : args.overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos) {
      spdlog::error("--override wants key=value: {}", o);
      return 2;
    }
    props[o.substr(0, eq)] = o.substr(eq + 1);
  }
  if (auto r = config.apply(props); !r) {
    spdlog::error("configuration: {}", r.error());
    return 2;
  }
  // Signals are taken by this thread alone (sigwait), before any other thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  broker::Broker broker(config);
  if (auto r = broker.start(); !r) {
    spdlog::error("cannot start: {}", r.error());
    return 1;
  }
  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("signal {}: shutting down", sig);
  broker.stop();
  return 0;
}

}  // namespace strata::tools

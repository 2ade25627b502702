#include "tools/broker_command.h"

#include <CLI/CLI.hpp>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "broker/broker.h"
#include "common/properties.h"
#include "console/console.h"
#include "storage/errors.h"

namespace strata::tools {

void add_broker_command(CLI::App& app, BrokerArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "broker", "Run the broker (default: one node on 127.0.0.1:9092, data in ./strata-data)");
  cmd->add_option("--config", args.config_file, "A server.properties file (Kafka's names)");
  cmd->add_option("--override", args.overrides, "key=value, applied after the file")
      ->allow_extra_args(false);
}

namespace {

// A failure of the disk under the log dir: Kafka takes the dir offline and, its last one
// gone, halts; Strata has one log dir, so it halts. Other in-sync replicas take over its
// leaderships when its etcd session expires; an acknowledged record was durable first.
[[noreturn]] void halt_on_disk_failure(const storage::StorageError& e) {
  spdlog::critical("the log dir's disk failed ({}): halting, as Kafka does when its last log dir fails",
                   e.message());
  spdlog::default_logger()->flush();
  std::_Exit(1);
}

}  // namespace

int run_broker(const BrokerArgs& args) {
  broker::BrokerConfig config;
  std::map<std::string, std::string> props;
  if (!args.config_file.empty()) {
    auto file = read_properties_file(args.config_file);
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

  storage::set_disk_failure_handler(halt_on_disk_failure);
  broker::Broker broker(config);
  if (config.console_enabled) {
    const console::ConsoleSettings settings{config.console_read_only, config.metrics_host};
    const int connect_ms = config.socket_connection_setup_timeout_ms;
    const int io_ms = std::min(config.request_timeout_ms, 10000);  // a page waits no longer
    broker.set_admin_routes([settings, connect_ms, io_ms](httplib::Server& server, const broker::AdminTarget& target) {
      client::ConnectOptions options;
      options.connect_timeout_ms = connect_ms;
      options.io_timeout_ms = io_ms;
      options.client_id = "strata-console";
      options.security = target.security;
      console::install_console(server, {target.bootstrap, options}, settings);
    });
  }
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

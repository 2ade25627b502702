// `strata broker [--config FILE] [--override key=value]...`: runs the broker until
// SIGTERM or SIGINT, then shuts down cleanly.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace strata::tools {

struct BrokerArgs {
  std::string config_file;
  std::vector<std::string> overrides;
};

void add_broker_command(CLI::App& app, BrokerArgs& args);
int run_broker(const BrokerArgs& args);

}  // namespace strata::tools

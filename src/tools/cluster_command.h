// `strata cluster`: the brokers of any Kafka-protocol cluster, from one Metadata answer.
//
//   strata cluster --describe [--bootstrap-server HOST:PORT,...]
//
// prints the cluster id and controller, then one line per live broker:
//   ClusterId: ID<TAB>Controller: N<TAB>Brokers: 3
//   <TAB>Broker: 1<TAB>Host: 127.0.0.1:9092<TAB>Rack: a<TAB>Partitions: 8<TAB>Leaders: 4
// (Partitions: replicas the broker holds; Leaders: partitions it leads; Rack "none" when
// unset), and a last line Offline: K when K partitions have no leader. Errors go to
// stderr; the exit code is then 1.
#pragma once

#include <iosfwd>
#include <string>

namespace CLI {
class App;
}

namespace strata::tools {

struct ClusterArgs {
  std::string bootstrap_server = "127.0.0.1:9092";
  std::string command_config;  // --command-config: the client security settings file
  bool describe = false;
  int timeout_ms = 10000;
};

void add_cluster_command(CLI::App& app, ClusterArgs& args);
int run_cluster(const ClusterArgs& args, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

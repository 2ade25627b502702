#include "tools/cluster_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>
#include <ostream>

#include "tools/cli.h"
#include "tools/cluster.h"

namespace strata::tools {

namespace {

constexpr const char* kClientId = "strata-cluster";

struct Counts {
  int partitions = 0;
  int leaders = 0;
};

Status describe(const ClusterArgs& args, std::ostream& out) {
  auto client = connect_bootstrap(args.bootstrap_server, args.timeout_ms, kClientId, args.command_config);
  if (!client) return fail(client.error());
  auto md = all_topics(*client);
  if (!md) return fail(md.error());
  std::map<int32_t, Counts> counts;
  int offline = 0;
  for (const auto& t : md->topics) {
    for (const auto& p : t.partitions) {
      for (int32_t r : p.replica_nodes) ++counts[r].partitions;
      if (p.leader_id >= 0) {
        ++counts[p.leader_id].leaders;
      } else {
        ++offline;
      }
    }
  }
  out << "ClusterId: " << md->cluster_id.value_or("none") << "\tController: " << md->controller_id
      << "\tBrokers: " << md->brokers.size() << "\n";
  auto brokers = md->brokers;
  std::sort(brokers.begin(), brokers.end(), [](const auto& a, const auto& b) { return a.node_id < b.node_id; });
  for (const auto& b : brokers) {
    const Counts c = counts[b.node_id];
    out << "\tBroker: " << b.node_id << "\tHost: " << b.host << ":" << b.port
        << "\tRack: " << b.rack.value_or("none") << "\tPartitions: " << c.partitions
        << "\tLeaders: " << c.leaders << "\n";
  }
  out << "Offline: " << offline << "\n";
  return {};
}

}  // namespace

void add_cluster_command(CLI::App& app, ClusterArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "cluster", "Describe a Kafka-protocol cluster: its id, controller, brokers, racks, and "
                 "each broker's partition and leader counts");
  add_connection_options(*cmd, args);
  cmd->add_flag("--describe", args.describe, "Describe the cluster")->required();
  cmd->add_option("--timeout-ms", args.timeout_ms, "Connect and request timeout")
      ->check(CLI::PositiveNumber);
}

int run_cluster(const ClusterArgs& args, std::ostream& out, std::ostream& err) {
  const Status r = describe(args, out);
  out.flush();
  if (r) return 0;
  err << "Error while executing cluster command : " << r.error().message << "\n";
  return 1;
}

}  // namespace strata::tools

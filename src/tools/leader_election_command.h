// `strata leader-election`: ElectLeaders against any Kafka-protocol cluster, with the
// flags and output of Kafka's kafka-leader-election.sh.
//
//   strata leader-election --election-type PREFERRED|UNCLEAN
//       (--all-topic-partitions | --topic T [--partition P]) [--bootstrap-server ...]
//
// prints, as Kafka does,
//   Successfully completed leader election (PREFERRED) for partitions t-0, t-1
//   Valid replica already elected for partitions t-2
//   Error completing leader election (PREFERRED) for partition: t-3: NAME: message
// and exits 1 (stderr: "N replica(s) could not be elected") when any partition failed.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace strata::tools {

struct LeaderElectionArgs {
  std::string bootstrap_server = "127.0.0.1:9092";
  std::string command_config;  // --command-config: the client security settings file
  std::string election_type;  // PREFERRED or UNCLEAN
  bool all_topic_partitions = false;
  std::string topic;
  std::optional<int32_t> partition;
  int timeout_ms = 30000;
};

void add_leader_election_command(CLI::App& app, LeaderElectionArgs& args);
int run_leader_election(const LeaderElectionArgs& args, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

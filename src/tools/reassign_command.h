// `strata reassign-partitions`: kafka-reassign-partitions.sh against any Kafka-protocol
// cluster (AlterPartitionReassignments / ListPartitionReassignments, KIP-455).
//
//   --reassignment-json-file F --execute [--throttle B]
//                                          start the moves F names; with B, every broker
//                                          of the moves gets leader. and follower.
//                                          replication.throttled.rate B (dynamic configs)
//   --reassignment-json-file F --verify    each partition's state (completed / in progress);
//                                          once all are completed, every broker's
//                                          throttle rates are removed, as Kafka's
//   --reassignment-json-file F --cancel    cancel F's moves
//   --list                                 the moves in progress
//   --drain-broker N [--execute]           Strata's: a move of every replica on broker N to
//                                          the live broker holding the fewest replicas
//
// F is Kafka's {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[2,3,4]}]}
// (log_dirs ignored). Output lines are Kafka's; --verify exits 0 whether or not moves are
// done (as Kafka's), 1 on errors, which go to stderr.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace strata::tools {

struct ReassignArgs {
  std::string bootstrap_server = "127.0.0.1:9092";
  std::string command_config;  // --command-config: the client security settings file
  std::string json_file;
  bool execute = false, verify = false, cancel = false, list = false;
  std::optional<int32_t> drain_broker;
  int64_t throttle = -1;  // B/s; -1: none
  int timeout_ms = 30000;
};

void add_reassign_command(CLI::App& app, ReassignArgs& args);
int run_reassign(const ReassignArgs& args, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

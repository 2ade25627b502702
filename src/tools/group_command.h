// `strata group`: kafka-consumer-groups.sh against any Kafka-protocol broker, through
// KafkaClient, for classic consumer groups:
//   strata group list [--state [S,...]]
//   strata group describe G... | --all-groups [--state | --members] [--verbose]
//   strata group reset-offsets G... (--topic T[:p,p]... | --all-topics)
//       (--to-earliest | --to-latest | --to-offset N | --to-datetime D | --shift-by N)
//       [--dry-run | --execute]
//   strata group delete G... | --all-groups
// Output follows kafka-consumer-groups.sh column for column (docs in src/tools/README.md);
// errors go to stderr as "Error: <message>" and the exit code is then 1. Rows Kafka
// prints in hash-map order are sorted here by topic and partition.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace strata::tools {

struct GroupArgs {
  enum class Action : uint8_t { kNone, kList, kDescribe, kResetOffsets, kDelete };
  Action action = Action::kNone;
  std::string bootstrap_server = "127.0.0.1:9092";  // comma-separated: tried in order
  std::string command_config;  // --command-config: the client security settings file
  int timeout_ms = 30000;                           // connect, and each request

  std::vector<std::string> groups;  // describe, reset-offsets, delete
  bool all_groups = false;          // describe, delete

  // list: --state alone adds the STATE column; --state S,... also filters by state.
  bool list_state = false;
  std::string list_states;

  // describe: the offsets view unless --state or --members.
  bool state_view = false;
  bool members_view = false;
  // --verbose: --state adds GROUP-EPOCH and TARGET-ASSIGNMENT-EPOCH, --members each
  // member's assignment (and, in a consumer-protocol group, its epoch and target).
  bool verbose = false;

  // reset-offsets: the partitions, then exactly one scenario.
  std::vector<std::string> topics;  // T (all its partitions) or T:p,p
  bool all_topics = false;
  bool to_earliest = false;
  bool to_latest = false;
  std::optional<int64_t> to_offset;
  std::optional<std::string> to_datetime;  // YYYY-MM-DDTHH:mm:SS.sss[Z|+HH|+HHMM|+HH:MM]
  std::optional<int64_t> shift_by;
  bool dry_run = false;  // the default; --execute commits
  bool execute = false;
};

void add_group_command(CLI::App& app, GroupArgs& args);
int run_group(const GroupArgs& args, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

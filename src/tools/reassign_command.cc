#include "tools/reassign_command.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "protocol/apis/alter_partition_reassignments.h"
#include "protocol/apis/incremental_alter_configs.h"
#include "protocol/apis/list_partition_reassignments.h"
#include "tools/cli.h"
#include "tools/cluster.h"

namespace strata::tools {

namespace {

using json = nlohmann::json;
using protocol::AlterPartitionReassignmentsRequest;
using protocol::AlterPartitionReassignmentsResponse;
using protocol::IncrementalAlterConfigsRequest;
using protocol::IncrementalAlterConfigsResponse;
using protocol::ListPartitionReassignmentsRequest;
using protocol::ListPartitionReassignmentsResponse;

constexpr const char* kClientId = "strata-reassign-partitions";
constexpr int8_t kBrokerResource = 4;  // Kafka's ConfigResource.Type BROKER
constexpr int8_t kOpSet = 0;
constexpr int8_t kOpDelete = 1;
constexpr const char* kRates[] = {"leader.replication.throttled.rate", "follower.replication.throttled.rate"};

// Ordered by topic and partition: the file's moves, or a drain's.
using Moves = std::map<PartitionKey, std::vector<int32_t>>;

std::string joined(const std::vector<int32_t>& nodes) {
  std::string s;
  for (int32_t n : nodes) s += (s.empty() ? "" : ",") + std::to_string(n);
  return s;
}

Result<Moves, CommandError> read_moves(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail(CommandError{"cannot read " + path});
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("partitions") || !j["partitions"].is_array()) {
    return fail(CommandError{path + ": not a reassignment (expected {\"version\":1,\"partitions\":[...]})"});
  }
  Moves moves;
  for (const auto& p : j["partitions"]) {
    if (!p.is_object() || !p.contains("topic") || !p["topic"].is_string() || !p.contains("partition") ||
        !p["partition"].is_number_integer() || !p.contains("replicas") || !p["replicas"].is_array()) {
      return fail(CommandError{path + ": each partition needs \"topic\", \"partition\" and \"replicas\""});
    }
    std::vector<int32_t> replicas;
    for (const auto& r : p["replicas"]) {
      if (!r.is_number_integer()) return fail(CommandError{path + ": replicas are broker ids"});
      replicas.push_back(r.get<int32_t>());
    }
    PartitionKey key{p["topic"].get<std::string>(), p["partition"].get<int32_t>()};
    if (!moves.emplace(key, std::move(replicas)).second) {
      return fail(CommandError{path + ": partition " + partition_text(key) + " is named twice"});
    }
  }
  if (moves.empty()) return fail(CommandError{path + ": no partitions"});
  return moves;
}

// Kafka's reassignment JSON of `moves` (one line, as its tool prints it).
std::string moves_json(const Moves& moves) {
  json parts = json::array();
  for (const auto& [key, replicas] : moves) {
    parts.push_back({{"topic", key.first}, {"partition", key.second}, {"replicas", replicas},
                     {"log_dirs", std::vector<std::string>(replicas.size(), "any")}});
  }
  return json{{"version", 1}, {"partitions", parts}}.dump();
}

// The replicas Metadata shows now for each partition of `moves`.
Result<Moves, CommandError> current_of(KafkaClient& client, const Moves& moves) {
  auto md = all_topics(client);
  if (!md) return fail(md.error());
  Moves current;
  for (const auto& t : md->topics) {
    for (const auto& p : t.partitions) {
      PartitionKey key{t.name.value_or(""), p.partition_index};
      if (moves.count(key)) current[key] = p.replica_nodes;
    }
  }
  return current;
}

// One AlterPartitionReassignments for `moves` (nullopt targets: cancel); the partitions
// that failed, as "t-p: NAME: message".
Result<std::vector<std::string>, CommandError> alter(KafkaClient& client, const std::map<PartitionKey,
                                                     std::optional<std::vector<int32_t>>>& moves, int timeout_ms) {
  AlterPartitionReassignmentsRequest req;
  req.timeout_ms = timeout_ms;
  for (const auto& [key, target] : moves) {
    if (req.topics.empty() || req.topics.back().name != key.first) req.topics.push_back({key.first, {}});
    req.topics.back().partitions.push_back({key.second, target});
  }
  auto r = client.call<AlterPartitionReassignmentsResponse>(req);
  if (!r) return fail(client_error(r.error()));
  if (r->error_code != 0) return fail(kafka_error(r->error_code, r->error_message));
  std::vector<std::string> failed;
  for (const auto& t : r->responses) {
    for (const auto& p : t.partitions) {
      if (p.error_code != 0) {
        failed.push_back(partition_text({t.name, p.partition_index}) + ": " +
                         kafka_error(p.error_code, p.error_message).message);
      }
    }
  }
  return failed;
}

Result<ListPartitionReassignmentsResponse, CommandError> list_moving(KafkaClient& client, int timeout_ms) {
  ListPartitionReassignmentsRequest req;
  req.timeout_ms = timeout_ms;
  auto r = client.call<ListPartitionReassignmentsResponse>(req);
  if (!r) return fail(client_error(r.error()));
  if (r->error_code != 0) return fail(kafka_error(r->error_code, r->error_message));
  return std::move(*r);
}

// Every partition with a replica on `node` gets, in its place, the live broker not yet
// among its replicas that holds the fewest replicas (counting the moves made so far).
Result<Moves, CommandError> drain_moves(KafkaClient& client, int32_t node) {
  auto md = all_topics(client);
  if (!md) return fail(md.error());
  std::map<int32_t, int64_t> load;
  for (const auto& b : md->brokers) {
    if (b.node_id != node) load[b.node_id] = 0;
  }
  for (const auto& t : md->topics) {
    for (const auto& p : t.partitions) {
      for (int32_t r : p.replica_nodes) {
        if (load.count(r)) ++load[r];
      }
    }
  }
  Moves moves;
  for (const auto& t : md->topics) {
    for (const auto& p : t.partitions) {
      auto at = std::find(p.replica_nodes.begin(), p.replica_nodes.end(), node);
      if (at == p.replica_nodes.end()) continue;
      int32_t best = -1;
      for (const auto& [b, n] : load) {
        if (std::find(p.replica_nodes.begin(), p.replica_nodes.end(), b) != p.replica_nodes.end()) continue;
        if (best < 0 || n < load[best]) best = b;
      }
      const PartitionKey key{t.name.value_or(""), p.partition_index};
      if (best < 0) {
        return fail(CommandError{"cannot drain broker " + std::to_string(node) + ": " + partition_text(key) +
                                 " has no other live broker to move to"});
      }
      std::vector<int32_t> target = p.replica_nodes;
      target[size_t(at - p.replica_nodes.begin())] = best;
      ++load[best];
      moves[key] = std::move(target);
    }
  }
  return moves;
}

// The throttle rates of each of `brokers` set to `rate` (nullopt: removed), asked of
// that broker itself (a BROKER resource names the broker that answers it).
Result<void, CommandError> set_rates(const protocol::MetadataResponse& md, const std::set<int32_t>& brokers,
                                     std::optional<int64_t> rate, const client::ConnectOptions& how) {
  for (int32_t node : brokers) {
    auto b = std::find_if(md.brokers.begin(), md.brokers.end(), [node](const auto& x) { return x.node_id == node; });
    if (b == md.brokers.end()) return fail(CommandError{"broker " + std::to_string(node) + " is not in the cluster"});
    auto client = KafkaClient::connect({b->host, uint16_t(b->port)}, how);
    if (!client) return fail(client_error(client.error()));
    IncrementalAlterConfigsRequest::Resource resource;
    resource.resource_type = kBrokerResource;
    resource.resource_name = std::to_string(node);
    for (const char* key : kRates) {
      if (rate) {
        resource.configs.push_back({key, kOpSet, std::to_string(*rate)});
      } else {
        resource.configs.push_back({key, kOpDelete, std::nullopt});
      }
    }
    IncrementalAlterConfigsRequest request;
    request.resources.push_back(std::move(resource));
    auto r = client->call<IncrementalAlterConfigsResponse>(request);
    if (!r) return fail(client_error(r.error()));
    for (const auto& res : r->responses) {
      if (res.error_code != 0) return fail(kafka_error(res.error_code, res.error_message));
    }
  }
  return {};
}

std::string joined(const std::set<int32_t>& nodes) {
  return joined(std::vector<int32_t>(nodes.begin(), nodes.end()));
}

Result<int, CommandError> execute(KafkaClient& client, const Moves& moves, const ReassignArgs& args,
                                  std::ostream& out, std::ostream& err) {
  auto current = current_of(client, moves);
  if (!current) return fail(current.error());
  out << "Current partition replica assignment\n\n" << moves_json(*current)
      << "\n\nSave this to use as the --reassignment-json-file option during rollback\n";
  if (args.throttle >= 0) {
    // Kafka's tool throttles every broker of the moves, before and after.
    std::set<int32_t> brokers;
    for (const auto& [key, target] : moves) {
      brokers.insert(target.begin(), target.end());
      const auto& now = (*current)[key];
      brokers.insert(now.begin(), now.end());
    }
    auto md = all_topics(client);
    if (!md) return fail(md.error());
    if (auto r = set_rates(*md, brokers, args.throttle, client.options()); !r) return fail(r.error());
    out << "Warning: You must run --verify periodically, until the reassignment completes, to ensure the "
           "throttle is removed.\nThe inter-broker throttle limit was set to "
        << args.throttle << " B/s\n";
  }
  std::map<PartitionKey, std::optional<std::vector<int32_t>>> targets(moves.begin(), moves.end());
  auto failed = alter(client, targets, args.timeout_ms);
  if (!failed) return fail(failed.error());
  if (!failed->empty()) {
    for (const auto& f : *failed) err << "Error reassigning partition " << f << "\n";
    return 1;
  }
  std::string names;
  for (const auto& [key, r] : moves) names += (names.empty() ? "" : ",") + partition_text(key);
  out << "Successfully started partition reassignments for " << names << "\n";
  return 0;
}

Result<int, CommandError> verify(KafkaClient& client, const Moves& moves, const ReassignArgs& args,
                                 std::ostream& out) {
  auto moving = list_moving(client, args.timeout_ms);
  if (!moving) return fail(moving.error());
  std::map<PartitionKey, bool> in_progress;
  for (const auto& t : moving->topics) {
    for (const auto& p : t.partitions) in_progress[{t.name, p.partition_index}] = true;
  }
  auto current = current_of(client, moves);
  if (!current) return fail(current.error());
  out << "Status of partition reassignment:\n";
  bool done = true;
  for (const auto& [key, target] : moves) {
    if (in_progress.count(key)) {
      done = false;
      out << "Reassignment of partition " << partition_text(key) << " is still in progress.\n";
    } else if ((*current)[key] == target) {
      out << "Reassignment of partition " << partition_text(key) << " is completed.\n";
    } else {
      out << "There is no active reassignment of partition " << partition_text(key) << ", but replica set is "
          << joined((*current)[key]) << " rather than " << joined(target) << ".\n";
    }
  }
  if (!done) return 0;
  // Every move is done: the throttles go, from every broker (as Kafka's clearAllThrottles).
  auto md = all_topics(client);
  if (!md) return fail(md.error());
  std::set<int32_t> brokers;
  for (const auto& b : md->brokers) brokers.insert(b.node_id);
  out << "Clearing broker-level throttles on brokers " << joined(brokers) << "\n";
  if (auto r = set_rates(*md, brokers, std::nullopt, client.options()); !r) return fail(r.error());
  return 0;
}

Result<int, CommandError> cancel(KafkaClient& client, const Moves& moves, const ReassignArgs& args,
                                 std::ostream& out, std::ostream& err) {
  std::map<PartitionKey, std::optional<std::vector<int32_t>>> targets;
  for (const auto& [key, r] : moves) targets[key] = std::nullopt;
  auto failed = alter(client, targets, args.timeout_ms);
  if (!failed) return fail(failed.error());
  std::string names;
  for (const auto& [key, r] : moves) {
    const std::string name = partition_text(key);
    const bool bad = std::any_of(failed->begin(), failed->end(),
                                 [&](const std::string& f) { return f.rfind(name + ":", 0) == 0; });
    if (!bad) names += (names.empty() ? "" : ",") + name;
  }
  if (!names.empty()) out << "Successfully cancelled partition reassignments for: " << names << "\n";
  for (const auto& f : *failed) err << "Error cancelling partition reassignment for " << f << "\n";
  return failed->empty() ? 0 : 1;
}

Result<int, CommandError> list(KafkaClient& client, const ReassignArgs& args, std::ostream& out) {
  auto moving = list_moving(client, args.timeout_ms);
  if (!moving) return fail(moving.error());
  if (moving->topics.empty()) {
    out << "No partition reassignments found.\n";
    return 0;
  }
  out << "Current partition reassignments:\n";
  for (const auto& t : moving->topics) {
    for (const auto& p : t.partitions) {
      out << partition_text({t.name, p.partition_index}) << ": replicas: " << joined(p.replicas)
          << ". adding: " << joined(p.adding_replicas) << ". removing: " << joined(p.removing_replicas) << ".\n";
    }
  }
  return 0;
}

Result<int, CommandError> run(const ReassignArgs& args, std::ostream& out, std::ostream& err) {
  auto client = connect_bootstrap(args.bootstrap_server, args.timeout_ms, kClientId, args.command_config);
  if (!client) return fail(client.error());
  if (args.list) return list(*client, args, out);
  if (args.drain_broker) {
    auto moves = drain_moves(*client, *args.drain_broker);
    if (!moves) return fail(moves.error());
    if (moves->empty()) {
      out << "Broker " << *args.drain_broker << " holds no replicas.\n";
      return 0;
    }
    out << "Proposed partition reassignment configuration\n\n" << moves_json(*moves) << "\n";
    if (!args.execute) return 0;
    out << "\n";
    return execute(*client, *moves, args, out, err);
  }
  auto moves = read_moves(args.json_file);
  if (!moves) return fail(moves.error());
  if (args.execute) return execute(*client, *moves, args, out, err);
  if (args.verify) return verify(*client, *moves, args, out);
  return cancel(*client, *moves, args, out, err);
}

}  // namespace

void add_reassign_command(CLI::App& app, ReassignArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "reassign-partitions", "Move partitions between brokers, as kafka-reassign-partitions.sh (plus --drain-broker)");
  add_connection_options(*cmd, args);
  auto* file = cmd->add_option("--reassignment-json-file", args.json_file,
                               "Kafka's reassignment JSON: {\"version\":1,\"partitions\":[{\"topic\",\"partition\",\"replicas\"}]}");
  auto* execute = cmd->add_flag("--execute", args.execute, "Start the reassignment");
  auto* verify = cmd->add_flag("--verify", args.verify, "Show whether each move has completed");
  auto* cancel = cmd->add_flag("--cancel", args.cancel, "Cancel the moves");
  auto* list = cmd->add_flag("--list", args.list, "List the moves in progress");
  auto* drain = cmd->add_option("--drain-broker", args.drain_broker,
                                "Propose (with --execute, start) moving every replica off this broker");
  auto* throttle = cmd->add_option("--throttle", args.throttle,
                                   "With --execute: the brokers of the moves replicate them at most this many B/s "
                                   "(removed by --verify once they are completed)")
                       ->check(CLI::NonNegativeNumber);
  cmd->add_option("--timeout-ms", args.timeout_ms, "Connect and request timeout")->check(CLI::PositiveNumber);
  throttle->needs(execute);
  verify->excludes(execute)->excludes(cancel)->needs(file);
  cancel->excludes(execute)->needs(file);
  list->excludes(file)->excludes(execute)->excludes(drain);
  drain->excludes(file);
  cmd->callback([file, execute, verify, cancel, list, drain] {
    if (list->count() || drain->count()) return;
    if (file->count() == 0) throw CLI::ValidationError("one of --reassignment-json-file, --list or --drain-broker is required");
    if (execute->count() + verify->count() + cancel->count() == 0) {
      throw CLI::ValidationError("with --reassignment-json-file: one of --execute, --verify or --cancel");
    }
  });
}

int run_reassign(const ReassignArgs& args, std::ostream& out, std::ostream& err) {
  auto r = run(args, out, err);
  out.flush();
  if (r) return *r;
  err << "Error while executing reassign-partitions command : " << r.error().message << "\n";
  return 1;
}

}  // namespace strata::tools

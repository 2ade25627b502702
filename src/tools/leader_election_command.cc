#include "tools/leader_election_command.h"

#include <CLI/CLI.hpp>

#include <ostream>
#include <vector>

#include "protocol/apis/elect_leaders.h"
#include "tools/cli.h"
#include "tools/cluster.h"

namespace strata::tools {

namespace {

using protocol::ElectLeadersRequest;
using protocol::ElectLeadersResponse;

constexpr const char* kClientId = "strata-leader-election";

// "t-0, t-1", Kafka's comma-separated TopicPartition list.
std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

// The partitions asked for: null for --all-topic-partitions, else the topic's named
// partition or every partition Metadata lists for it.
Result<std::optional<std::vector<ElectLeadersRequest::TopicPartitions>>, CommandError> partitions_of(
    KafkaClient& client, const LeaderElectionArgs& args) {
  std::optional<std::vector<ElectLeadersRequest::TopicPartitions>> none;
  if (args.all_topic_partitions) return none;
  ElectLeadersRequest::TopicPartitions t{args.topic, {}};
  if (args.partition) {
    t.partitions.push_back(*args.partition);
  } else {
    auto md = all_topics(client);
    if (!md) return fail(md.error());
    for (const auto& topic : md->topics) {
      if (topic.name != args.topic) continue;
      if (topic.error_code != 0) return fail(kafka_error(topic.error_code));
      for (const auto& p : topic.partitions) t.partitions.push_back(p.partition_index);
    }
    if (t.partitions.empty()) {
      return fail(CommandError{"Topic '" + args.topic + "' does not exist as expected"});
    }
  }
  return std::optional{std::vector{std::move(t)}};
}

Result<int, CommandError> elect(const LeaderElectionArgs& args, std::ostream& out, std::ostream& err) {
  auto client = connect_bootstrap(args.bootstrap_server, args.timeout_ms, kClientId, args.command_config);
  if (!client) return fail(client.error());
  ElectLeadersRequest request;
  request.election_type = args.election_type == "UNCLEAN" ? 1 : 0;
  auto which = partitions_of(*client, args);
  if (!which) return fail(which.error());
  request.topic_partitions = std::move(*which);
  request.timeout_ms = args.timeout_ms;
  auto r = client->call<ElectLeadersResponse>(request);
  if (!r) return fail(client_error(r.error()));
  if (r->error_code != 0) return fail(kafka_error(r->error_code));
  std::vector<std::string> elected, not_needed, failed;
  for (const auto& t : r->replica_election_results) {
    for (const auto& p : t.partition_result) {
      const std::string name = partition_text({t.topic, p.partition_id});
      if (p.error_code == 0) {
        elected.push_back(name);
      } else if (p.error_code == kafka_error::kElectionNotNeeded) {
        not_needed.push_back(name);
      } else {
        failed.push_back(name + ": " + kafka_error(p.error_code, p.error_message).message);
      }
    }
  }
  if (!elected.empty()) {
    out << "Successfully completed leader election (" << args.election_type << ") for partitions "
        << joined(elected) << "\n";
  }
  if (!not_needed.empty()) out << "Valid replica already elected for partitions " << joined(not_needed) << "\n";
  if (failed.empty()) return 0;
  out << "Error completing leader election (" << args.election_type << ") for partition: ";
  for (size_t i = 0; i < failed.size(); ++i) out << (i ? "\n" : "") << failed[i];
  out << "\n";
  err << failed.size() << " replica(s) could not be elected\n";
  return 1;
}

}  // namespace

void add_leader_election_command(CLI::App& app, LeaderElectionArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "leader-election", "Elect the preferred (or, where no in-sync replica lives, any live) replica "
                         "as leader, as kafka-leader-election.sh");
  add_connection_options(*cmd, args);
  cmd->add_option("--election-type", args.election_type, "PREFERRED or UNCLEAN")
      ->required()
      ->check(CLI::IsMember({"PREFERRED", "UNCLEAN"}, CLI::ignore_case))
      ->transform([](std::string s) {
        for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
        return s;
      });
  auto* all = cmd->add_flag("--all-topic-partitions", args.all_topic_partitions,
                            "Elect leaders of every partition of every topic");
  auto* topic = cmd->add_option("--topic", args.topic, "The topic whose partitions to elect leaders of");
  cmd->add_option("--partition", args.partition, "Only this partition of --topic")
      ->needs(topic)
      ->check(CLI::NonNegativeNumber);
  all->excludes(topic);
  cmd->add_option("--timeout-ms", args.timeout_ms, "Connect and request timeout")->check(CLI::PositiveNumber);
  cmd->callback([cmd, all, topic] {
    if (all->count() == 0 && topic->count() == 0) {
      throw CLI::ValidationError("one of --all-topic-partitions or --topic is required");
    }
  });
}

int run_leader_election(const LeaderElectionArgs& args, std::ostream& out, std::ostream& err) {
  auto r = elect(args, out, err);
  out.flush();
  if (r) return *r;
  err << "Error while executing leader election command : " << r.error().message << "\n";
  return 1;
}

}  // namespace strata::tools

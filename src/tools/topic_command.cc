#include "tools/topic_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <map>
#include <ostream>

#include "protocol/apis/create_partitions.h"
#include "storage/partition_metadata.h"
#include "protocol/apis/create_topics.h"
#include "protocol/apis/delete_topics.h"
#include "protocol/apis/describe_configs.h"
#include "protocol/apis/incremental_alter_configs.h"
#include "protocol/apis/metadata.h"
#include "tools/cli.h"
#include "tools/cluster.h"
#include "tools/http_get.h"

namespace strata::tools {

namespace {

using namespace protocol;

constexpr int8_t kTopicResource = 2;
constexpr int8_t kDefaultConfigSource = 5;  // DescribeConfigs' DEFAULT_CONFIG
constexpr int8_t kOpSet = 0;
constexpr int8_t kOpDelete = 1;
constexpr const char* kClientId = "strata-topic";

CommandError missing_topic(const std::string& topic) {
  return CommandError{"Topic '" + topic + "' does not exist as expected"};
}

// Kafka's Uuid text: URL-safe base64 of the 16 bytes, without padding (22 characters),
// as partition.metadata stores it.
std::string uuid_text(const Uuid& id) { return storage::uuid_to_base64(id); }

std::string join(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += (s.empty() ? "" : ",") + std::to_string(id);
  return s;
}

// The topics the command is about, sorted by name: --topic alone (checked to exist
// unless --if-exists), or all of them.
Result<std::vector<const MetadataResponse::Topic*>, CommandError> select_topics(
    const MetadataResponse& metadata, const TopicArgs& args) {
  std::vector<const MetadataResponse::Topic*> topics;
  for (const auto& t : metadata.topics) {
    if (!t.name) continue;
    if (!args.topic.empty() && *t.name != args.topic) continue;
    if (args.exclude_internal && t.is_internal) continue;
    topics.push_back(&t);
  }
  std::sort(topics.begin(), topics.end(), [](auto* a, auto* b) { return *a->name < *b->name; });
  if (!args.topic.empty() && topics.empty() && !args.if_exists) {
    return fail(missing_topic(args.topic));
  }
  return topics;
}

Result<std::pair<std::string, std::string>, CommandError> parse_config(const std::string& kv) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) {
    return fail(CommandError{"--config wants key=value, got '" + kv + "'"});
  }
  return std::pair{kv.substr(0, eq), kv.substr(eq + 1)};
}

Status create_topic(KafkaClient& client, const TopicArgs& args, std::ostream& out) {
  if (args.partitions && *args.partitions < 1) {
    return fail(CommandError{"The partitions must be greater than 0"});
  }
  if (args.replication_factor &&
      (*args.replication_factor < 1 || *args.replication_factor > 32767)) {
    return fail(CommandError{"The replication factor must be between 1 and 32767 inclusive"});
  }
  const std::optional<int16_t> v = client.version<CreateTopicsRequest>();
  if (v && *v < 4 && (!args.partitions || !args.replication_factor)) {
    return fail(CommandError{"this broker (CreateTopics v" + std::to_string(*v) +
                             ") needs --partitions and --replication-factor"});
  }
  CreateTopicsRequest::Topic topic;
  topic.name = args.topic;
  topic.num_partitions = args.partitions.value_or(-1);
  topic.replication_factor = int16_t(args.replication_factor.value_or(-1));
  for (const std::string& kv : args.configs) {
    auto c = parse_config(kv);
    if (!c) return fail(c.error());
    topic.configs.push_back({c->first, c->second});
  }
  CreateTopicsRequest request;
  request.topics.push_back(std::move(topic));
  request.timeout_ms = args.timeout_ms;
  auto r = client.call<CreateTopicsResponse>(request);
  if (!r) return fail(client_error(r.error()));
  for (const auto& t : r->topics) {
    if (t.error_code == kafka_error::kTopicAlreadyExists && args.if_not_exists) return {};
    if (t.error_code != 0) return fail(kafka_error(t.error_code, t.error_message));
  }
  out << "Created topic " << args.topic << ".\n";
  return {};
}

Status list_topics(KafkaClient& client, const TopicArgs& args, std::ostream& out) {
  auto metadata = all_topics(client);
  if (!metadata) return fail(metadata.error());
  TopicArgs all = args;
  all.if_exists = true;  // --list --topic T prints nothing when T is absent
  auto topics = select_topics(*metadata, all);
  if (!topics) return fail(topics.error());
  for (const auto* t : *topics) out << *t->name << "\n";
  return {};
}

Status delete_topic(KafkaClient& client, const TopicArgs& args) {
  DeleteTopicsRequest request;
  request.topics.push_back({args.topic, Uuid{}});  // v6+
  request.topic_names.push_back(args.topic);       // v0-5
  request.timeout_ms = args.timeout_ms;
  auto r = client.call<DeleteTopicsResponse>(request);
  if (!r) return fail(client_error(r.error()));
  for (const auto& t : r->responses) {
    if (t.error_code == kafka_error::kUnknownTopicOrPartition) {
      if (args.if_exists) return {};
      return fail(missing_topic(args.topic));
    }
    if (t.error_code != 0) return fail(kafka_error(t.error_code, t.error_message));
  }
  return {};
}

Status alter_partitions(KafkaClient& client, const TopicArgs& args) {
  if (!args.partitions) return fail(CommandError{"--alter needs --partitions"});
  CreatePartitionsRequest request;
  request.topics.push_back({args.topic, *args.partitions, std::nullopt});
  request.timeout_ms = args.timeout_ms;
  auto r = client.call<CreatePartitionsResponse>(request);
  if (!r) return fail(client_error(r.error()));
  for (const auto& t : r->results) {
    if (t.error_code == kafka_error::kUnknownTopicOrPartition) {
      if (args.if_exists) return {};
      return fail(missing_topic(args.topic));
    }
    if (t.error_code != 0) return fail(kafka_error(t.error_code, t.error_message));
  }
  return {};
}

Status alter_config(KafkaClient& client, const TopicArgs& args, std::ostream& out) {
  if (args.configs.empty() && args.delete_configs.empty()) {
    return fail(CommandError{"--alter-config needs --config k=v or --delete-config k"});
  }
  IncrementalAlterConfigsRequest::Resource resource;
  resource.resource_type = kTopicResource;
  resource.resource_name = args.topic;
  for (const std::string& kv : args.configs) {
    auto c = parse_config(kv);
    if (!c) return fail(c.error());
    resource.configs.push_back({c->first, kOpSet, c->second});
  }
  for (const std::string& k : args.delete_configs) {
    resource.configs.push_back({k, kOpDelete, std::nullopt});
  }
  IncrementalAlterConfigsRequest request;
  request.resources.push_back(std::move(resource));
  auto r = client.call<IncrementalAlterConfigsResponse>(request);
  if (!r) return fail(client_error(r.error()));
  for (const auto& res : r->responses) {
    if (res.error_code == kafka_error::kUnknownTopicOrPartition && args.if_exists) return {};
    if (res.error_code != 0) return fail(kafka_error(res.error_code, res.error_message));
  }
  out << "Completed updating config for topic " << args.topic << ".\n";
  return {};
}

// ---- --describe ---------------------------------------------------------------------

// "k=v,..." of each topic's configs that are not defaults, as kafka-topics.sh shows.
Result<std::map<std::string, std::string>, CommandError> topic_configs(
    KafkaClient& client, const std::vector<const MetadataResponse::Topic*>& topics) {
  DescribeConfigsRequest request;
  for (const auto* t : topics) {
    request.resources.push_back({kTopicResource, *t->name, std::nullopt});
  }
  const std::optional<int16_t> v = client.version<DescribeConfigsRequest>();
  auto r = client.call<DescribeConfigsResponse>(request);
  if (!r) return fail(client_error(r.error()));
  std::map<std::string, std::string> configs;
  for (const auto& res : r->results) {
    if (res.error_code != 0) return fail(kafka_error(res.error_code, res.error_message));
    std::string& line = configs[res.resource_name];
    for (const auto& c : res.configs) {
      const bool is_default = *v == 0 ? c.is_default : c.config_source == kDefaultConfigSource;
      if (is_default) continue;
      line += (line.empty() ? "" : ",") + c.name + "=" + c.value.value_or("null");
    }
  }
  return configs;
}

// Each partition's log start and end offsets, or the reason one is unknown.
struct Watermarks {
  std::string start = "?";
  std::string end = "?";
};

std::map<PartitionKey, Watermarks> watermarks(
    const MetadataResponse& metadata, const std::vector<const MetadataResponse::Topic*>& topics,
    const client::ConnectOptions& how) {
  TopicPartitions partitions;
  for (const auto* t : topics) {
    for (const auto& p : t->partitions) partitions[*t->name].push_back(p.partition_index);
  }
  auto text = [](const OffsetAnswer& a) { return a.error ? *a.error : std::to_string(a.offset); };
  const auto starts = list_offsets(metadata, partitions, kEarliestTimestamp, how);
  const auto ends = list_offsets(metadata, partitions, kLatestTimestamp, how);
  std::map<PartitionKey, Watermarks> result;
  for (const auto& [key, answer] : starts) result[key].start = text(answer);
  for (const auto& [key, answer] : ends) result[key].end = text(answer);
  return result;
}

// A partition's log cleaner figures, from a broker's metrics endpoint.
struct CleanerFigures {
  double dirty_ratio = 0;
  int64_t last_clean_ms = 0;  // 0: never
};
using CleanerFigureMap = std::map<PartitionKey, CleanerFigures>;

// The strata_log_cleaner_* samples of `url` (docs/metrics.md), by partition.
Result<CleanerFigureMap, CommandError> cleaner_figures(const std::string& url, int timeout_ms) {
  auto parsed = parse_http_url(url, "/metrics");
  if (!parsed) return fail(CommandError{"--metrics-url: " + parsed.error()});
  auto response = http_get(*parsed, timeout_ms);
  if (!response) return fail(CommandError{"cannot read metrics from " + url + ": " + response.error()});
  if (response->status != 200) {
    return fail(CommandError{"cannot read metrics from " + url + ": HTTP status " +
                             std::to_string(response->status)});
  }
  CleanerFigureMap figures;
  std::string_view body = response->body;
  while (!body.empty()) {
    const size_t eol = body.find('\n');
    const auto sample = parse_prometheus_line(body.substr(0, eol));
    body.remove_prefix(eol == std::string_view::npos ? body.size() : eol + 1);
    if (!sample || !sample->labels.contains("topic") || !sample->labels.contains("partition")) continue;
    int32_t partition = 0;
    const std::string& p = sample->labels.at("partition");
    if (std::from_chars(p.data(), p.data() + p.size(), partition).ec != std::errc()) continue;
    const PartitionKey key{sample->labels.at("topic"), partition};
    if (sample->name == "strata_log_cleaner_dirty_ratio") {
      figures[key].dirty_ratio = sample->value;
    } else if (sample->name == "strata_log_cleaner_last_clean_timestamp_ms") {
      figures[key].last_clean_ms = int64_t(sample->value);
    }
  }
  return figures;
}

// "2025-01-02T03:04:05.678Z", or "never" for 0.
std::string iso_time(int64_t ms) {
  if (ms <= 0) return "never";
  const std::time_t secs = std::time_t(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, int(ms % 1000));
  return text;
}

std::string cleaner_columns(const CleanerFigures& f) {
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2f", f.dirty_ratio);
  return std::string("\tDirtyRatio: ") + ratio + "\tLastCleaned: " + iso_time(f.last_clean_ms);
}

// Whether a partition passes --under-replicated-partitions / --unavailable-partitions
// (no filter: every one).
bool shown(const TopicArgs& args, const MetadataResponse::Partition& p) {
  if (!args.under_replicated && !args.unavailable) return true;
  if (args.under_replicated && p.isr_nodes.size() < p.replica_nodes.size()) return true;
  return args.unavailable && p.leader_id < 0;
}

void print_topic(const MetadataResponse::Topic& t, const std::string& configs,
                 const std::map<PartitionKey, Watermarks>& marks,
                 const CleanerFigureMap& cleaner, const TopicArgs& args, std::ostream& out) {
  std::vector<const MetadataResponse::Partition*> partitions;
  for (const auto& p : t.partitions) partitions.push_back(&p);
  std::sort(partitions.begin(), partitions.end(),
            [](auto* a, auto* b) { return a->partition_index < b->partition_index; });
  const bool filtered = args.under_replicated || args.unavailable;
  if (!filtered) {  // kafka-topics.sh prints the partition lines alone under a filter
    out << "Topic: " << *t.name;
    if (!t.topic_id.is_zero()) out << "\tTopicId: " << uuid_text(t.topic_id);
    out << "\tPartitionCount: " << partitions.size()
        << "\tReplicationFactor: " << (partitions.empty() ? 0 : partitions[0]->replica_nodes.size())
        << "\tConfigs: " << configs << "\n";
  }
  for (const auto* p : partitions) {
    if (!shown(args, *p)) continue;
    const auto m = marks.find({*t.name, p->partition_index});
    const Watermarks w = m == marks.end() ? Watermarks{} : m->second;
    out << "\tTopic: " << *t.name << "\tPartition: " << p->partition_index
        << "\tLeader: " << (p->leader_id < 0 ? "none" : std::to_string(p->leader_id))
        << "\tReplicas: " << join(p->replica_nodes) << "\tIsr: " << join(p->isr_nodes)
        << "\tLogStartOffset: " << w.start << "\tLogEndOffset: " << w.end;
    if (auto c = cleaner.find({*t.name, p->partition_index}); c != cleaner.end()) {
      out << cleaner_columns(c->second);
    }
    out << "\n";
  }
}

Status describe_topics(KafkaClient& client, const TopicArgs& args, std::ostream& out,
                       std::ostream& err) {
  auto metadata = all_topics(client);
  if (!metadata) return fail(metadata.error());
  auto topics = select_topics(*metadata, args);
  if (!topics) return fail(topics.error());
  if (topics->empty()) return {};
  std::map<std::string, std::string> configs;
  if (client.version<DescribeConfigsRequest>()) {
    auto c = topic_configs(client, *topics);
    if (!c) return fail(c.error());
    configs = std::move(*c);
  } else {
    err << "DescribeConfigs is not supported by the broker: configs are not shown\n";
  }
  CleanerFigureMap cleaner;
  if (!args.metrics_url.empty()) {  // before any output: a failure prints nothing
    auto figures = cleaner_figures(args.metrics_url, args.timeout_ms);
    if (!figures) return fail(figures.error());
    cleaner = std::move(*figures);
  }
  const auto marks = watermarks(*metadata, *topics, client.options());
  for (const auto* t : *topics) print_topic(*t, configs[*t->name], marks, cleaner, args, out);
  return {};
}

Status check_args(const TopicArgs& a) {
  const int actions = a.create + a.list + a.describe + a.remove + a.alter + a.alter_config;
  if (actions != 1) {
    return fail(CommandError{
        "exactly one of --create, --list, --describe, --delete, --alter, --alter-config "
        "is required"});
  }
  if ((a.create || a.remove || a.alter || a.alter_config) && a.topic.empty()) {
    return fail(CommandError{"--topic is required"});
  }
  if ((a.under_replicated || a.unavailable) && !a.describe) {
    return fail(CommandError{"--under-replicated-partitions and --unavailable-partitions go with --describe"});
  }
  if (!a.metrics_url.empty()) {
    if (!a.describe) return fail(CommandError{"--metrics-url goes with --describe"});
    if (auto url = parse_http_url(a.metrics_url); !url) {
      return fail(CommandError{"--metrics-url: " + url.error()});
    }
  }
  return {};
}

Status run(const TopicArgs& args, std::ostream& out, std::ostream& err) {
  if (auto r = check_args(args); !r) return r;
  auto client = connect_bootstrap(args.bootstrap_server, args.timeout_ms, kClientId, args.command_config);
  if (!client) return fail(client.error());
  if (args.create) return create_topic(*client, args, out);
  if (args.list) return list_topics(*client, args, out);
  if (args.describe) return describe_topics(*client, args, out, err);
  if (args.remove) return delete_topic(*client, args);
  if (args.alter) return alter_partitions(*client, args);
  return alter_config(*client, args, out);
}

}  // namespace

void add_topic_command(CLI::App& app, TopicArgs& args) {
  CLI::App* cmd = app.add_subcommand(
      "topic",
      "Create, list, describe, delete and alter topics on any Kafka-protocol broker "
      "(kafka-topics.sh's flags)");
  add_connection_options(*cmd, args);
  cmd->add_flag("--create", args.create, "Create a topic");
  cmd->add_flag("--list", args.list, "List topic names, one a line");
  cmd->add_flag("--describe", args.describe,
                "Partitions, leaders, replicas, ISR, log start/end offsets and configs");
  cmd->add_flag("--delete", args.remove, "Delete a topic");
  cmd->add_flag("--alter", args.alter, "Raise a topic's partition count (--partitions)");
  cmd->add_flag("--alter-config", args.alter_config,
                "Set (--config) or delete (--delete-config) topic configs");
  cmd->add_option("--topic", args.topic, "The topic (an exact name)");
  cmd->add_option("--partitions", args.partitions, "Partition count (create, alter)");
  cmd->add_option("--replication-factor", args.replication_factor, "Replicas per partition");
  cmd->add_option("--config", args.configs, "A topic config, key=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--delete-config", args.delete_configs, "A topic config to remove (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--if-not-exists", args.if_not_exists, "Create: no error if the topic exists");
  cmd->add_flag("--if-exists", args.if_exists,
                "Describe, delete, alter: no error if the topic does not exist");
  cmd->add_flag("--exclude-internal", args.exclude_internal,
                "List, describe: skip internal topics");
  cmd->add_option("--timeout-ms", args.timeout_ms, "Connect and request timeout")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--under-replicated-partitions", args.under_replicated,
                "Describe: only partitions whose ISR is smaller than their replicas");
  cmd->add_flag("--unavailable-partitions", args.unavailable, "Describe: only partitions without a leader");
  cmd->add_option("--metrics-url", args.metrics_url,
                  "Describe: http://HOST:PORT of the broker's metrics.listener; compacted "
                  "partitions then show their dirty ratio and last cleaning (Strata only)");
}

int run_topic(const TopicArgs& args, std::ostream& out, std::ostream& err) {
  const Status r = run(args, out, err);
  out.flush();
  if (r) return 0;
  err << "Error while executing topic command : " << r.error().message << "\n";
  return 1;
}

}  // namespace strata::tools

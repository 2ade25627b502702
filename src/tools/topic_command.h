// `strata topic`: kafka-topics.sh's --create, --list, --describe, --delete and --alter
// (partition count), plus --alter-config (IncrementalAlterConfigs, what kafka-configs.sh
// does for a topic), against any Kafka-protocol broker through KafkaClient.
//
// Output follows kafka-topics.sh: --list prints one name per line; --describe prints
//   Topic: T<TAB>TopicId: ID<TAB>PartitionCount: N<TAB>ReplicationFactor: R<TAB>Configs: k=v,...
//   <TAB>Topic: T<TAB>Partition: 0<TAB>Leader: 1<TAB>Replicas: 1<TAB>Isr: 1
// and Strata adds each partition's log start and end offsets (ListOffsets -2 / -1) as
//   <TAB>LogStartOffset: a<TAB>LogEndOffset: b
// With --metrics-url http://HOST:PORT (a broker's metrics.listener), each partition that
// endpoint reports cleaner figures for (the compacted ones) also gets
//   <TAB>DirtyRatio: 0.42<TAB>LastCleaned: 2025-01-02T03:04:05.678Z (or never)
// Errors go to stderr as Kafka's error name and message; the exit code is then 1.
// --topic names one topic exactly (kafka-topics.sh takes a regular expression).
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

struct TopicArgs {
  std::string bootstrap_server = "127.0.0.1:9092";  // comma-separated: tried in order
  std::string command_config;  // --command-config: the client security settings file
  // Exactly one action.
  bool create = false;
  bool list = false;
  bool describe = false;
  bool remove = false;  // --delete
  bool alter = false;
  bool alter_config = false;

  std::string topic;
  std::optional<int32_t> partitions;          // absent: the broker's num.partitions
  std::optional<int32_t> replication_factor;  // absent: the broker's default
  std::vector<std::string> configs;           // k=v
  std::vector<std::string> delete_configs;    // k
  bool if_not_exists = false;
  bool if_exists = false;
  bool exclude_internal = false;
  int timeout_ms = 30000;  // connect, and each request
  std::string metrics_url;  // --describe: cleaner figures from this metrics endpoint
  // --describe filters, as kafka-topics.sh's: only the partitions whose ISR is smaller
  // than their replicas, or that have no leader; the partition lines alone.
  bool under_replicated = false;
  bool unavailable = false;
};

void add_topic_command(CLI::App& app, TopicArgs& args);
int run_topic(const TopicArgs& args, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

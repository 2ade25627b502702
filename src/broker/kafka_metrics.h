// Kafka's broker metrics under the names jmx_exporter's standard Kafka rules give them,
// so that dashboards built for Kafka read Strata (docs/metrics.md lists each):
// kafka_server_brokertopicmetrics_* per topic and in total, kafka_network_requestmetrics_*
// per API, kafka_log_log_* per partition, kafka_controller_kafkacontroller_*, the process
// figures Prometheus clients export (process_*), and kafka_exporter's consumer-group and
// topic names (kafka_consumergroup_*, kafka_topic_partition_*) computed by the broker: a
// group's lag is reported by its coordinator, for the partitions whose logs it holds from
// them and for the others from their leaders' last answers (remote_watermarks.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "broker/loop_watch.h"
#include "broker/metrics.h"
#include "broker/traffic_metrics.h"
#include "storage/log.h"

namespace strata::broker {

class Broker;

// One partition log's figures, read on its shard.
struct LogFigures {
  storage::TopicPartition tp;
  uint64_t size_bytes = 0;
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
  int64_t high_watermark = 0;
  size_t segments = 0;
};

// A consumer group this broker coordinates: its members and committed offsets.
struct GroupFigures {
  std::string group;
  size_t members = 0;
  std::vector<std::pair<storage::TopicPartition, int64_t>> committed;  // in partition order
};

struct ProcessFigures {
  uint64_t resident_bytes = 0;
  uint64_t open_fds = 0;
  double cpu_seconds = 0;
};

struct KafkaFigures {
  std::map<std::string, TrafficFigures> topics;  // the topics that exist
  TrafficFigures total;
  std::map<std::string, RequestTimeFigures> requests;  // by Kafka's API name
  std::vector<LogFigures> logs;                        // in partition order
  std::vector<GroupFigures> groups;                    // in group order
  // High watermarks of committed partitions with no log here, as their leaders last
  // answered (remote_watermarks.h); the lag of those partitions comes from them.
  std::map<storage::TopicPartition, int64_t> remote_high_watermarks;
  ProcessFigures process;
  bool active_controller = false;
  std::vector<LoopWatch::Figures> loops;  // per shard
};

// The partitions the groups here committed offsets for whose logs are not on this broker
// (their lag needs their leaders' high watermarks).
std::set<storage::TopicPartition> committed_elsewhere(const KafkaFigures& figures);

// The families (pure; the unit tests' entry).
std::vector<MetricFamily> kafka_metric_families(const KafkaFigures& figures);

// Gathers the figures of a running broker. Log and group figures are read on each shard
// (a task posted to it); a shard that does not answer within `shard_wait_ms` leaves its
// partitions and groups out of this scrape. Call from a thread that is not a shard's.
KafkaFigures collect_kafka_figures(Broker& broker, int shard_wait_ms = 2000);

// This process's figures from /proc/self (zeros where it cannot be read).
ProcessFigures process_figures();

}  // namespace strata::broker

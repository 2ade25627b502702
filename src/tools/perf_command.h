// `strata perf produce` and `strata perf consume`: kafka-producer-perf-test and
// kafka-consumer-perf-test, with their flags and their output, on librdkafka
// (rdkafka_client.h).
//
//   strata perf produce --topic T --num-records N (--record-size B | --payload-file F
//       [--payload-delimiter D]) [--throughput R] [--producer-props k=v ...]
//       [--producer.config F] [--command-config F] [--bootstrap-server B]
// sends N records (one random A-Z payload of B bytes, or the file's payloads at random),
// at most R records/s (-1: no limit), printing every 5 s
//   "<n> records sent, <r> records/sec (<mb> MB/sec), <avg> ms avg latency, <max> ms max latency."
// and at the end the totals with the 50th/95th/99th/99.9th latency percentiles, each
// latency the time from the send to its acknowledgement. Exit 1 if any record failed.
//
//   strata perf consume --topic T --messages N [--group G] [--from-latest]
//       [--timeout MS] [--show-detailed-stats] [--reporting-interval MS] [--hide-header]
//       [--fetch-size B] [--consumer.config F] [--command-config F] [--bootstrap-server B]
// reads N records through a group and prints Kafka's CSV line (start.time, end.time,
// data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms,
// fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec); MB are 2^20 bytes of keys and values.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace strata::tools {

struct PerfArgs {
  enum class Action : uint8_t { kNone, kProduce, kConsume } action = Action::kNone;
  std::string bootstrap_server;
  std::string topic;
  std::string command_config;
  // produce
  int64_t num_records = 0;
  int32_t record_size = 0;
  std::string payload_file;
  std::string payload_delimiter = "\n";
  double throughput = -1;
  std::vector<std::string> producer_props;
  std::string producer_config;
  // consume
  int64_t messages = 0;
  std::string group;
  bool from_latest = false;
  int64_t timeout_ms = 10000;
  bool show_detailed_stats = false;
  int64_t reporting_interval_ms = 5000;
  bool hide_header = false;
  int32_t fetch_size = 1048576;
  std::string consumer_config;
};

void add_perf_command(CLI::App& app, PerfArgs& args);
int run_perf(const PerfArgs& args, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

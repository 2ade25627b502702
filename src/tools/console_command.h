// `strata produce` and `strata consume`: kafka-console-producer / kafka-console-consumer
// with their flags (and a few of rpk's and kcat's), on librdkafka (rdkafka_settings.h).
//
//   strata produce --topic T [--bootstrap-server B] [--property parse.key=true ...]
//       [--producer-property k=v]... [--producer.config F | --command-config F]
//       [--request-required-acks -1|0|1] [--compression-codec [gzip|snappy|lz4|zstd|none]]
//       [--partition P] [--key K] [-H k:v]... [--sync] [--timeout LINGER_MS]
// reads stdin, one record per line (console_format.h's LineReader); idempotent unless
// acks is not -1 or enable.idempotence=false is given; exits 1 (each failure on stderr,
// as "Error when sending message to topic T ...") if any record was not written.
//
//   strata consume --topic T [--bootstrap-server B] [--group G | --partition P
//       [--offset earliest|latest|N|@TIMESTAMP_MS]] [--from-beginning] [--max-messages N]
//       [--timeout-ms MS] [--isolation-level read_committed|read_uncommitted]
//       [--property print.key=true ...] [--format json|TEMPLATE]
//       [--consumer-property k=v]... [--consumer.config F | --command-config F]
// prints each record (console_format.h's Formatter) and, at the end, "Processed a total
// of N messages" on stderr. Kafka's rules: --offset needs --partition, --group and
// --partition exclude each other, --from-beginning and --offset too; without --group the
// group is "console-consumer-<random>" and offsets are not committed.
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

struct ProduceArgs {
  std::string bootstrap_server = "127.0.0.1:9092";
  std::string topic;
  std::vector<std::string> properties;           // --property (the line reader's)
  std::vector<std::string> producer_properties;  // --producer-property
  std::string producer_config;                   // --producer.config / --command-config
  std::string command_config;
  std::string acks = "-1";
  std::optional<std::string> compression;  // --compression-codec; "" when given bare: gzip
  std::optional<int32_t> partition;
  std::optional<std::string> key;
  std::vector<std::string> headers;  // -H k:v
  bool sync = false;
  int linger_ms = 1000;  // --timeout, as kafka-console-producer's
};

struct ConsumeArgs {
  std::string bootstrap_server = "127.0.0.1:9092";
  std::string topic;
  std::string group;
  std::optional<int32_t> partition;
  std::string offset;  // "" (latest), earliest, latest, N or @timestamp
  bool from_beginning = false;
  int64_t max_messages = -1;
  int64_t timeout_ms = -1;
  std::string isolation_level = "read_uncommitted";
  std::vector<std::string> properties;  // --property (the formatter's)
  std::vector<std::string> consumer_properties;
  std::string consumer_config;
  std::string command_config;
  std::string format;
};

void add_produce_command(CLI::App& app, ProduceArgs& args);
void add_consume_command(CLI::App& app, ConsumeArgs& args);
int run_produce(const ProduceArgs& args, std::istream& in, std::ostream& err);
int run_consume(const ConsumeArgs& args, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

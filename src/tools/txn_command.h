// `strata txn`: kafka-transactions.sh against any Kafka-protocol broker, through
// KafkaClient:
//   strata txn list [--state S[,S...]] [--producer-id N[,N...]] [--duration-filter MS]
//   strata txn describe --transactional-id ID
//   strata txn describe-producers --topic T --partition P [--broker-id N]
//   strata txn find-hanging (--broker-id N | --topic T [--partition P])
//       [--max-transaction-timeout MIN]
//   strata txn abort --topic T --partition P (--start-offset N |
//       --producer-id N --producer-epoch E --coordinator-epoch C)
// each with --bootstrap-server and --timeout-ms. The tables are Kafka's
// (txn_format.h); errors go to stderr in Kafka's words and the exit code is then 1.
// --state and --producer-id are ListTransactions filters Kafka's tool does not expose.
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

struct TxnArgs {
  enum class Action : uint8_t { kNone, kList, kDescribe, kDescribeProducers, kFindHanging, kAbort };
  Action action = Action::kNone;
  std::string bootstrap_server = "127.0.0.1:9092";  // comma-separated: tried in order
  std::string command_config;  // --command-config: the client security settings file
  int timeout_ms = 30000;                           // connect, and each request

  // list
  std::vector<std::string> states;
  std::vector<int64_t> producer_ids;
  std::optional<int64_t> duration_filter_ms;

  // describe
  std::string transactional_id;

  // describe-producers, find-hanging, abort
  std::optional<std::string> topic;
  std::optional<int32_t> partition;
  std::optional<int32_t> broker_id;          // describe-producers, find-hanging
  int32_t max_transaction_timeout_min = 15;  // find-hanging

  // abort: the transaction starting at this offset (DescribeProducers finds its
  // producer), or the producer given outright (for brokers before Kafka 3.0).
  std::optional<int64_t> start_offset;
  std::optional<int64_t> producer_id;
  std::optional<int16_t> producer_epoch;
  std::optional<int32_t> coordinator_epoch;
};

void add_txn_command(CLI::App& app, TxnArgs& args);
int run_txn(const TxnArgs& args, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

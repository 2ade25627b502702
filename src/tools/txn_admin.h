// What `strata txn` asks of a cluster about transactions: a bootstrap connection, one
// connection per broker it talks to (opened once, kept for the run), and the APIs of
// kafka-transactions.sh in the shapes its subcommands need: ListTransactions on every
// broker, FindCoordinator (transaction key) + DescribeTransactions, DescribeProducers
// and WriteTxnMarkers on a partition's leader (or a given replica). Internal to the txn
// command; each subcommand lives in txn_<name>.cc. Single-threaded.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/cluster.h"
#include "tools/txn_command.h"
#include "tools/txn_format.h"

namespace strata::tools {

struct TxnListFilter {
  std::vector<std::string> states;  // Kafka's state names; empty: all
  std::vector<int64_t> producer_ids;
  int64_t duration_ms = -1;  // ListTransactions v1+; < 0: any age
};

// One partition's DescribeProducers answer: its producers, or why there are none.
struct ProducersAnswer {
  std::vector<ProducerRow> producers;
  std::optional<CommandError> error;
};

// A WriteTxnMarkers ABORT for one partition (Kafka's AbortTransactionSpec).
struct AbortSpec {
  std::string topic;
  int32_t partition = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t coordinator_epoch = 0;
};

class TxnAdmin {
 public:
  static Result<TxnAdmin, CommandError> connect(const TxnArgs& args);

  const TxnArgs& args() const { return *args_; }

  // Metadata of every topic, asked once and kept for the run.
  Result<const protocol::MetadataResponse*, CommandError> metadata();
  // The partition's leader, by Metadata: UNKNOWN_TOPIC_OR_PARTITION or
  // LEADER_NOT_AVAILABLE when there is none.
  Result<int32_t, CommandError> leader_of(const std::string& topic, int32_t partition);

  // ListTransactions on every broker of the cluster, rows sorted by coordinator id then
  // transactional id.
  Result<std::vector<TxnListingRow>, CommandError> list(const TxnListFilter& filter);
  // FindCoordinator for the transactional id, then DescribeTransactions there: nullopt
  // when the coordinator answers TRANSACTIONAL_ID_NOT_FOUND; another error code fails
  // with its name. COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE and
  // NOT_COORDINATOR are retried within the timeout.
  Result<std::optional<TxnDescriptionRow>, CommandError> describe(
      const std::string& transactional_id);
  // DescribeProducers of `partitions` on broker `broker_id`: an answer for every
  // partition asked for.
  Result<std::map<PartitionKey, ProducersAnswer>, CommandError> producers(
      int32_t broker_id, const std::vector<PartitionKey>& partitions);
  // WriteTxnMarkers ABORT on broker `broker_id`: the partition's error code (0: the
  // marker is written).
  Result<int16_t, CommandError> write_abort_marker(int32_t broker_id, const AbortSpec& spec);

 private:
  TxnAdmin(const TxnArgs& args, KafkaClient bootstrap)
      : args_(&args), bootstrap_(std::move(bootstrap)) {}
  // The connection to a broker, opened once per node id.
  Result<KafkaClient*, CommandError> node(const Node& n);
  Result<KafkaClient*, CommandError> broker(int32_t id);
  Result<Node, CommandError> coordinator(const std::string& transactional_id);

  const TxnArgs* args_;
  KafkaClient bootstrap_;
  std::optional<protocol::MetadataResponse> metadata_;
  std::map<int32_t, KafkaClient> connections_;  // node id -> connection
};

// The subcommands: the coordinators' view (txn_list.cc: list, describe), the partition
// leaders' (txn_producers.cc: describe-producers, abort) and both (txn_hanging.cc:
// find-hanging). A returned error is printed by run_txn on stderr.
Status list_txns(TxnAdmin& admin, std::ostream& out);
Status describe_txn(TxnAdmin& admin, std::ostream& out);
Status describe_producers(TxnAdmin& admin, std::ostream& out);
Status find_hanging(TxnAdmin& admin, std::ostream& out);
Status abort_txn(TxnAdmin& admin);

// Wall-clock milliseconds, what the durations in the tables are measured against.
int64_t txn_now_ms();

}  // namespace strata::tools

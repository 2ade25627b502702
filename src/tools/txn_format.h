// The tables `strata txn` prints, as kafka-transactions.sh prints them
// (TransactionsCommand with ToolsUtils.prettyPrintTable): a header line, then one line
// per row; every cell is padded with spaces to its column's widest cell and followed by
// a tab, the last one included. Pure formatting: no I/O beyond the stream given.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace strata::tools {

using TxnTable = std::vector<std::vector<std::string>>;

// Kafka's ToolsUtils.prettyPrintTable. Every row has as many cells as `headers`.
void print_txn_table(const std::vector<std::string>& headers, const TxnTable& rows,
                     std::ostream& out);

// One ListTransactions entry and the broker (coordinator) that answered it.
struct TxnListingRow {
  std::string transactional_id;
  int32_t coordinator_id = -1;
  int64_t producer_id = -1;
  std::string state;
};

// A DescribeTransactions answer and the coordinator that gave it.
struct TxnDescriptionRow {
  int32_t coordinator_id = -1;
  std::string transactional_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  std::string state;
  int32_t timeout_ms = 0;
  int64_t start_ms = -1;                                    // < 0: no transaction started ("None")
  std::vector<std::pair<std::string, int32_t>> partitions;  // printed sorted
};

// A DescribeProducers entry, as on the wire: a negative coordinator epoch or start
// offset means "none".
struct ProducerRow {
  int64_t producer_id = -1;
  int32_t producer_epoch = -1;
  int32_t last_sequence = -1;
  int64_t last_timestamp = -1;
  int32_t coordinator_epoch = -1;
  int64_t current_txn_start_offset = -1;
};

struct HangingTxnRow {
  std::string topic;
  int32_t partition = 0;
  ProducerRow producer;
};

// list: TransactionalId Coordinator ProducerId TransactionState.
void print_txn_listings(const std::vector<TxnListingRow>& rows, std::ostream& out);
// describe: CoordinatorId TransactionalId ProducerId ProducerEpoch TransactionState
// TransactionTimeoutMs CurrentTransactionStartTimeMs TransactionDurationMs
// TopicPartitions; the duration is now_ms - start, the partitions "topic-p" joined by ",".
void print_txn_description(const TxnDescriptionRow& d, int64_t now_ms, std::ostream& out);
// describe-producers: ProducerId ProducerEpoch LatestCoordinatorEpoch LastSequence
// LastTimestamp CurrentTransactionStartOffset ("None" when no transaction is open).
void print_producers(const std::vector<ProducerRow>& rows, std::ostream& out);
// find-hanging: Topic Partition ProducerId ProducerEpoch CoordinatorEpoch StartOffset
// LastTimestamp Duration(min); the duration is whole minutes since the last timestamp.
void print_hanging(const std::vector<HangingTxnRow>& rows, int64_t now_ms, std::ostream& out);

// "AbortTransactionSpec(topicPartition=t-p, producerId=.., producerEpoch=..,
// coordinatorEpoch=..)", as Kafka names an abort in its messages.
std::string abort_spec_text(const std::string& topic, int32_t partition, int64_t producer_id,
                            int16_t producer_epoch, int32_t coordinator_epoch);

}  // namespace strata::tools

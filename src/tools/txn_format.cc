#include "tools/txn_format.h"

#include <algorithm>
#include <cassert>
#include <ostream>

namespace strata::tools {

namespace {

constexpr const char* kNone = "None";  // Java's Optional printed empty, as Kafka's tool does
constexpr int64_t kMsPerMinute = 60 * 1000;

std::string str(int64_t v) {
  return std::to_string(v);
}

}  // namespace

void print_txn_table(const std::vector<std::string>& headers, const TxnTable& rows,
                     std::ostream& out) {
  std::vector<size_t> widths;
  for (const std::string& h : headers) widths.push_back(h.size());
  for (const auto& row : rows) {
    assert(row.size() == headers.size());
    for (size_t i = 0; i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      out << cells[i] << std::string(widths[i] - cells[i].size(), ' ') << '\t';
    }
    out << '\n';
  };
  line(headers);
  for (const auto& row : rows) line(row);
}

void print_txn_listings(const std::vector<TxnListingRow>& rows, std::ostream& out) {
  TxnTable table;
  for (const TxnListingRow& r : rows) {
    table.push_back({r.transactional_id, str(r.coordinator_id), str(r.producer_id), r.state});
  }
  print_txn_table({"TransactionalId", "Coordinator", "ProducerId", "TransactionState"}, table, out);
}

void print_txn_description(const TxnDescriptionRow& d, int64_t now_ms, std::ostream& out) {
  auto partitions = d.partitions;
  std::sort(partitions.begin(), partitions.end());
  std::string joined;
  for (const auto& [topic, p] : partitions) {
    joined += (joined.empty() ? "" : ",") + topic + "-" + str(p);
  }
  const bool started = d.start_ms >= 0;
  print_txn_table(
      {"CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState",
       "TransactionTimeoutMs", "CurrentTransactionStartTimeMs", "TransactionDurationMs",
       "TopicPartitions"},
      {{str(d.coordinator_id), d.transactional_id, str(d.producer_id), str(d.producer_epoch),
        d.state, str(d.timeout_ms), started ? str(d.start_ms) : kNone,
        started ? str(now_ms - d.start_ms) : kNone, joined}},
      out);
}

void print_producers(const std::vector<ProducerRow>& rows, std::ostream& out) {
  TxnTable table;
  for (const ProducerRow& p : rows) {
    table.push_back({str(p.producer_id), str(p.producer_epoch),
                     str(p.coordinator_epoch < 0 ? -1 : p.coordinator_epoch), str(p.last_sequence),
                     str(p.last_timestamp),
                     p.current_txn_start_offset < 0 ? kNone : str(p.current_txn_start_offset)});
  }
  print_txn_table({"ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence",
                   "LastTimestamp", "CurrentTransactionStartOffset"},
                  table, out);
}

void print_hanging(const std::vector<HangingTxnRow>& rows, int64_t now_ms, std::ostream& out) {
  TxnTable table;
  for (const HangingTxnRow& h : rows) {
    const ProducerRow& p = h.producer;
    table.push_back({h.topic, str(h.partition), str(p.producer_id), str(p.producer_epoch),
                     str(p.coordinator_epoch < 0 ? -1 : p.coordinator_epoch),
                     str(p.current_txn_start_offset < 0 ? -1 : p.current_txn_start_offset),
                     str(p.last_timestamp),
                     // TimeUnit.MILLISECONDS.toMinutes: truncated toward zero.
                     str((now_ms - p.last_timestamp) / kMsPerMinute)});
  }
  print_txn_table({"Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch",
                   "StartOffset", "LastTimestamp", "Duration(min)"},
                  table, out);
}

std::string abort_spec_text(const std::string& topic, int32_t partition, int64_t producer_id,
                            int16_t producer_epoch, int32_t coordinator_epoch) {
  return "AbortTransactionSpec(topicPartition=" + topic + "-" + str(partition) +
         ", producerId=" + str(producer_id) + ", producerEpoch=" + str(producer_epoch) +
         ", coordinatorEpoch=" + str(coordinator_epoch) + ")";
}

}  // namespace strata::tools

// The broker's side of the transaction coordinator:
//   - TxnStateLog writes its records to __transaction_state partitions;
//   - BrokerMarkers writes commit/abort markers to a transaction's partitions (what
//     Kafka's coordinator sends to partition leaders as WriteTxnMarkers; on a single
//     node the partitions are local, so it appends them directly on their shards);
//   - load_txns replays __transaction_state into the coordinator before serving.
#pragma once

#include <functional>

#include "storage/log_manager.h"
#include "txn/coordinator.h"

namespace strata::broker {

class Broker;

class TxnStateLog : public txn::TxnLog {
 public:
  explicit TxnStateLog(Broker& broker) : broker_(broker) {}
  void append(int32_t partition, std::vector<uint8_t> key, std::optional<std::vector<uint8_t>> value,
              std::function<void(KafkaError)> done) override;

 private:
  Broker& broker_;
};

class BrokerMarkers : public txn::MarkerWriter {
 public:
  explicit BrokerMarkers(Broker& broker) : broker_(broker) {}
  void write(int32_t txn_partition, txn::MarkerRequest request,
             std::function<void(KafkaError)> done) override;

 private:
  Broker& broker_;
};

// Writes one marker to `tp` on its owner shard (call it there): appends the control
// batch, wakes fetches waiting on the partition (its last stable offset moved), and
// once the marker is committed (durable, and on a replicated partition below the high
// watermark: Kafka writes markers with acks=all, so a new leader has every marker its
// coordinator counted) applies or drops the transaction's offsets when `tp` is a
// __consumer_offsets partition; runs `done` (on the sync thread, the partition's shard
// or inline) with 0 then, or the Kafka error (NOT_ENOUGH_REPLICAS_AFTER_APPEND,
// REQUEST_TIMED_OUT after request.timeout.ms: the coordinator retries the marker). A
// partition that does not exist answers UNKNOWN_TOPIC_OR_PARTITION.
void write_partition_marker(Broker& broker, const storage::TopicPartition& tp,
                            const txn::MarkerRequest& marker, std::function<void(KafkaError)> done);

// Replays one __transaction_state partition's records into the coordinator (its
// finish_load is the caller's, on the partition's shard once the shards run).
void replay_txn_partition(Broker& broker, txn::TxnCoordinator& coordinator, int32_t partition);

// Every partition, before the broker serves (the single node).
void load_txns(Broker& broker, txn::TxnCoordinator& coordinator);

}  // namespace strata::broker

// The transaction coordinator: Kafka's TransactionCoordinator for transactional ids on
// a single node. It hands out producer ids and epochs (fencing older incarnations),
// tracks the partitions of each transaction, drives commit and abort through Kafka's
// states (Empty, Ongoing, PrepareCommit/PrepareAbort, CompleteCommit/CompleteAbort),
// writes every state change to __transaction_state (records.h) before it answers,
// has the partitions' markers written, aborts transactions that outlive their
// timeout, expires idle transactional ids, and resumes after a restart from the log.
//
// Transaction versions: with EndTxn v5 (KIP-890 part 2, "TV2") every transaction end
// bumps the producer epoch and answers with it, so a delayed EndTxn (older epoch) can
// never end a later transaction. Older EndTxn versions keep Kafka's TV1 rules (the
// epoch stays; a retried EndTxn in the completed state succeeds).
//
// Threads: transactional id `t` lives on the shard owning __transaction_state
// partition partition_for(t); every call naming it runs there and so do its callbacks.
#pragma once

#include <asio/any_io_executor.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/kafka_errors.h"
#include "common/result.h"
#include "txn/config.h"
#include "txn/records.h"

namespace strata::txn {

// Where the coordinator's records go: one __transaction_state partition per call.
class TxnLog {
 public:
  virtual ~TxnLog() = default;
  // Appends one record; `done` runs on the partition's shard with 0 once it is
  // durable, or the Kafka error code of the failure.
  virtual void append(int32_t partition, std::vector<uint8_t> key,
                      std::optional<std::vector<uint8_t>> value,
                      std::function<void(KafkaError)> done) = 0;
};

// Writes a transaction's commit or abort markers to its partitions (Kafka's
// WriteTxnMarkers from the coordinator to the partition leaders).
struct MarkerRequest {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t coordinator_epoch = 0;
  bool commit = true;
  std::vector<TxnTopicPartitions> partitions;
};

class MarkerWriter {
 public:
  virtual ~MarkerWriter() = default;
  // Writes the markers durably; `done` runs on the shard of __transaction_state
  // partition `txn_partition` with 0, or an error to retry later. Partitions that no
  // longer exist count as done (Kafka drops them from the pending set).
  virtual void write(int32_t txn_partition, MarkerRequest request,
                     std::function<void(KafkaError)> done) = 0;
};

struct InitPidRequest {
  std::string transactional_id;
  int32_t timeout_ms = 0;
  int64_t producer_id = -1;  // InitProducerId v3+: the producer's current id and epoch
  int16_t producer_epoch = -1;
};

struct PidAndEpoch {
  KafkaError error = KafkaError::kNone;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

struct TxnDescription {
  KafkaError error = KafkaError::kNone;  // TRANSACTIONAL_ID_NOT_FOUND
  TxnState state = TxnState::kEmpty;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t timeout_ms = 0;
  int64_t start_ms = -1;
  std::vector<TxnTopicPartitions> partitions;
};

struct TxnListing {
  std::string transactional_id;
  int64_t producer_id = -1;
  TxnState state = TxnState::kEmpty;
};

struct TxnFilter {
  std::vector<std::string> states;      // Kafka's state names; empty: all
  std::vector<int64_t> producer_ids;    // empty: all
  int64_t min_duration_ms = -1;         // v1: started more than this long ago; -1: all
};

class TxnCoordinator {
 public:
  using ExecutorFor = std::function<asio::any_io_executor(int32_t partition)>;
  using NextProducerId = std::function<Result<int64_t, std::string>()>;
  using Clock = std::function<int64_t()>;  // wall-clock ms

  TxnCoordinator(TxnConfig config, TxnLog& log, MarkerWriter& markers, ExecutorFor executor_for,
                 NextProducerId next_producer_id, Clock clock);
  ~TxnCoordinator();

  const TxnConfig& config() const { return config_; }
  int32_t partitions() const { return config_.state_log_num_partitions; }
  int32_t partition_for(const std::string& transactional_id) const {
    return partition_for_txn(transactional_id, partitions());
  }
  // Kafka's coordinator epoch: the __transaction_state partition's leader epoch,
  // always 0 on a single node.
  static constexpr int32_t kCoordinatorEpoch = 0;

  void init_producer_id(InitPidRequest r, std::function<void(PidAndEpoch)> done);
  // AddPartitionsToTxn and AddOffsetsToTxn (the group's __consumer_offsets partition).
  void add_partitions(const std::string& transactional_id, int64_t producer_id,
                      int16_t producer_epoch, std::vector<TxnTopicPartitions> partitions,
                      std::function<void(KafkaError)> done);
  // AddPartitionsToTxn v4+ VerifyOnly: 0 if the transaction is ongoing with the
  // partition, else Kafka's error.
  KafkaError verify(const std::string& transactional_id, int64_t producer_id,
                 int16_t producer_epoch, const std::string& topic, int32_t partition) const;
  // EndTxn: `bump_epoch` for v5+ (TV2). The answer carries the producer id and epoch
  // the producer uses next.
  void end_txn(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
               bool commit, bool bump_epoch, std::function<void(PidAndEpoch)> done);

  TxnDescription describe(const std::string& transactional_id) const;
  std::vector<TxnListing> list(int32_t partition, const TxnFilter& filter) const;

  // Loading: every record of a partition in log order, then finish_load, which
  // completes the transactions the log shows between prepare and complete and starts
  // the partition's timeout and expiry checks.
  void replay(int32_t partition, Bytes key, std::optional<Bytes> value);
  void finish_load(int32_t partition);
  // Aborts transactions past their timeout, then expires idle ids when due. Runs on
  // the partition's timer; public for tests.
  void tick(int32_t partition);
  // Cancels the partition's timers (at shutdown).
  void shutdown(int32_t partition);
  // This broker no longer leads the partition (Kafka's removeTransactionsForTxnTopicPartition):
  // its ids are dropped and requests get COORDINATOR_NOT_AVAILABLE until a load; parked
  // requests give up (CONCURRENT_TRANSACTIONS: the client retries and is redirected);
  // marker and completion retries of the dropped ids stop (the new coordinator, loading
  // the replicated log, finishes what was prepared).
  void unload(int32_t partition);

  struct Metadata;  // one transactional id (coordinator.cc)

 private:
  using MetaPtr = std::shared_ptr<Metadata>;
  struct PartitionState;

  MetaPtr find(const std::string& id) const;
  void init_existing(const MetaPtr& m, const InitPidRequest& r,
                     std::function<void(PidAndEpoch)> done);
  void bump_and_store(const MetaPtr& m, const InitPidRequest& r,
                      std::function<void(PidAndEpoch)> done);
  KafkaError check_producer(const Metadata& m, int64_t producer_id, int16_t producer_epoch) const;
  // Writes `target` for `m` (Kafka's prepareTransition + append + completeTransition):
  // `m` is pending meanwhile; on success `target` becomes its state.
  void store(const MetaPtr& m, TxnValue target, std::function<void(KafkaError)> done);
  // Prepare (written), markers, complete: the end of a transaction.
  void prepare_end(const MetaPtr& m, bool commit, bool bump,
                   std::function<void(PidAndEpoch)> done);
  void send_markers(const MetaPtr& m);
  void complete(const MetaPtr& m);
  void retry_later(const MetaPtr& m, std::function<void()> again);
  void fence_and_abort(const MetaPtr& m);
  void expire(int32_t partition, int64_t now);
  void arm(int32_t partition);
  TxnValue value_of(const Metadata& m) const;

  TxnConfig config_;
  TxnLog& log_;
  MarkerWriter& markers_;
  ExecutorFor executor_for_;
  NextProducerId next_producer_id_;
  Clock clock_;
  std::vector<std::unique_ptr<PartitionState>> parts_;
};

}  // namespace strata::txn

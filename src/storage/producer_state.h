// A partition's producer state, as Kafka keeps it (ProducerStateManager,
// ProducerStateEntry, BatchMetadata), and Kafka's rules for a client's idempotent or
// transactional batch and for a transaction marker (ProducerAppendInfo): duplicates of
// the last five batches, epochs, sequences, open transactions, coordinator epochs.
// docs/formats/producer-snapshot.md describes the state and its snapshot file.
//
// Threading: owned by a Log, used on its partition's shard only.
#pragma once

#include <array>
#include <map>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/kafka_errors.h"
#include "common/types.h"
#include "record/batch_view.h"

namespace strata::storage {

// Why a client's idempotent batch is refused; the values are Kafka's error codes.
enum class ProducerErrc : int16_t {
  kNone = kafka_error::kNone,
  kOutOfOrderSequence = kafka_error::kOutOfOrderSequenceNumber,
  kInvalidProducerEpoch = kafka_error::kInvalidProducerEpoch,  // an older, fenced producer
  kInvalidTxnState = kafka_error::kInvalidTxnState,  // non-transactional data in a transaction
  kTransactionCoordinatorFenced = kafka_error::kTransactionCoordinatorFenced,  // older coordinator
};

// Kafka's AppendOrigin, for the producer checks of an append: a client's batches get them
// all; a coordinator's own writes to its internal topic (transactional offset commits,
// written with base sequence 0 each time) no duplicate or sequence checks, but still the
// producer epoch and transaction state checks.
enum class AppendOrigin : uint8_t { kClient, kCoordinator };

// Kafka's NUM_BATCHES_TO_RETAIN: an idempotent producer has at most 5 requests in flight,
// so a retry is always one of its last 5 batches.
inline constexpr size_t kProducerBatchesRetained = 5;

// Kafka's producer.id.expiration.ms and producer.id.expiration.check.interval.ms defaults.
inline constexpr int64_t kProducerIdExpirationMsDefault = 86400000;
inline constexpr int64_t kProducerIdExpirationCheckIntervalMs = 600000;

// Kafka's BatchMetadata: one batch a producer wrote.
struct ProducerBatch {
  Sequence last_sequence = kNoSequence;
  Offset last_offset{-1};
  int32_t offset_delta = 0;  // last offset - first offset
  int64_t max_timestamp = -1;

  // lastSequence - offsetDelta, wrapping below 0 to INT32_MAX as sequences wrap.
  Sequence first_sequence() const;
  Offset first_offset() const { return Offset(last_offset.value() - offset_delta); }
  bool operator==(const ProducerBatch&) const = default;
};

// The producer fields of a v2 batch header: all the rules need.
struct IdempotentBatch {
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch epoch = kNoProducerEpoch;
  Sequence first_sequence = kNoSequence;
  Sequence last_sequence = kNoSequence;  // wraps past INT32_MAX to 0
  int32_t offset_delta = 0;              // the batch's lastOffsetDelta
  int64_t max_timestamp = -1;
  bool transactional = false;            // attributes bit 4

  static IdempotentBatch of(const record::BatchView& batch);
};

// An end-transaction marker (the one record of a control batch) with its batch's fields.
struct EndTxn {
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch epoch = kNoProducerEpoch;
  int32_t coordinator_epoch = 0;
  bool commit = true;
  int64_t timestamp = -1;  // the marker record's timestamp

  // The marker of a control batch; nullopt for an empty control batch (its transaction
  // was cleaned away) or one whose record is not a COMMIT/ABORT marker.
  static std::optional<EndTxn> of(const record::BatchView& batch);
};

// Kafka's CompletedTxn: a transaction a marker ended.
struct CompletedTxn {
  ProducerId producer_id;
  Offset first_offset;  // of its first data batch
  Offset last_offset;   // the marker's offset
  bool aborted = false;
};

// Kafka's ProducerStateEntry: one producer's epoch and its last batches, oldest first.
class ProducerEntry {
 public:
  ProducerEpoch epoch = kNoProducerEpoch;
  int32_t coordinator_epoch = -1;
  int64_t last_timestamp = -1;                  // max timestamp of the last write
  Offset current_txn_first_offset{-1};          // -1: no open transaction

  std::span<const ProducerBatch> batches() const { return {batches_.data(), count_}; }
  bool empty() const { return count_ == 0; }
  // The last batch's last sequence; kNoSequence with no batch.
  Sequence last_sequence() const;
  // Kafka's addBatch: a different epoch drops the old epoch's batches; only the last
  // kProducerBatchesRetained are kept.
  void add_batch(ProducerEpoch batch_epoch, const ProducerBatch& batch);
  // add_batch for a data batch whose last offset is `last_offset`; a transactional one
  // opens a transaction at its first offset if none is open (Kafka's appendDataBatch).
  void add_data_batch(const IdempotentBatch& batch, Offset last_offset);
  // Kafka's ProducerStateEntry.update for a marker: a new epoch drops the batches; the
  // coordinator epoch is recorded; no transaction is open after it.
  void end_txn(const EndTxn& marker);
  // The retained batch with the same epoch and first and last sequence, if any.
  const ProducerBatch* find_duplicate(const IdempotentBatch& batch) const;

 private:
  std::array<ProducerBatch, kProducerBatchesRetained> batches_{};
  size_t count_ = 0;
};

// The outcome of checking a client's idempotent batch.
struct ProducerCheck {
  ProducerErrc error = ProducerErrc::kNone;
  // Set when the batch is a retry of this already-written batch: the caller answers
  // success with its offsets and writes nothing.
  std::optional<ProducerBatch> duplicate;
  // Set with kOutOfOrderSequence when the batch's sequences are those of this batch of a
  // transaction that has ended: a producer reusing sequences, not retrying (see check()).
  std::optional<ProducerBatch> reused;
};

// Kafka's checkProducerEpoch + checkSequence for a client's data batch.
// `updated` is the producer's entry including batches checked earlier in the same append
// (or its committed entry); `committed_epoch` is the epoch before this append began
// (kNoProducerEpoch for a producer not in the state).
ProducerErrc check_sequence(const ProducerEntry& updated, ProducerEpoch committed_epoch,
                            const IdempotentBatch& batch);

class ProducerState {
 public:
  const ProducerEntry* find(ProducerId id) const;
  // Checks a client's batch against the state: duplicate, error, or fine (epoch and
  // sequence, then no non-transactional data inside an open transaction: Kafka's
  // appendDataBatch). `pending`, if given, is the producer's entry with the earlier
  // batches of the same append.
  ProducerCheck check(const IdempotentBatch& batch, const ProducerEntry* pending = nullptr,
                      AppendOrigin origin = AppendOrigin::kClient) const;
  // Records a written batch whose last offset is `last_offset` (no checks: used after a
  // successful append, and to replay the log, as Kafka's REPLICATION origin does).
  void update(const IdempotentBatch& batch, Offset last_offset);
  // Replays one data batch of the log: a batch with a producer id updates its producer;
  // others change nothing. Control batches go to end_txn.
  void replay(const record::BatchView& batch);
  // Kafka's appendEndTxnMarker checks for a marker the broker is about to write: an
  // older producer epoch, or an older coordinator epoch than the producer's last marker.
  ProducerErrc check_marker(const EndTxn& marker) const;
  // Applies a written marker at `offset` (no checks); the transaction it ended, if the
  // producer had one open (Kafka emits none for an empty transaction).
  std::optional<CompletedTxn> end_txn(const EndTxn& marker, Offset offset);
  // Kafka's lastStableOffset(completedTxn): the first offset of the earliest open
  // transaction of another producer, else the marker's offset + 1.
  Offset last_stable_offset(const CompletedTxn& txn) const;
  // The first offset of the earliest open transaction; nullopt if none is open.
  std::optional<Offset> first_unstable_offset() const;
  // Open transactions: first offset -> producer (Kafka's ongoingTxns).
  const std::map<Offset, ProducerId>& ongoing() const { return ongoing_; }
  // Sets a producer's whole entry (a snapshot being loaded, an append being committed).
  void put(ProducerId id, const ProducerEntry& entry);
  // Forgets producers idle for `expiration_ms` or more (by their last batch's timestamp)
  // that have no open transaction; returns how many.
  size_t remove_expired(int64_t now_ms, int64_t expiration_ms);
  void clear() {
    producers_.clear();
    ongoing_.clear();
  }
  size_t size() const { return producers_.size(); }
  bool empty() const { return producers_.empty(); }
  // The entries by increasing producer id (the order snapshots are written in).
  std::vector<std::pair<ProducerId, const ProducerEntry*>> sorted() const;

 private:
  // Keeps ongoing_ in step when a producer's open transaction changes.
  void track_txn(ProducerId id, Offset before, Offset after);

  std::unordered_map<ProducerId, ProducerEntry> producers_;
  std::map<Offset, ProducerId> ongoing_;
};

// Kafka's isProducerExpired.
bool producer_expired(const ProducerEntry& entry, int64_t now_ms, int64_t expiration_ms);

// The producer-state changes of one Log::append (Kafka's map of ProducerAppendInfo):
// each batch is checked against the state and the batches staged before it, and the
// whole lot is applied only once the batches are written. Reused between appends so an
// idempotent append allocates nothing once warm.
class ProducerAppend {
 public:
  // Checks `batch`, which will be written with `last_offset` as its last offset; stages
  // it when it passes (not when it is a duplicate or refused).
  ProducerCheck stage(const ProducerState& state, const IdempotentBatch& batch, Offset last_offset,
                      AppendOrigin origin = AppendOrigin::kClient);
  // Applies the staged batches; clears.
  void commit(ProducerState& state);
  void clear() { staged_.clear(); }
  bool empty() const { return staged_.empty(); }

 private:
  struct Staged {
    ProducerId id;
    ProducerEntry entry;
  };
  std::vector<Staged> staged_;
};

}  // namespace strata::storage

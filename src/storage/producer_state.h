// A partition's idempotent-producer state, as Kafka keeps it (ProducerStateManager,
// ProducerStateEntry, BatchMetadata), and Kafka's rules for a client's idempotent batch
// (ProducerAppendInfo): duplicates of the last five batches, epochs, sequences.
// docs/formats/producer-snapshot.md describes the state and its snapshot file.
//
// Transactions are not handled yet: the fields Kafka keeps for them (coordinator epoch,
// first offset of the open transaction) are carried and snapshotted, nothing sets them.
//
// Threading: owned by a Log, used on its partition's shard only.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/types.h"
#include "record/batch_view.h"

namespace strata::storage {

// Why a client's idempotent batch is refused; the values are Kafka's error codes.
enum class ProducerErrc : int16_t {
  kNone = 0,
  kOutOfOrderSequence = 45,   // OUT_OF_ORDER_SEQUENCE_NUMBER
  kInvalidProducerEpoch = 47, // INVALID_PRODUCER_EPOCH (an older, fenced producer)
};

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

  static IdempotentBatch of(const record::BatchView& batch);
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
};

// Kafka's checkProducerEpoch + checkSequence for a client's non-transactional batch.
// `updated` is the producer's entry including batches checked earlier in the same append
// (or its committed entry); `committed_epoch` is the epoch before this append began
// (kNoProducerEpoch for a producer not in the state).
ProducerErrc check_sequence(const ProducerEntry& updated, ProducerEpoch committed_epoch,
                            const IdempotentBatch& batch);

class ProducerState {
 public:
  const ProducerEntry* find(ProducerId id) const;
  // Checks a client's batch against the state: duplicate, error, or fine. `pending`, if
  // given, is the producer's entry with the earlier batches of the same append.
  ProducerCheck check(const IdempotentBatch& batch, const ProducerEntry* pending = nullptr) const;
  // Records a written batch whose last offset is `last_offset` (no checks: used after a
  // successful append, and to replay the log, as Kafka's REPLICATION origin does).
  void update(const IdempotentBatch& batch, Offset last_offset);
  // Replays one batch of the log: an idempotent data batch updates its producer; other
  // batches (no producer id, control batches until transactions exist) change nothing.
  void replay(const record::BatchView& batch);
  // Sets a producer's whole entry (a snapshot being loaded, an append being committed).
  void put(ProducerId id, const ProducerEntry& entry) { producers_[id] = entry; }
  // Forgets producers idle for `expiration_ms` or more (by their last batch's timestamp)
  // that have no open transaction; returns how many.
  size_t remove_expired(int64_t now_ms, int64_t expiration_ms);
  void clear() { producers_.clear(); }
  size_t size() const { return producers_.size(); }
  bool empty() const { return producers_.empty(); }
  // The entries by increasing producer id (the order snapshots are written in).
  std::vector<std::pair<ProducerId, const ProducerEntry*>> sorted() const;

 private:
  std::unordered_map<ProducerId, ProducerEntry> producers_;
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
  ProducerCheck stage(const ProducerState& state, const IdempotentBatch& batch, Offset last_offset);
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

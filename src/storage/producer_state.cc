#include "storage/producer_state.h"

#include <algorithm>
#include <cassert>

#include "record/control.h"

namespace strata::storage {

namespace {

// Kafka's inSequence: next follows last, and INT32_MAX is followed by 0.
bool in_sequence(Sequence last, Sequence next) {
  return int64_t(next.value()) == int64_t(last.value()) + 1 ||
         (next.value() == 0 && last.value() == INT32_MAX);
}

}  // namespace

Sequence ProducerBatch::first_sequence() const {
  // Kafka's DefaultRecordBatch.decrementSequence.
  // In 64 bits, then wrapped to 32 as Java's int arithmetic does: a snapshot may carry
  // any values, and signed overflow must not happen here.
  const int64_t last = last_sequence.value();
  int64_t first = last - offset_delta;
  if (last < offset_delta) first += int64_t(INT32_MAX) + 1;
  return Sequence(int32_t(uint32_t(uint64_t(first))));
}

IdempotentBatch IdempotentBatch::of(const record::BatchView& batch) {
  IdempotentBatch b;
  b.producer_id = batch.producer_id();
  b.epoch = batch.producer_epoch();
  b.first_sequence = batch.base_sequence();
  b.last_sequence = batch.last_sequence();
  b.offset_delta = batch.last_offset_delta();
  b.max_timestamp = batch.max_timestamp();
  b.transactional = batch.is_transactional();
  return b;
}

std::optional<EndTxn> EndTxn::of(const record::BatchView& batch) {
  std::vector<uint8_t> scratch;
  auto records = record::uncompressed_records(batch, scratch);
  if (!records) return std::nullopt;
  record::RecordCursor cursor(*records, batch.record_count());
  record::RecordView r;
  auto more = cursor.next(r);
  if (!more || !*more) return std::nullopt;
  auto key = record::parse_control_key(r.key);
  if (!key || !key->is_end_txn()) return std::nullopt;
  auto marker = record::parse_end_txn_marker(*key, r.value);
  if (!marker) return std::nullopt;
  EndTxn m;
  m.producer_id = batch.producer_id();
  m.epoch = batch.producer_epoch();
  m.coordinator_epoch = marker->coordinator_epoch;
  m.commit = marker->type == record::ControlType::kCommit;
  m.timestamp = batch.timestamp_of(r);
  return m;
}

Sequence ProducerEntry::last_sequence() const {
  return count_ == 0 ? kNoSequence : batches_[count_ - 1].last_sequence;
}

void ProducerEntry::add_batch(ProducerEpoch batch_epoch, const ProducerBatch& batch) {
  if (batch_epoch != epoch) {
    epoch = batch_epoch;
    count_ = 0;
  }
  if (count_ == kProducerBatchesRetained) {
    std::move(batches_.begin() + 1, batches_.end(), batches_.begin());
    --count_;
  }
  batches_[count_++] = batch;
  last_timestamp = batch.max_timestamp;
}

void ProducerEntry::add_data_batch(const IdempotentBatch& batch, Offset last_offset) {
  add_batch(batch.epoch,
            {batch.last_sequence, last_offset, batch.offset_delta, batch.max_timestamp});
  if (batch.transactional && current_txn_first_offset.value() < 0) {
    current_txn_first_offset = Offset(last_offset.value() - batch.offset_delta);
  }
}

void ProducerEntry::end_txn(const EndTxn& marker) {
  if (marker.epoch != epoch) {
    epoch = marker.epoch;
    count_ = 0;
  }
  coordinator_epoch = marker.coordinator_epoch;
  current_txn_first_offset = Offset(-1);
  last_timestamp = marker.timestamp;
}

const ProducerBatch* ProducerEntry::find_duplicate(const IdempotentBatch& batch) const {
  if (batch.epoch != epoch) return nullptr;
  for (const ProducerBatch& b : batches()) {
    if (b.first_sequence() == batch.first_sequence && b.last_sequence == batch.last_sequence) {
      return &b;
    }
  }
  return nullptr;
}

ProducerErrc check_sequence(const ProducerEntry& updated, ProducerEpoch committed_epoch,
                            const IdempotentBatch& batch) {
  // A fenced (older) producer instance.
  if (batch.epoch < updated.epoch) return ProducerErrc::kInvalidProducerEpoch;
  if (batch.epoch != updated.epoch) {
    // A new epoch restarts at sequence 0, except for a producer with no epoch yet.
    const bool known = updated.epoch != kNoProducerEpoch;
    return known && batch.first_sequence.value() != 0 ? ProducerErrc::kOutOfOrderSequence
                                                       : ProducerErrc::kNone;
  }
  // Same epoch: the next sequence, unless the producer had no epoch before this append
  // (unknown, expired, or all its batches deleted): then any sequence is accepted, as
  // Kafka does since KIP-360 instead of answering UNKNOWN_PRODUCER_ID.
  if (committed_epoch == kNoProducerEpoch) return ProducerErrc::kNone;
  return in_sequence(updated.last_sequence(), batch.first_sequence)
             ? ProducerErrc::kNone
             : ProducerErrc::kOutOfOrderSequence;
}

const ProducerEntry* ProducerState::find(ProducerId id) const {
  auto it = producers_.find(id);
  return it == producers_.end() ? nullptr : &it->second;
}

ProducerCheck ProducerState::check(const IdempotentBatch& batch, const ProducerEntry* pending,
                                   AppendOrigin origin) const {
  assert(batch.producer_id.value() >= 0);
  static const ProducerEntry kUnknown;
  const ProducerEntry* committed = find(batch.producer_id);
  ProducerCheck c;
  // Kafka looks for a duplicate among the written batches only, before any other check.
  const bool client = origin == AppendOrigin::kClient;
  if (client && committed != nullptr) {
    if (const ProducerBatch* dup = committed->find_duplicate(batch)) {
      // A transactional batch matching a batch of a transaction that has ended is no
      // retry: a producer ends a transaction only once every batch of it is answered.
      // It is a producer reusing sequences, as librdkafka does when an abort purges
      // batches it had sent once but counts as not written (an error it takes for "not
      // persisted"). Kafka answers it as a duplicate, and the new transaction commits
      // without its records; Strata refuses it as out of order, so the producer fails
      // the transaction instead (issue 16, faults.txn seed 556573946).
      const Offset open = committed->current_txn_first_offset;
      if (batch.transactional && (open.value() < 0 || dup->first_offset() < open)) {
        c.error = ProducerErrc::kOutOfOrderSequence;
        c.reused = *dup;
        return c;
      }
      c.duplicate = *dup;
      return c;
    }
  }
  const ProducerEntry& updated = pending ? *pending : committed ? *committed : kUnknown;
  if (client) {
    c.error = check_sequence(updated, committed ? committed->epoch : kNoProducerEpoch, batch);
  } else if (batch.epoch < updated.epoch) {
    c.error = ProducerErrc::kInvalidProducerEpoch;
  }
  // Kafka's appendDataBatch: no non-transactional data inside an open transaction.
  if (c.error == ProducerErrc::kNone && !batch.transactional &&
      updated.current_txn_first_offset.value() >= 0) {
    c.error = ProducerErrc::kInvalidTxnState;
  }
  return c;
}

void ProducerState::update(const IdempotentBatch& batch, Offset last_offset) {
  assert(batch.producer_id.value() >= 0);
  ProducerEntry& entry = producers_[batch.producer_id];
  const Offset before = entry.current_txn_first_offset;
  entry.add_data_batch(batch, last_offset);
  track_txn(batch.producer_id, before, entry.current_txn_first_offset);
}

void ProducerState::put(ProducerId id, const ProducerEntry& entry) {
  ProducerEntry& slot = producers_[id];
  const Offset before = slot.current_txn_first_offset;
  slot = entry;
  track_txn(id, before, entry.current_txn_first_offset);
}

void ProducerState::track_txn(ProducerId id, Offset before, Offset after) {
  if (before == after) return;
  if (before.value() >= 0) ongoing_.erase(before);
  if (after.value() >= 0) ongoing_[after] = id;
}

ProducerErrc ProducerState::check_marker(const EndTxn& marker) const {
  const ProducerEntry* entry = find(marker.producer_id);
  if (entry == nullptr) return ProducerErrc::kNone;
  if (marker.epoch < entry->epoch) return ProducerErrc::kInvalidProducerEpoch;
  if (entry->coordinator_epoch > marker.coordinator_epoch) {
    return ProducerErrc::kTransactionCoordinatorFenced;
  }
  return ProducerErrc::kNone;
}

std::optional<CompletedTxn> ProducerState::end_txn(const EndTxn& marker, Offset offset) {
  assert(marker.producer_id.value() >= 0);
  ProducerEntry& entry = producers_[marker.producer_id];
  const Offset first = entry.current_txn_first_offset;
  entry.end_txn(marker);
  track_txn(marker.producer_id, first, entry.current_txn_first_offset);
  if (first.value() < 0) return std::nullopt;
  return CompletedTxn{marker.producer_id, first, offset, !marker.commit};
}

Offset ProducerState::last_stable_offset(const CompletedTxn& txn) const {
  for (const auto& [first, id] : ongoing_) {
    if (id != txn.producer_id) return first;
  }
  return Offset(txn.last_offset.value() + 1);
}

std::optional<Offset> ProducerState::first_unstable_offset() const {
  if (ongoing_.empty()) return std::nullopt;
  return ongoing_.begin()->first;
}

void ProducerState::replay(const record::BatchView& batch) {
  if (batch.producer_id().value() < 0 || batch.is_control()) return;
  update(IdempotentBatch::of(batch), batch.last_offset());
}

bool producer_expired(const ProducerEntry& entry, int64_t now_ms, int64_t expiration_ms) {
  return entry.current_txn_first_offset.value() < 0 &&
         now_ms - entry.last_timestamp >= expiration_ms;
}

size_t ProducerState::remove_expired(int64_t now_ms, int64_t expiration_ms) {
  return std::erase_if(producers_, [&](const auto& p) {
    return producer_expired(p.second, now_ms, expiration_ms);
  });
}

std::vector<std::pair<ProducerId, const ProducerEntry*>> ProducerState::sorted() const {
  std::vector<std::pair<ProducerId, const ProducerEntry*>> out;
  out.reserve(producers_.size());
  for (const auto& [id, entry] : producers_) out.emplace_back(id, &entry);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

ProducerCheck ProducerAppend::stage(const ProducerState& state, const IdempotentBatch& batch,
                                    Offset last_offset, AppendOrigin origin) {
  auto it = std::find_if(staged_.begin(), staged_.end(),
                         [&](const Staged& s) { return s.id == batch.producer_id; });
  ProducerCheck c = state.check(batch, it == staged_.end() ? nullptr : &it->entry, origin);
  if (c.duplicate || c.error != ProducerErrc::kNone) return c;
  if (it == staged_.end()) {
    const ProducerEntry* committed = state.find(batch.producer_id);
    it = staged_.insert(staged_.end(), {batch.producer_id, committed ? *committed : ProducerEntry{}});
  }
  it->entry.add_data_batch(batch, last_offset);
  return c;
}

void ProducerAppend::commit(ProducerState& state) {
  for (const Staged& s : staged_) state.put(s.id, s.entry);
  staged_.clear();
}

}  // namespace strata::storage

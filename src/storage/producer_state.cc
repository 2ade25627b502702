#include "storage/producer_state.h"

#include <algorithm>
#include <cassert>

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
  return b;
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

ProducerCheck ProducerState::check(const IdempotentBatch& batch,
                                   const ProducerEntry* pending) const {
  assert(batch.producer_id.value() >= 0);
  static const ProducerEntry kUnknown;
  const ProducerEntry* committed = find(batch.producer_id);
  ProducerCheck c;
  // Kafka looks for a duplicate among the written batches only, before any other check.
  if (committed != nullptr) {
    if (const ProducerBatch* dup = committed->find_duplicate(batch)) {
      c.duplicate = *dup;
      return c;
    }
  }
  const ProducerEntry& updated = pending ? *pending : committed ? *committed : kUnknown;
  c.error = check_sequence(updated, committed ? committed->epoch : kNoProducerEpoch, batch);
  return c;
}

void ProducerState::update(const IdempotentBatch& batch, Offset last_offset) {
  assert(batch.producer_id.value() >= 0);
  producers_[batch.producer_id].add_batch(
      batch.epoch, {batch.last_sequence, last_offset, batch.offset_delta, batch.max_timestamp});
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
                                    Offset last_offset) {
  auto it = std::find_if(staged_.begin(), staged_.end(),
                         [&](const Staged& s) { return s.id == batch.producer_id; });
  ProducerCheck c = state.check(batch, it == staged_.end() ? nullptr : &it->entry);
  if (c.duplicate || c.error != ProducerErrc::kNone) return c;
  if (it == staged_.end()) {
    const ProducerEntry* committed = state.find(batch.producer_id);
    it = staged_.insert(staged_.end(), {batch.producer_id, committed ? *committed : ProducerEntry{}});
  }
  it->entry.add_batch(batch.epoch, {batch.last_sequence, last_offset, batch.offset_delta,
                                    batch.max_timestamp});
  return c;
}

void ProducerAppend::commit(ProducerState& state) {
  for (const Staged& s : staged_) state.put(s.id, s.entry);
  staged_.clear();
}

}  // namespace strata::storage

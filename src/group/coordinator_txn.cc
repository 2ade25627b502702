// Transactional offset commits (TxnOffsetCommit): written as a transactional batch of
// the producer, held pending, and applied or dropped when the transaction's marker
// reaches the group's __consumer_offsets partition, as Kafka's GroupMetadata does
// with its pendingTransactionalOffsetCommits.
#include <spdlog/spdlog.h>

#include "group/coordinator.h"
#include "group/errors.h"
#include "group/loading.h"

namespace strata::group {

// Kafka's doTxnCommitOffsets checks: a group that does not exist yet is created (a
// transactional producer may commit for a group no consumer joined); v3 requests
// naming a member and generation are checked against the group like OffsetCommit (a
// consumer-protocol group's member against its epoch).
void GroupCoordinator::txn_commit(TxnCommitRequest r,
                                  std::function<void(std::vector<KafkaError>)> done) {
  auto all = [&](KafkaError e) { done(std::vector<KafkaError>(r.partitions.size(), e)); };
  GroupPtr g = get_or_create(r.group_id);
  if (g->state == GroupState::kDead) return all(errc::kCoordinatorNotAvailable);
  if (g->consumer) {
    // A consumer-protocol group (KIP-848): a named member must exist and commit at its
    // epoch (ILLEGAL_GENERATION otherwise, which transactional clients abort on).
    if (!r.member_id.empty()) {
      auto it = g->consumer->members.find(r.member_id);
      if (it == g->consumer->members.end()) return all(errc::kUnknownMemberId);
      if (r.generation >= 0 && r.generation != it->second.epoch) return all(errc::kIllegalGeneration);
    }
  } else {
    if (g->is_static_member_fenced(r.group_instance_id, r.member_id)) {
      return all(errc::kFencedInstanceId);
    }
    if (!r.member_id.empty() && !g->has(r.member_id)) return all(errc::kUnknownMemberId);
    if (r.generation >= 0 && r.generation != g->generation) return all(errc::kIllegalGeneration);
  }
  std::vector<KafkaError> errors(r.partitions.size(), errc::kNone);
  std::vector<OffsetsLog::Record> records;
  std::vector<size_t> written;
  const int64_t now = wall_ms();
  for (size_t i = 0; i < r.partitions.size(); ++i) {
    const CommitPartition& p = r.partitions[i];
    if (p.metadata.size() > size_t(config_.offset_metadata_max_bytes)) {
      errors[i] = errc::kOffsetMetadataTooLarge;
      continue;
    }
    OffsetValue v{p.offset, p.leader_epoch, p.metadata, now, -1};
    records.push_back({encode_key(OffsetKey{g->id, p.topic, p.partition}), encode_value(v)});
    written.push_back(i);
  }
  if (records.empty()) return done(std::move(errors));
  // Pending from now on (Kafka's prepareTxnOffsetCommit), not from when the write is
  // durable: a marker for the producer may reach the partition meanwhile (a fenced or
  // timed-out transaction is aborted without waiting), and must find these offsets.
  const int64_t pid = r.producer_id;
  auto& pending = g->pending_txn_offsets[pid];
  for (size_t i : written) {
    const CommitPartition& p = r.partitions[i];
    pending[{p.topic, p.partition}] = CommittedOffset{p.offset, p.leader_epoch, p.metadata, now, -1};
  }
  log_.append_transactional(
      g->partition, pid, r.producer_epoch, std::move(records),
      [g, pid, errors = std::move(errors), written = std::move(written),
       partitions = std::move(r.partitions), done = std::move(done)](KafkaError error) mutable {
        // Kafka's mapping for offset appends (storeOffsets), and the producer's errors
        // as the partition gave them.
        const KafkaError e = commit_store_error(error);
        if (e != errc::kNone) {
          // Not written: these offsets are not part of the transaction after all.
          auto it = g->pending_txn_offsets.find(pid);
          if (it != g->pending_txn_offsets.end()) {
            for (size_t i : written) it->second.erase({partitions[i].topic, partitions[i].partition});
            if (it->second.empty()) g->pending_txn_offsets.erase(it);
          }
        }
        for (size_t i : written) errors[i] = e;
        done(std::move(errors));
      });
}

void GroupCoordinator::complete_txn(int32_t partition, int64_t producer_id, bool commit) {
  for (const auto& [id, g] : groups_[size_t(partition)]) {
    auto it = g->pending_txn_offsets.find(producer_id);
    if (it == g->pending_txn_offsets.end()) continue;
    if (commit) {
      for (auto& [tp, o] : it->second) g->offsets[tp] = std::move(o);
    }
    g->pending_txn_offsets.erase(it);
  }
}

void GroupCoordinator::replay_txn(int32_t partition, int64_t producer_id, Bytes key,
                                  std::optional<Bytes> value) {
  auto& slot = loading_[size_t(partition)];
  if (!slot) slot = std::make_unique<Loading>();
  auto k = decode_key(key);
  if (!k || !value) return;  // transactional batches hold offset commits only
  const auto* ok = std::get_if<OffsetKey>(&*k);
  if (ok == nullptr) return;
  auto v = decode_offset_value(*value);
  if (!v) {
    spdlog::warn("{}-{}: skipping a transactional offset of group {}: {}", kOffsetsTopic,
                 partition, ok->group, v.error());
    return;
  }
  slot->pending[producer_id][ok->group][{ok->topic, ok->partition}] =
      CommittedOffset{v->offset, v->leader_epoch, v->metadata, v->commit_timestamp, -1};
}

void GroupCoordinator::replay_marker(int32_t partition, int64_t producer_id, bool commit) {
  auto& slot = loading_[size_t(partition)];
  if (!slot) return;
  auto it = slot->pending.find(producer_id);
  if (it == slot->pending.end()) return;
  if (commit) {
    for (auto& [group, offsets] : it->second) {
      for (auto& [tp, o] : offsets) slot->offsets[group][tp] = std::move(o);
    }
  }
  slot->pending.erase(it);
}

}  // namespace strata::group

// The end of a transaction: EndTxn, the coordinator's own aborts (fencing by a new
// InitProducerId, timeouts), markers, completion, and the expiry of idle ids.
#include <spdlog/spdlog.h>

#include "txn/coordinator.h"
#include "txn/errors.h"
#include "txn/metadata.h"

namespace strata::txn {

namespace {

bool completed(TxnState s) { return s == TxnState::kCompleteCommit || s == TxnState::kCompleteAbort; }
bool preparing(TxnState s) { return s == TxnState::kPrepareCommit || s == TxnState::kPrepareAbort; }

}  // namespace

// Kafka's handleEndTransaction. TV1 (`bump_epoch` false): the producer's epoch must be
// current; a retry after completion succeeds if it asks for the same outcome. TV2: the
// epoch one below the current is a retry of the EndTxn that bumped it (answered with
// the current epoch when the outcome matches); any other stale epoch is fenced. An
// abort with nothing ongoing is allowed under TV2 and bumps the epoch.
void TxnCoordinator::end_txn(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                             bool commit, bool bump_epoch,
                             std::function<void(PidAndEpoch)> done) {
  MetaPtr m = find(id);
  if (!m) return done({errc::kInvalidProducerIdMapping});
  const TxnState want = commit ? TxnState::kCompleteCommit : TxnState::kCompleteAbort;
  const TxnState want_prepare = commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort;
  const bool tv2_retry = bump_epoch &&
                         (completed(m->state) || preparing(m->state)) &&
                         ((producer_id == m->producer_id && producer_epoch == m->epoch - 1) ||
                          (producer_id == m->previous_producer_id && m->epoch == 0));
  if (!tv2_retry) {
    if (producer_id != m->producer_id) return done({errc::kInvalidProducerIdMapping});
    if (producer_epoch != m->epoch) return done({errc::kProducerFenced});
  }
  // A retry of the EndTxn whose markers are being written: answered once complete.
  if (completing(*m) && m->state == want_prepare) {
    m->after_complete.push_back(
        {[this, id, producer_id, producer_epoch, commit, bump_epoch, done] {
           end_txn(id, producer_id, producer_epoch, commit, bump_epoch, done);
         },
         [done] { done({errc::kConcurrentTransactions}); }});
    return;
  }
  if (m->pending) return done({errc::kConcurrentTransactions});
  if (tv2_retry) {
    if (m->state == want) return done({errc::kNone, m->producer_id, m->epoch});
    if (m->state == want_prepare) return done({errc::kConcurrentTransactions});
    return done({errc::kInvalidTxnState});
  }
  switch (m->state) {
    case TxnState::kOngoing:
      break;
    case TxnState::kCompleteCommit:
    case TxnState::kCompleteAbort:
    case TxnState::kEmpty:
      if (!bump_epoch) {
        if (m->state == want) return done({errc::kNone, m->producer_id, m->epoch});
        return done({errc::kInvalidTxnState});
      }
      if (commit) return done({errc::kInvalidTxnState});
      break;  // TV2 abort with nothing ongoing: bumps the epoch
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
      if (m->state == want_prepare) return done({errc::kConcurrentTransactions});
      return done({errc::kInvalidTxnState});
    default:
      return done({errc::kInvalidTxnState});
  }
  prepare_end(m, commit, bump_epoch, std::move(done));
}

// Writes PrepareCommit/PrepareAbort, answers once it is durable (as Kafka does: the
// markers follow), then has the markers written and writes the completed state.
// `bump`: the epoch goes up by one (KIP-890); when it is exhausted the prepared value
// keeps the old id at the last epoch and names the next id, which the completion
// switches to at epoch 0 (Kafka's nextProducerId). The markers always carry the
// prepared id and epoch.
void TxnCoordinator::prepare_end(const MetaPtr& m, bool commit, bool bump,
                                 std::function<void(PidAndEpoch)> done) {
  TxnValue v = value_of(*m);
  if (bump && epoch_exhausted(m->epoch)) {
    auto next = next_producer_id_();
    if (!next) return done({errc::kUnknownServerError});
    v.next_producer_id = *next;
    v.producer_epoch = kMaxEpoch;
  } else if (bump) {
    v.producer_epoch = int16_t(m->epoch + 1);
  }
  v.state = commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort;
  v.last_update_ms = clock_();
  if (m->state != TxnState::kOngoing) v.partitions.clear();
  store(m, v, [this, m, done = std::move(done)](KafkaError error) {
    if (error != errc::kNone) return done({errc::kCoordinatorNotAvailable});
    if (m->next_producer_id >= 0) {
      done({errc::kNone, m->next_producer_id, 0});
    } else {
      done({errc::kNone, m->producer_id, m->epoch});
    }
    m->pending = true;
    send_markers(m);
  });
}

void TxnCoordinator::send_markers(const MetaPtr& m) {
  MarkerRequest r;
  r.producer_id = m->producer_id;
  r.producer_epoch = m->epoch;
  r.coordinator_epoch = kCoordinatorEpoch;
  r.commit = m->state == TxnState::kPrepareCommit;
  for (const auto& [topic, ps] : m->partitions) r.partitions.push_back({topic, {ps.begin(), ps.end()}});
  if (r.partitions.empty()) return complete(m);
  markers_.write(m->partition, std::move(r), [this, m](KafkaError error) {
    if (error == errc::kNone) return complete(m);
    spdlog::warn("transaction {}: markers not written ({}); retrying", m->id,
                 kafka_error_name(error));
    std::vector<Metadata::Parked> parked;
    parked.swap(m->after_complete);
    for (auto& p : parked) p.give_up();
    retry_later(m, [this, m] { send_markers(m); });
  });
}

void TxnCoordinator::complete(const MetaPtr& m) {
  TxnValue v = value_of(*m);
  v.state = m->state == TxnState::kPrepareCommit ? TxnState::kCompleteCommit
                                                 : TxnState::kCompleteAbort;
  if (m->next_producer_id >= 0) {
    v.previous_producer_id = m->producer_id;
    v.producer_id = m->next_producer_id;
    v.next_producer_id = -1;
    v.producer_epoch = 0;
  }
  v.partitions.clear();
  v.last_update_ms = clock_();
  log_.append(m->partition, encode_txn_key(m->id), encode_txn_value(v),
              [this, m, v](KafkaError error) {
                if (error != errc::kNone) {
                  spdlog::warn("transaction {}: completion not written ({}); retrying",
                               m->id, kafka_error_name(error));
                  return retry_later(m, [this, m] { complete(m); });
                }
                apply_value(*m, v);
                m->pending = false;
                std::vector<Metadata::Parked> parked;
                parked.swap(m->after_complete);
                for (auto& p : parked) p.again();
              });
}

void TxnCoordinator::retry_later(const MetaPtr& m, std::function<void()> again) {
  if (m->unloaded) return;
  if (!m->retry_timer) m->retry_timer = std::make_unique<asio::steady_timer>(executor_for_(m->partition));
  m->retry_timer->expires_after(std::chrono::milliseconds(config_.marker_retry_backoff_ms));
  m->retry_timer->async_wait([again = std::move(again)](std::error_code ec) {
    if (!ec) again();
  });
}

// Kafka's prepareFenceProducerEpoch + abort: the epoch is bumped so that the producer
// of the ongoing transaction is fenced (its next request with the old epoch fails,
// and the markers carry the new epoch to the partitions), then it is aborted.
void TxnCoordinator::fence_and_abort(const MetaPtr& m) {
  m->last_epoch = -1;
  prepare_end(m, false, !epoch_exhausted(m->epoch), [id = m->id](PidAndEpoch r) {
    if (r.error != errc::kNone) {
      spdlog::warn("transaction {}: abort not written ({})", id, kafka_error_name(r.error));
    }
  });
}

void TxnCoordinator::tick(int32_t partition) {
  const int64_t now = clock_();
  std::vector<MetaPtr> timed_out;
  for (const auto& [id, m] : parts_[size_t(partition)]->txns) {
    if (m->state == TxnState::kOngoing && !m->pending && m->start_ms + m->timeout_ms < now) {
      timed_out.push_back(m);
    }
  }
  for (const MetaPtr& m : timed_out) {
    spdlog::info("transaction {} (producer {} epoch {}) timed out after {} ms; aborting", m->id,
                 m->producer_id, m->epoch, m->timeout_ms);
    fence_and_abort(m);
  }
  expire(partition, now);
}

// Kafka's removeExpiredTransactionalIds: an id with nothing ongoing and no change for
// transactional.id.expiration.ms is tombstoned, then forgotten.
void TxnCoordinator::expire(int32_t partition, int64_t now) {
  PartitionState& ps = *parts_[size_t(partition)];
  if (now - ps.last_expire_ms < config_.remove_expired_interval_ms) return;
  ps.last_expire_ms = now;
  std::vector<MetaPtr> idle;
  for (const auto& [id, m] : ps.txns) {
    const bool settled = m->state == TxnState::kEmpty || completed(m->state);
    if (settled && !m->pending && m->last_update_ms + config_.id_expiration_ms <= now) {
      idle.push_back(m);
    }
  }
  for (const MetaPtr& m : idle) {
    m->pending = true;
    log_.append(m->partition, encode_txn_key(m->id), std::nullopt, [this, m](KafkaError error) {
      m->pending = false;
      if (error != errc::kNone) return;
      m->state = TxnState::kDead;
      parts_[size_t(m->partition)]->txns.erase(m->id);
      spdlog::info("transactional id {} expired", m->id);
    });
  }
}

}  // namespace strata::txn

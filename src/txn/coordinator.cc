#include "txn/coordinator.h"

#include <asio/post.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "txn/errors.h"
#include "txn/metadata.h"

namespace strata::txn {

TxnCoordinator::TxnCoordinator(TxnConfig config, TxnLog& log, MarkerWriter& markers,
                               ExecutorFor executor_for, NextProducerId next_producer_id,
                               Clock clock)
    : config_(config), log_(log), markers_(markers), executor_for_(std::move(executor_for)),
      next_producer_id_(std::move(next_producer_id)), clock_(std::move(clock)) {
  for (int32_t p = 0; p < partitions(); ++p) parts_.push_back(std::make_unique<PartitionState>());
}

TxnCoordinator::~TxnCoordinator() = default;

TxnCoordinator::MetaPtr TxnCoordinator::find(const std::string& id) const {
  const auto& txns = parts_[size_t(partition_for(id))]->txns;
  auto it = txns.find(id);
  return it == txns.end() ? nullptr : it->second;
}

TxnValue TxnCoordinator::value_of(const Metadata& m) const {
  TxnValue v;
  v.producer_id = m.producer_id;
  v.previous_producer_id = m.previous_producer_id;
  v.next_producer_id = m.next_producer_id;
  v.producer_epoch = m.epoch;
  v.timeout_ms = m.timeout_ms;
  v.state = m.state;
  for (const auto& [topic, ps] : m.partitions) {
    v.partitions.push_back({topic, std::vector<int32_t>(ps.begin(), ps.end())});
  }
  v.last_update_ms = m.last_update_ms;
  v.start_ms = m.start_ms;
  v.client_transaction_version = m.client_version;
  return v;
}

void apply_value(TxnCoordinator::Metadata& m, const TxnValue& v) {
  m.producer_id = v.producer_id;
  m.previous_producer_id = v.previous_producer_id;
  m.next_producer_id = v.next_producer_id;
  m.epoch = v.producer_epoch;
  m.timeout_ms = v.timeout_ms;
  m.state = v.state;
  m.partitions.clear();
  for (const auto& tp : v.partitions) {
    m.partitions[tp.topic].insert(tp.partitions.begin(), tp.partitions.end());
  }
  m.last_update_ms = v.last_update_ms;
  m.start_ms = v.start_ms;
  m.client_version = v.client_transaction_version;
}

namespace {

// Storage failures of the coordinator's own log: the client retries (Kafka maps them
// to COORDINATOR_NOT_AVAILABLE / NOT_COORDINATOR the same way).
KafkaError retriable(KafkaError error) {
  return error == errc::kNone ? errc::kNone : errc::kCoordinatorNotAvailable;
}

}  // namespace

void TxnCoordinator::store(const MetaPtr& m, TxnValue target, std::function<void(KafkaError)> done) {
  m->pending = true;
  log_.append(m->partition, encode_txn_key(m->id), encode_txn_value(target),
              [m, target, done = std::move(done)](KafkaError error) {
                m->pending = false;
                if (error == errc::kNone) apply_value(*m, target);
                done(error);
              });
}

// ---- InitProducerId

void TxnCoordinator::init_producer_id(InitPidRequest r, std::function<void(PidAndEpoch)> done) {
  if (r.transactional_id.empty()) return done({errc::kInvalidRequest});
  if (r.timeout_ms <= 0 || r.timeout_ms > config_.max_timeout_ms) {
    return done({errc::kInvalidTransactionTimeout});
  }
  const int32_t p = partition_for(r.transactional_id);
  if (!parts_[size_t(p)]->loaded) return done({errc::kCoordinatorNotAvailable});
  if (MetaPtr m = find(r.transactional_id)) return init_existing(m, r, std::move(done));
  auto id = next_producer_id_();
  if (!id) {
    spdlog::error("InitProducerId {}: {}", r.transactional_id, id.error());
    return done({errc::kUnknownServerError});
  }
  auto m = std::make_shared<Metadata>();
  m->id = r.transactional_id;
  m->partition = p;
  m->producer_id = *id;
  m->timeout_ms = r.timeout_ms;
  m->last_update_ms = clock_();
  parts_[size_t(p)]->txns[m->id] = m;
  InitPidRequest fresh = r;
  fresh.producer_id = -1;
  bump_and_store(m, fresh, std::move(done));
}

// Kafka's handleInitProducerId for a known id: a retry of the last init gets the
// current epoch; an ongoing transaction is fenced and aborted first (the producer
// retries on CONCURRENT_TRANSACTIONS); otherwise the epoch is bumped.
void TxnCoordinator::init_existing(const MetaPtr& m, const InitPidRequest& r,
                                   std::function<void(PidAndEpoch)> done) {
  if (m->pending) return done({errc::kConcurrentTransactions});
  const bool expected = r.producer_id >= 0;
  const bool retry = expected && m->last_epoch >= 0 && r.producer_epoch == m->last_epoch &&
                     (r.producer_id == m->producer_id || r.producer_id == m->previous_producer_id);
  if (expected && !retry && !(r.producer_id == m->producer_id && r.producer_epoch == m->epoch)) {
    return done({errc::kProducerFenced});
  }
  switch (m->state) {
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareAbort:
    case TxnState::kPrepareEpochFence:
      return done({errc::kConcurrentTransactions});
    case TxnState::kOngoing:
      fence_and_abort(m);
      return done({errc::kConcurrentTransactions});
    default:
      break;
  }
  if (retry) return done({errc::kNone, m->producer_id, m->epoch});
  bump_and_store(m, r, std::move(done));
}

void TxnCoordinator::bump_and_store(const MetaPtr& m, const InitPidRequest& r,
                                    std::function<void(PidAndEpoch)> done) {
  TxnValue v = value_of(*m);
  int16_t last_epoch = m->epoch;
  if (epoch_exhausted(m->epoch)) {
    auto id = next_producer_id_();
    if (!id) return done({errc::kUnknownServerError});
    v.previous_producer_id = m->producer_id;
    v.producer_id = *id;
    v.producer_epoch = 0;
    last_epoch = -1;
  } else {
    v.producer_epoch = int16_t(m->epoch + 1);
  }
  v.timeout_ms = r.timeout_ms;
  v.state = TxnState::kEmpty;
  v.partitions.clear();
  v.start_ms = -1;
  v.last_update_ms = clock_();
  store(m, v, [m, last_epoch, done = std::move(done)](KafkaError error) {
    if (error != errc::kNone) return done({retriable(error)});
    m->last_epoch = last_epoch;
    done({errc::kNone, m->producer_id, m->epoch});
  });
}

KafkaError TxnCoordinator::check_producer(const Metadata& m, int64_t producer_id,
                                       int16_t producer_epoch) const {
  if (producer_id != m.producer_id) return errc::kInvalidProducerIdMapping;
  if (producer_epoch != m.epoch) return errc::kProducerFenced;
  return errc::kNone;
}

// ---- AddPartitionsToTxn / AddOffsetsToTxn

void TxnCoordinator::add_partitions(const std::string& id, int64_t producer_id,
                                    int16_t producer_epoch,
                                    std::vector<TxnTopicPartitions> partitions,
                                    std::function<void(KafkaError)> done) {
  MetaPtr m = find(id);
  if (!m) return done(errc::kInvalidProducerIdMapping);
  if (KafkaError e = check_producer(*m, producer_id, producer_epoch); e != errc::kNone) {
    return done(e);
  }
  if (completing(*m)) {
    m->after_complete.push_back(
        {[this, id, producer_id, producer_epoch, partitions, done] {
           add_partitions(id, producer_id, producer_epoch, partitions, done);
         },
         [done] { done(errc::kConcurrentTransactions); }});
    return;
  }
  if (m->pending || m->state == TxnState::kPrepareCommit || m->state == TxnState::kPrepareAbort) {
    return done(errc::kConcurrentTransactions);
  }
  if (m->state == TxnState::kDead || m->state == TxnState::kPrepareEpochFence) {
    return done(errc::kInvalidTxnState);
  }
  const bool ongoing = m->state == TxnState::kOngoing;
  bool all_in = ongoing;
  for (const auto& tp : partitions) {
    for (int32_t p : tp.partitions) {
      auto it = m->partitions.find(tp.topic);
      if (it == m->partitions.end() || !it->second.contains(p)) all_in = false;
    }
  }
  if (all_in) return done(errc::kNone);
  TxnValue v = value_of(*m);
  if (!ongoing) v.partitions.clear();
  std::map<std::string, std::set<int32_t>> merged;
  for (const auto& tp : v.partitions) merged[tp.topic].insert(tp.partitions.begin(), tp.partitions.end());
  for (const auto& tp : partitions) merged[tp.topic].insert(tp.partitions.begin(), tp.partitions.end());
  v.partitions.clear();
  for (const auto& [topic, ps] : merged) v.partitions.push_back({topic, {ps.begin(), ps.end()}});
  const int64_t now = clock_();
  v.state = TxnState::kOngoing;
  v.start_ms = ongoing ? m->start_ms : now;
  v.last_update_ms = now;
  store(m, v, [done = std::move(done)](KafkaError error) { done(retriable(error)); });
}

KafkaError TxnCoordinator::verify(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                               const std::string& topic, int32_t partition) const {
  MetaPtr m = find(id);
  if (!m) return errc::kInvalidProducerIdMapping;
  if (KafkaError e = check_producer(*m, producer_id, producer_epoch); e != errc::kNone) return e;
  if (m->state != TxnState::kOngoing) return errc::kInvalidTxnState;
  auto it = m->partitions.find(topic);
  if (it == m->partitions.end() || !it->second.contains(partition)) return errc::kInvalidTxnState;
  return errc::kNone;
}

// ---- Describe / list

TxnDescription TxnCoordinator::describe(const std::string& id) const {
  TxnDescription d;
  MetaPtr m = find(id);
  if (!m || m->state == TxnState::kDead) {
    d.error = errc::kTransactionalIdNotFound;
    return d;
  }
  TxnValue v = value_of(*m);
  d.state = m->state;
  d.producer_id = m->producer_id;
  d.producer_epoch = m->epoch;
  d.timeout_ms = m->timeout_ms;
  d.start_ms = m->start_ms;
  d.partitions = std::move(v.partitions);
  return d;
}

std::vector<TxnListing> TxnCoordinator::list(int32_t partition, const TxnFilter& filter) const {
  std::vector<TxnListing> out;
  const int64_t now = clock_();
  for (const auto& [id, m] : parts_[size_t(partition)]->txns) {
    if (m->state == TxnState::kDead) continue;
    const std::string state = state_name(m->state);
    if (!filter.states.empty() &&
        std::find(filter.states.begin(), filter.states.end(), state) == filter.states.end()) {
      continue;
    }
    if (!filter.producer_ids.empty() &&
        std::find(filter.producer_ids.begin(), filter.producer_ids.end(), m->producer_id) ==
            filter.producer_ids.end()) {
      continue;
    }
    // Kafka's rule (listTransactionStates): dropped when it started at most that long
    // ago; ids with no transaction (start -1) always pass.
    if (filter.min_duration_ms >= 0 && now - m->start_ms <= filter.min_duration_ms) continue;
    out.push_back({id, m->producer_id, m->state});
  }
  return out;
}

// ---- Loading

void TxnCoordinator::replay(int32_t partition, Bytes key, std::optional<Bytes> value) {
  auto id = decode_txn_key(key);
  if (!id) {
    spdlog::warn("{}-{}: skipping a record: {}", kTransactionTopic, partition, id.error());
    return;
  }
  auto& txns = parts_[size_t(partition)]->txns;
  if (!value) {
    txns.erase(*id);
    return;
  }
  auto v = decode_txn_value(*value);
  if (!v) {
    spdlog::warn("{}-{}: skipping the record of {}: {}", kTransactionTopic, partition, *id,
                 v.error());
    return;
  }
  auto& m = txns[*id];
  if (!m) {
    m = std::make_shared<Metadata>();
    m->id = *id;
    m->partition = partition;
  }
  apply_value(*m, *v);
}

void TxnCoordinator::finish_load(int32_t partition) {
  PartitionState& ps = *parts_[size_t(partition)];
  ps.loaded = true;
  ps.last_expire_ms = clock_();
  for (const auto& [id, m] : ps.txns) {
    if (m->state == TxnState::kPrepareCommit || m->state == TxnState::kPrepareAbort) {
      m->pending = true;
      send_markers(m);
    }
  }
  arm(partition);
}

void TxnCoordinator::arm(int32_t partition) {
  PartitionState& ps = *parts_[size_t(partition)];
  if (!ps.timer) ps.timer = std::make_unique<asio::steady_timer>(executor_for_(partition));
  ps.timer->expires_after(std::chrono::milliseconds(config_.abort_timed_out_interval_ms));
  ps.timer->async_wait([this, partition](std::error_code ec) {
    if (ec) return;
    tick(partition);
    arm(partition);
  });
}

void TxnCoordinator::unload(int32_t partition) {
  PartitionState& ps = *parts_[size_t(partition)];
  ps.loaded = false;
  if (ps.timer) ps.timer->cancel();
  std::map<std::string, MetaPtr> gone = std::move(ps.txns);
  ps.txns.clear();
  for (const auto& [id, m] : gone) {
    m->unloaded = true;
    if (m->retry_timer) m->retry_timer->cancel();
    std::vector<Metadata::Parked> parked;
    parked.swap(m->after_complete);
    for (auto& p : parked) p.give_up();
  }
  if (!gone.empty()) spdlog::info("{}-{}: unloaded {} transactional ids", kTransactionTopic, partition, gone.size());
}

void TxnCoordinator::shutdown(int32_t partition) {
  PartitionState& ps = *parts_[size_t(partition)];
  if (ps.timer) ps.timer->cancel();
  for (const auto& [id, m] : ps.txns) {
    if (m->retry_timer) m->retry_timer->cancel();
  }
}

}  // namespace strata::txn

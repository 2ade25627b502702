// One transactional id's state in the coordinator (Kafka's TransactionMetadata).
// Private to src/txn.
#pragma once

#include <asio/steady_timer.hpp>

#include <map>
#include <memory>
#include <set>
#include <functional>
#include <string>
#include <vector>

#include "txn/coordinator.h"

namespace strata::txn {

struct TxnCoordinator::Metadata {
  std::string id;
  int32_t partition = 0;
  int64_t producer_id = -1;
  int64_t previous_producer_id = -1;  // before the epoch ran out and a new id was taken
  int64_t next_producer_id = -1;
  int16_t epoch = -1;
  // The epoch before the last bump by InitProducerId: a producer retrying that
  // InitProducerId (KIP-360) is answered with the current epoch, not fenced.
  int16_t last_epoch = -1;
  int32_t timeout_ms = 0;
  TxnState state = TxnState::kEmpty;
  std::map<std::string, std::set<int32_t>> partitions;
  int64_t start_ms = -1;
  int64_t last_update_ms = -1;
  int16_t client_version = 0;
  // A write or a marker round is in flight (Kafka's pendingState): other requests
  // get CONCURRENT_TRANSACTIONS.
  bool pending = false;
  std::unique_ptr<asio::steady_timer> retry_timer;  // marker or complete retries
  bool unloaded = false;  // its partition was unloaded: nothing is retried for it
  // Requests that arrived while the markers of the ended transaction were being
  // written: run again once it is complete (instead of CONCURRENT_TRANSACTIONS, which
  // clients retry only after 20-100 ms), or answered CONCURRENT_TRANSACTIONS if a
  // marker write fails (the coordinator retries it; the client retries too).
  struct Parked {
    std::function<void()> again;
    std::function<void()> give_up;
  };
  std::vector<Parked> after_complete;
};

// At most this many requests wait for a completion; later ones get
// CONCURRENT_TRANSACTIONS (a producer has one request of the kind in flight; more means
// retries of requests that timed out).
inline constexpr size_t kParkedMax = 8;

// The ended transaction's markers are being written: requests may wait for them.
inline bool completing(const TxnCoordinator::Metadata& m) {
  return m.pending && (m.state == TxnState::kPrepareCommit || m.state == TxnState::kPrepareAbort) &&
         m.after_complete.size() < kParkedMax;
}

// One __transaction_state partition's ids and timer.
struct TxnCoordinator::PartitionState {
  std::map<std::string, MetaPtr> txns;
  std::unique_ptr<asio::steady_timer> timer;
  int64_t last_expire_ms = 0;
  bool loaded = false;
};

// Sets `m` from a stored value (all but the in-memory fields: last_epoch, pending).
void apply_value(TxnCoordinator::Metadata& m, const TxnValue& v);

// The producer's next epoch, or a new producer id when the epoch is exhausted
// (Kafka bumps until Short.MAX_VALUE - 1).
inline constexpr int16_t kMaxEpoch = 32767;
inline bool epoch_exhausted(int16_t epoch) { return epoch >= kMaxEpoch - 1; }

}  // namespace strata::txn

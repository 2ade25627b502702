// Coordinators move with leadership (issue 15): in a cluster, a broker's group or
// transaction coordinator serves an internal-topic partition only while it leads it, and
// only once it has replayed that partition's replicated log at the leader epoch it leads.
//
// For each partition: the epoch wanted (set from each published snapshot: the leader
// epoch if this broker leads it, else none) and the epoch loaded (set on the partition's
// owner shard once the replay is done). Requests check `status` against their snapshot:
// NOT_COORDINATOR when another broker leads, COORDINATOR_LOAD_IN_PROGRESS while this one
// loads, as Kafka answers. The single node loads everything at start and never asks.
//
// Threads: `want` under the broker's publish mutex; `still_wanted`, `loaded` and
// `unloaded` on the owner shard; `status` anywhere (atomics).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "common/kafka_errors.h"

namespace strata::broker {

enum class CoordinatorKind { kGroups, kTxns };  // __consumer_offsets, __transaction_state

class CoordinatorLoads {
 public:
  static constexpr int32_t kNone = -1;

  explicit CoordinatorLoads(int32_t partitions)
      : size_(partitions), wanted_(new std::atomic<int32_t>[size_t(partitions)]),
        loaded_(new std::atomic<int32_t>[size_t(partitions)]) {
    for (int32_t p = 0; p < partitions; ++p) {
      wanted_[size_t(p)] = kNone;
      loaded_[size_t(p)] = kNone;
    }
  }

  int32_t partitions() const { return size_; }

  // What a request for `partition` gets when the snapshot names `leader` at `epoch`.
  KafkaError status(int32_t partition, int32_t self, int32_t leader, int32_t epoch) const {
    if (partition < 0 || partition >= size_ || leader != self) return KafkaError::kNotCoordinator;
    return loaded_[size_t(partition)].load() == epoch ? KafkaError::kNone
                                                      : KafkaError::kCoordinatorLoadInProgress;
  }

  enum class Step { kNothing, kLoad, kUnload };
  // The snapshot says this broker leads `partition` at `epoch` (kNone: it does not lead
  // it): whether a load or an unload is due (one per change of what is wanted).
  Step want(int32_t partition, int32_t epoch) {
    const int32_t before = wanted_[size_t(partition)].exchange(epoch);
    if (before == epoch) return Step::kNothing;
    return epoch == kNone ? Step::kUnload : Step::kLoad;
  }
  // On the owner shard: whether `epoch` is still what is wanted (a later snapshot may
  // have changed it before the posted load ran; the later one's step follows).
  bool still_wanted(int32_t partition, int32_t epoch) const { return wanted_[size_t(partition)].load() == epoch; }
  void loaded(int32_t partition, int32_t epoch) { loaded_[size_t(partition)] = epoch; }
  void unloaded(int32_t partition) { loaded_[size_t(partition)] = kNone; }

 private:
  int32_t size_;
  std::unique_ptr<std::atomic<int32_t>[]> wanted_;
  std::unique_ptr<std::atomic<int32_t>[]> loaded_;
};

}  // namespace strata::broker

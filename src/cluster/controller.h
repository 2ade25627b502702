// The controller's duties (docs/formats/etcd.md, "partition state"): given the current
// view, the partition states that should change, and the fenced transactions that
// write them. Only the broker holding /controller runs them, on its watch thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cluster/etcd_client.h"
#include "cluster/keys.h"
#include "cluster/view.h"

namespace strata::cluster {

struct StateChange {
  std::string topic;
  int32_t partition = 0;
  PartitionState state;
  int64_t mod_revision = 0;  // the state key's revision it replaces; 0: a new key
  bool unclean = false;      // the new leader was not in the ISR
};

// Whether a topic whose ISR has no live member may elect a live replica outside it
// (unclean.leader.election.enable: the topic's override in the view's /config/topics,
// given here, else the controller's broker default). Empty: never.
using UncleanElection = std::function<bool(const std::map<std::string, std::string>& overrides)>;

// What the view calls for: states for new partitions, a new leader (or none) for
// partitions whose leader is gone, a leader for leaderless partitions whose ISR has a
// live broker, and, where `unclean` allows it, the first live replica (in assignment
// order) as leader and sole ISR member of a partition whose ISR has none.
// Pure; ordered by topic and partition.
std::vector<StateChange> plan_state_changes(const ClusterView& v, int64_t controller_epoch,
                                            const UncleanElection& unclean = {});

// Writes `plan(v)`, then the reassignment steps of the same view (reassignment.h), in transactions of at most kStatesPerTxn states, each fenced by
// create_revision(/controller) == epoch. `fenced` once a transaction fails its fence
// (this broker is no longer the controller); a write that lost to a newer one is
// dropped (the change that beat it brings another round). `written` is the revision of
// the last write (0: none): views older than it would plan the same writes again.
struct ControllerRun {
  bool fenced = false;
  int64_t written = 0;
};
ControllerRun run_controller(EtcdClient& etcd, const Keys& keys, const ClusterView& v, int64_t epoch,
                             const UncleanElection& unclean = {});

// Writes `changes` as run_controller does (transactions of at most kStatesPerTxn states,
// each fenced by the controller epoch and each state by its planned revision).
ControllerRun write_state_changes(EtcdClient& etcd, const Keys& keys, const std::vector<StateChange>& changes,
                                  int64_t epoch);

// A transaction fenced by the controller epoch: its first compare is
// create_revision(/controller) == epoch and its failure branch reads /controller, so
// that lost_fence() can tell a deposed controller from a lost compare.
TxnRequest fenced_txn(const Keys& keys, int64_t epoch);
// After a fenced_txn failed: whether /controller is no longer this epoch's.
bool lost_fence(const TxnResult& r, int64_t epoch);

// Deletes /controller if this epoch still holds it (a clean shutdown).
void resign(EtcdClient& etcd, const Keys& keys, int64_t epoch);

// etcd's --max-txn-ops default is 128: one compare is the fence.
inline constexpr size_t kStatesPerTxn = 127;

}  // namespace strata::cluster

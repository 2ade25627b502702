#include "cluster/controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "cluster/reassignment.h"
#include "common/log_limit.h"

namespace strata::cluster {

namespace {

int32_t first_alive(const ClusterView& v, const std::vector<int32_t>& nodes) {
  for (int32_t n : nodes) {
    if (v.alive(n)) return n;
  }
  return -1;
}

// The state of a partition whose leader is gone or absent, after what the view shows of
// its brokers; nullopt if unchanged. `unclean`: with no live ISR member, a live replica
// outside the ISR may lead.
std::optional<PartitionState> next_state(const ClusterView& v, const PartitionState& s,
                                         const std::vector<int32_t>& replicas, bool unclean,
                                         int64_t epoch, bool& elected_unclean) {
  PartitionState n = s;
  n.controller_epoch = epoch;
  if (s.leader >= 0) {
    // The leader is gone: the next live ISR member leads and the dead one leaves the
    // ISR; with none alive the ISR keeps its members and the partition has no leader.
    std::vector<int32_t> live;
    for (int32_t r : s.isr) {
      if (v.alive(r)) live.push_back(r);
    }
    n.leader = live.empty() ? -1 : live.front();
    if (!live.empty()) n.isr = live;
  } else {
    n.leader = first_alive(v, s.isr);
  }
  if (n.leader < 0 && unclean) {
    // Kafka's unclean election: whatever only the ISR held is lost, so the ISR restarts
    // from the new leader alone and the others truncate to it when they return.
    n.leader = first_alive(v, replicas);
    if (n.leader >= 0) {
      n.isr = {n.leader};
      elected_unclean = true;
    }
  }
  if (n.leader < 0 && s.leader < 0) return std::nullopt;  // still no leader to be had
  ++n.leader_epoch;
  ++n.partition_epoch;
  return n;
}

bool unclean_allowed(const ClusterView& v, const std::string& topic, const UncleanElection& unclean) {
  if (!unclean) return false;
  static const std::map<std::string, std::string> kNone;
  auto it = v.configs.find(topic);
  return unclean(it == v.configs.end() ? kNone : it->second.values);
}

}  // namespace

TxnRequest fenced_txn(const Keys& keys, int64_t epoch) {
  TxnRequest t;
  t.compare.push_back({keys.controller(), Compare::Target::kCreate, Compare::Result::kEqual, epoch, ""});
  t.failure.push_back({Op::Kind::kRange, keys.controller(), "", "", 0});
  return t;
}

bool lost_fence(const TxnResult& r, int64_t epoch) {
  return r.ranges.empty() || r.ranges[0].kvs.empty() || r.ranges[0].kvs[0].create_revision != epoch;
}

std::vector<StateChange> plan_state_changes(const ClusterView& v, int64_t controller_epoch,
                                            const UncleanElection& unclean) {
  std::vector<StateChange> out;
  for (const auto& [topic, entry] : v.topics) {
    const auto& replicas = entry.assignment.replicas;
    std::optional<bool> may_unclean;  // asked once per topic, and only if needed
    for (size_t p = 0; p < replicas.size(); ++p) {
      const StateEntry* s = v.state(topic, int32_t(p));
      if (s == nullptr) {
        PartitionState n;
        n.leader = first_alive(v, replicas[p]);
        n.isr = replicas[p];
        n.controller_epoch = controller_epoch;
        out.push_back({topic, int32_t(p), std::move(n), 0});
        continue;
      }
      const PartitionState& st = s->state;
      if (st.leader >= 0 && v.alive(st.leader)) continue;
      if (!may_unclean) may_unclean = unclean_allowed(v, topic, unclean);
      bool elected_unclean = false;
      if (auto n = next_state(v, st, replicas[p], *may_unclean, controller_epoch, elected_unclean)) {
        out.push_back({topic, int32_t(p), std::move(*n), s->mod_revision, elected_unclean});
      }
    }
  }
  return out;
}

// Each state is written only if its key is as planned (create_revision 0 for a new one,
// else its mod_revision): a transaction whose key compare fails is dropped whole, and
// retried by the round the newer write brings. The fence is checked first, so a
// failure is told apart by reading /controller.
ControllerRun run_controller(EtcdClient& etcd, const Keys& keys, const ClusterView& v, int64_t epoch,
                             const UncleanElection& unclean) {
  ControllerRun run = write_state_changes(etcd, keys, plan_state_changes(v, epoch, unclean), epoch);
  if (run.fenced) return run;
  // Moves whose targets caught up (a step that lost to the writes above is planned again
  // from the view they bring).
  const ControllerRun moves = write_reassignment_steps(etcd, keys, plan_reassignment_steps(v, epoch), epoch);
  run.fenced = moves.fenced;
  run.written = std::max(run.written, moves.written);
  return run;
}

ControllerRun write_state_changes(EtcdClient& etcd, const Keys& keys, const std::vector<StateChange>& plan,
                                  int64_t epoch) {
  static LogLimit failures("controller writes failed");
  ControllerRun run;
  for (size_t i = 0; i < plan.size(); i += kStatesPerTxn - 1) {
    TxnRequest t = fenced_txn(keys, epoch);
    const size_t end = std::min(plan.size(), i + kStatesPerTxn - 1);
    for (size_t k = i; k < end; ++k) {
      const StateChange& c = plan[k];
      const std::string key = keys.partition_state(c.topic, c.partition);
      if (c.mod_revision == 0) {
        t.compare.push_back({key, Compare::Target::kCreate, Compare::Result::kEqual, 0, ""});
      } else {
        t.compare.push_back({key, Compare::Target::kMod, Compare::Result::kEqual, c.mod_revision, ""});
      }
      t.success.push_back({Op::Kind::kPut, key, "", encode_partition_state(c.state), 0});
    }
    auto r = etcd.txn(t);
    if (!r) {
      failures.warn("controller: writing partition states: {}", r.error().message);
      return run;  // etcd trouble, not a fence: the next round retries
    }
    if (r->succeeded) {
      run.written = r->revision;
      for (size_t k = i; k < end; ++k) {
        const StateChange& c = plan[k];
        if (!c.unclean) continue;
        spdlog::warn("controller: unclean leader election for {}-{}: broker {} was not in the ISR "
                     "and leads at epoch {}; records only the old ISR had are lost",
                     c.topic, c.partition, c.state.leader, c.state.leader_epoch);
      }
      continue;
    }
    if (lost_fence(*r, epoch)) {
      run.fenced = true;
      return run;
    }
  }
  return run;
}

void resign(EtcdClient& etcd, const Keys& keys, int64_t epoch) {
  TxnRequest t = fenced_txn(keys, epoch);
  t.success.push_back({Op::Kind::kDelete, keys.controller(), "", "", 0});
  if (auto r = etcd.txn(t); !r) spdlog::warn("controller: resigning: {}", r.error().message);
}

}  // namespace strata::cluster

#include "cluster/controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/log_limit.h"

namespace strata::cluster {

namespace {

int32_t first_alive(const ClusterView& v, const std::vector<int32_t>& nodes) {
  for (int32_t n : nodes) {
    if (v.alive(n)) return n;
  }
  return -1;
}

// A partition's state after what the view shows of its brokers; nullopt if unchanged.
std::optional<PartitionState> next_state(const ClusterView& v, const PartitionState& s,
                                         int64_t epoch) {
  if (s.leader >= 0 && v.alive(s.leader)) return std::nullopt;
  PartitionState n = s;
  n.controller_epoch = epoch;
  if (s.leader >= 0) {
    // The leader is gone: the next live ISR member leads and the dead one leaves the
    // ISR; with none alive the ISR keeps its members and the partition has no leader
    // (no unclean election).
    std::vector<int32_t> live;
    for (int32_t r : s.isr) {
      if (v.alive(r)) live.push_back(r);
    }
    n.leader = live.empty() ? -1 : live.front();
    if (!live.empty()) n.isr = live;
  } else {
    n.leader = first_alive(v, s.isr);
    if (n.leader < 0) return std::nullopt;  // still no live ISR member
  }
  ++n.leader_epoch;
  ++n.partition_epoch;
  return n;
}

TxnRequest fenced(const Keys& keys, int64_t epoch) {
  TxnRequest t;
  t.compare.push_back({keys.controller(), Compare::Target::kCreate, Compare::Result::kEqual, epoch, ""});
  return t;
}

}  // namespace

std::vector<StateChange> plan_state_changes(const ClusterView& v, int64_t controller_epoch) {
  std::vector<StateChange> out;
  for (const auto& [topic, entry] : v.topics) {
    const auto& replicas = entry.assignment.replicas;
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
      if (auto n = next_state(v, s->state, controller_epoch)) {
        out.push_back({topic, int32_t(p), std::move(*n), s->mod_revision});
      }
    }
  }
  return out;
}

// Each state is written only if its key is as planned (create_revision 0 for a new one,
// else its mod_revision): a transaction whose key compare fails is dropped whole, and
// retried by the round the newer write brings. The fence is checked first, so a
// failure is told apart by reading /controller.
ControllerRun run_controller(EtcdClient& etcd, const Keys& keys, const ClusterView& v, int64_t epoch) {
  static LogLimit failures("controller writes failed");
  ControllerRun run;
  const std::vector<StateChange> plan = plan_state_changes(v, epoch);
  for (size_t i = 0; i < plan.size(); i += kStatesPerTxn - 1) {
    TxnRequest t = fenced(keys, epoch);
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
    t.failure.push_back({Op::Kind::kRange, keys.controller(), "", "", 0});
    auto r = etcd.txn(t);
    if (!r) {
      failures.warn("controller: writing partition states: {}", r.error().message);
      return run;  // etcd trouble, not a fence: the next round retries
    }
    if (r->succeeded) {
      run.written = r->revision;
      continue;
    }
    const bool still_mine = !r->ranges.empty() && !r->ranges[0].kvs.empty() &&
                            r->ranges[0].kvs[0].create_revision == epoch;
    if (!still_mine) {
      run.fenced = true;
      return run;
    }
  }
  return run;
}

void resign(EtcdClient& etcd, const Keys& keys, int64_t epoch) {
  TxnRequest t = fenced(keys, epoch);
  t.success.push_back({Op::Kind::kDelete, keys.controller(), "", "", 0});
  if (auto r = etcd.txn(t); !r) spdlog::warn("controller: resigning: {}", r.error().message);
}

}  // namespace strata::cluster

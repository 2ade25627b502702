#include "cluster/reassignment.h"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/log_limit.h"

namespace strata::cluster {

namespace {

bool contains(const std::vector<int32_t>& nodes, int32_t n) {
  return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
}

// `nodes` without the members of `out`, order kept.
std::vector<int32_t> without(const std::vector<int32_t>& nodes, const std::vector<int32_t>& out) {
  std::vector<int32_t> r;
  for (int32_t n : nodes) {
    if (!contains(out, n)) r.push_back(n);
  }
  return r;
}

const std::vector<int32_t>& entry_of(const std::map<int32_t, std::vector<int32_t>>& m, int32_t p) {
  static const std::vector<int32_t> kNone;
  auto it = m.find(p);
  return it == m.end() ? kNone : it->second;
}

// `s` with only the members of `keep` in its ISR and, if its leader is not among them
// or not alive, the first of `keep` in the new ISR alive as leader. nullopt if that
// changes nothing, or would leave no ISR.
std::optional<PartitionState> narrowed(const ClusterView& v, const PartitionState& s, const std::vector<int32_t>& keep,
                                       int64_t epoch) {
  PartitionState n = s;
  n.isr.clear();
  for (int32_t r : s.isr) {
    if (contains(keep, r)) n.isr.push_back(r);
  }
  if (n.isr.empty()) return std::nullopt;
  if (!contains(keep, s.leader) || !v.alive(s.leader)) {
    n.leader = -1;
    for (int32_t r : keep) {
      if (contains(n.isr, r) && v.alive(r)) {
        n.leader = r;
        break;
      }
    }
    if (n.leader < 0) return std::nullopt;  // wait for a target replica to be alive
    ++n.leader_epoch;
  }
  if (n.isr == s.isr && n.leader == s.leader) return std::nullopt;
  ++n.partition_epoch;
  n.controller_epoch = epoch;
  return n;
}

}  // namespace

std::vector<int32_t> target_of(const TopicAssignment& a, int32_t p) {
  return without(a.replicas[size_t(p)], entry_of(a.removing, p));
}

std::vector<int32_t> origin_of(const TopicAssignment& a, int32_t p) {
  return without(a.replicas[size_t(p)], entry_of(a.adding, p));
}

Result<void, KafkaError> reassign(TopicAssignment& a, int32_t p, const std::optional<std::vector<int32_t>>& target) {
  const bool moving = a.moving(p);
  const std::vector<int32_t> origin = origin_of(a, p);
  auto settle = [&](std::vector<int32_t> replicas) {
    a.replicas[size_t(p)] = std::move(replicas);
    a.adding.erase(p);
    a.removing.erase(p);
  };
  if (!target) {
    if (!moving) return fail(KafkaError::kNoReassignmentInProgress);
    settle(origin);
    return {};
  }
  std::vector<int32_t> adding = without(*target, origin);
  std::vector<int32_t> removing = without(origin, *target);
  if (adding.empty() && removing.empty()) {
    settle(*target);  // the origin again, or the same replicas in another order
    return {};
  }
  std::vector<int32_t> full = *target;
  for (int32_t r : removing) full.push_back(r);
  a.replicas[size_t(p)] = std::move(full);
  a.adding[p] = std::move(adding);
  a.removing[p] = std::move(removing);
  return {};
}

std::vector<ReassignmentStep> plan_reassignment_steps(const ClusterView& v, int64_t controller_epoch) {
  std::vector<ReassignmentStep> out;
  for (const auto& [topic, entry] : v.topics) {
    ReassignmentStep step;
    step.topic = topic;
    step.assignment_revision = entry.mod_revision;
    TopicAssignment next = entry.assignment;
    const auto& replicas = entry.assignment.replicas;
    for (size_t i = 0; i < replicas.size() && step.states.size() < kStatesPerTxn - 2; ++i) {
      const int32_t p = int32_t(i);
      const StateEntry* s = v.state(topic, p);
      if (s == nullptr) continue;
      if (entry.assignment.moving(p)) {
        const std::vector<int32_t> target = target_of(entry.assignment, p);
        const bool caught_up = std::all_of(target.begin(), target.end(),
                                           [&](int32_t r) { return contains(s->state.isr, r); });
        if (!caught_up) continue;
        auto n = narrowed(v, s->state, target, controller_epoch);
        if (!n && !std::all_of(s->state.isr.begin(), s->state.isr.end(),
                               [&](int32_t r) { return contains(target, r); })) {
          continue;  // no live target replica to lead yet
        }
        next.replicas[i] = target;
        next.adding.erase(p);
        next.removing.erase(p);
        step.completed.push_back(p);
        if (n) step.states.push_back({topic, p, std::move(*n), s->mod_revision});
      } else if (auto n = narrowed(v, s->state, replicas[i], controller_epoch)) {
        step.states.push_back({topic, p, std::move(*n), s->mod_revision});
      }
    }
    if (!step.completed.empty()) step.assignment = std::move(next);
    if (step.assignment || !step.states.empty()) out.push_back(std::move(step));
  }
  return out;
}

ControllerRun write_reassignment_steps(EtcdClient& etcd, const Keys& keys, const std::vector<ReassignmentStep>& steps,
                                       int64_t epoch) {
  static LogLimit failures("reassignment writes failed");
  ControllerRun run;
  for (const ReassignmentStep& step : steps) {
    TxnRequest t = fenced_txn(keys, epoch);
    const std::string assignment_key = keys.topic(step.topic);
    t.compare.push_back({assignment_key, Compare::Target::kMod, Compare::Result::kEqual, step.assignment_revision, ""});
    if (step.assignment) {
      t.success.push_back({Op::Kind::kPut, assignment_key, "", encode_assignment(*step.assignment), 0});
    }
    for (const StateChange& c : step.states) {
      const std::string key = keys.partition_state(c.topic, c.partition);
      t.compare.push_back({key, Compare::Target::kMod, Compare::Result::kEqual, c.mod_revision, ""});
      t.success.push_back({Op::Kind::kPut, key, "", encode_partition_state(c.state), 0});
    }
    auto r = etcd.txn(t);
    if (!r) {
      failures.warn("controller: completing reassignments of {}: {}", step.topic, r.error().message);
      return run;
    }
    if (r->succeeded) {
      run.written = r->revision;
      for (int32_t p : step.completed) {
        spdlog::info("controller: reassignment of {}-{} completed: replicas {}", step.topic, p,
                     fmt::join(step.assignment->replicas[size_t(p)], ","));
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

}  // namespace strata::cluster

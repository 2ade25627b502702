#include "group/reconcile.h"

namespace strata::group {

namespace {

// Whether the member still owns any of `revoking`: it does when it did not say.
bool owns_any(const std::optional<Assignment>& owned, const Assignment& revoking) {
  return !owned || contains_any(*owned, revoking);
}

void move_epoch(ConsumerMember& m, int32_t epoch) {
  m.previous_epoch = m.epoch;
  m.epoch = epoch;
}

// Kafka's computeNextAssignment: the member at `epoch` holding `current`.
ConsumerMember next_assignment(const ReconcileInput& in, int32_t epoch, const Assignment& current) {
  const ConsumerMember& m = in.member;
  bool unreleased = false;
  Assignment assigned, revoking, assigning;
  std::set<Uuid, UuidLess> topics;
  for (const auto& [t, ps] : in.target) topics.insert(t);
  for (const auto& [t, ps] : current) topics.insert(t);
  static const std::set<int32_t> kNone;
  for (const Uuid& t : topics) {
    auto ti = in.target.find(t);
    auto ci = current.find(t);
    auto ri = m.pending_revocation.find(t);
    const std::set<int32_t>& target = ti == in.target.end() ? kNone : ti->second;
    const std::set<int32_t>& held = ci == current.end() ? kNone : ci->second;
    const std::set<int32_t>& own_revoking = ri == m.pending_revocation.end() ? kNone : ri->second;
    for (int32_t p : held) (target.contains(p) ? assigned : revoking)[t].insert(p);
    for (int32_t p : target) {
      if (held.contains(p)) continue;
      // Still held by another member: wait for it (this member's own revocations excepted).
      if (in.owner_epoch(t, p) != -1 && !own_revoking.contains(p)) {
        unreleased = true;
        continue;
      }
      assigning[t].insert(p);
    }
  }
  ConsumerMember next = m;
  if (!revoking.empty() && owns_any(in.owned, revoking)) {
    next.state = MemberState::kUnrevokedPartitions;
    move_epoch(next, epoch);
    next.assigned = std::move(assigned);
    next.pending_revocation = std::move(revoking);
    return next;
  }
  for (auto& [t, ps] : assigning) assigned[t].insert(ps.begin(), ps.end());
  next.state = unreleased ? MemberState::kUnreleasedPartitions : MemberState::kStable;
  move_epoch(next, in.target_epoch);
  next.assigned = std::move(assigned);
  next.pending_revocation.clear();
  return next;
}

}  // namespace

Result<ConsumerMember, KafkaError> reconcile(const ReconcileInput& in) {
  const ConsumerMember& m = in.member;
  switch (m.state) {
    case MemberState::kStable:
      if (m.epoch == in.target_epoch) return m;
      return next_assignment(in, m.epoch, m.assigned);
    case MemberState::kUnrevokedPartitions:
      if (owns_any(in.owned, m.pending_revocation)) return m;
      return next_assignment(in, std::min(m.epoch + 1, in.target_epoch), m.assigned);
    case MemberState::kUnreleasedPartitions:
      return next_assignment(in, m.epoch, m.assigned);
    case MemberState::kUnknown:
      if (!in.owned || !in.owned->empty()) return fail(KafkaError::kFencedMemberEpoch);
      return next_assignment(in, in.target_epoch, Assignment{});
  }
  return m;
}

}  // namespace strata::group

// SyncGroup, Heartbeat, LeaveGroup, and the timers that expire members.
#include <spdlog/spdlog.h>

#include "group/coordinator.h"
#include "group/errors.h"

namespace strata::group {

namespace {

SyncResult sync_error(KafkaError error) {
  SyncResult r;
  r.error = error;
  return r;
}

}  // namespace

void GroupCoordinator::sync(SyncRequest r, SyncDone done) {
  GroupPtr g = find(r.group_id);
  if (g && g->consumer) return classic_sync_consumer(g, r, std::move(done));
  if (!g) return done(sync_error(errc::kUnknownMemberId));
  if (g->state == GroupState::kDead) return done(sync_error(errc::kCoordinatorNotAvailable));
  if (g->is_static_member_fenced(r.group_instance_id, r.member_id)) {
    return done(sync_error(errc::kFencedInstanceId));
  }
  Member* m = g->find(r.member_id);
  if (m == nullptr) return done(sync_error(errc::kUnknownMemberId));
  if (r.generation != g->generation) return done(sync_error(errc::kIllegalGeneration));
  if ((r.protocol_type && r.protocol_type != g->protocol_type) ||
      (r.protocol_name && r.protocol_name != g->protocol_name)) {
    return done(sync_error(errc::kInconsistentGroupProtocol));
  }
  switch (g->state) {
    case GroupState::kEmpty:
    case GroupState::kDead:
      return done(sync_error(errc::kUnknownMemberId));
    case GroupState::kPreparingRebalance:
      return done(sync_error(errc::kRebalanceInProgress));
    case GroupState::kStable: {
      g->pending_sync.erase(m->id);
      touch(*m);
      done(SyncResult{errc::kNone, g->protocol_type, g->protocol_name, m->assignment});
      return arm(g);
    }
    case GroupState::kCompletingRebalance:
      break;
  }
  if (m->awaiting_sync) m->awaiting_sync(sync_error(errc::kRebalanceInProgress));  // superseded
  m->awaiting_sync = std::move(done);
  g->pending_sync.erase(m->id);
  if (g->is_leader(m->id)) {
    // Members the leader left out get an empty assignment.
    std::map<std::string, std::vector<uint8_t>> assignment;
    for (const Member& x : g->members) assignment[x.id] = {};
    for (auto& [id, bytes] : r.assignments) {
      if (assignment.count(id) != 0) assignment[id] = std::move(bytes);
    }
    const int32_t generation = g->generation;
    store_group(g, assignment, [this, g, generation, assignment](KafkaError error) {
      // Another rebalance may have started while the write was in flight.
      if (g->state != GroupState::kCompletingRebalance || g->generation != generation) return;
      if (error != errc::kNone) {
        reset_and_propagate_assignment_error(*g, error);
        maybe_prepare_rebalance(g);
      } else {
        set_and_propagate_assignment(*g, assignment);
        transition(*g, GroupState::kStable);
      }
      arm(g);
    });
  }
  arm(g);
}

KafkaError GroupCoordinator::heartbeat(const MemberRef& r) {
  GroupPtr g = find(r.group_id);
  if (g && g->consumer) return classic_heartbeat_consumer(g, r);
  if (!g) return errc::kUnknownMemberId;
  if (g->state == GroupState::kDead) return errc::kCoordinatorNotAvailable;
  if (g->is_static_member_fenced(r.group_instance_id, r.member_id)) return errc::kFencedInstanceId;
  Member* m = g->find(r.member_id);
  if (m == nullptr) return errc::kUnknownMemberId;
  if (r.generation != g->generation) return errc::kIllegalGeneration;
  switch (g->state) {
    case GroupState::kEmpty:
    case GroupState::kDead:
      return errc::kUnknownMemberId;
    case GroupState::kCompletingRebalance:
    case GroupState::kStable:
      touch(*m);
      arm(g);
      return errc::kNone;
    case GroupState::kPreparingRebalance:
      touch(*m);
      arm(g);
      return errc::kRebalanceInProgress;
  }
  return errc::kNone;
}

LeaveResult GroupCoordinator::leave(
    const std::string& group_id,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& members) {
  LeaveResult out;
  GroupPtr g = find(group_id);
  if (g && g->consumer) {
    for (const auto& [member_id, instance_id] : members) out.members.push_back(classic_leave_consumer(g, member_id, instance_id));
    return out;
  }
  if (!g) {
    out.members.assign(members.size(), errc::kUnknownMemberId);
    return out;
  }
  if (g->state == GroupState::kDead) {
    out.error = errc::kCoordinatorNotAvailable;
    out.members.assign(members.size(), errc::kCoordinatorNotAvailable);
    return out;
  }
  for (const auto& [member_id, instance_id] : members) {
    std::string id = member_id;
    if (id.empty() && instance_id) {  // a static member leaving by instance id alone
      auto it = g->static_members.find(*instance_id);
      id = it == g->static_members.end() ? "" : it->second;
    }
    if (g->is_static_member_fenced(instance_id, id)) {
      out.members.push_back(errc::kFencedInstanceId);
    } else if (g->pending_members.erase(id) != 0) {
      out.members.push_back(errc::kNone);
      try_complete_join(g);
    } else if (!g->has(id)) {
      out.members.push_back(errc::kUnknownMemberId);
    } else {
      spdlog::info("group {}: member {} left", g->id, id);
      remove_member_and_update(g, id);
      out.members.push_back(errc::kNone);
    }
  }
  arm(g);
  return out;
}

void GroupCoordinator::remove_member_and_update(const GroupPtr& g, const std::string& member_id) {
  Member* m = g->find(member_id);
  if (m == nullptr) return;
  // A parked request of a departing member is answered so the client rejoins.
  if (m->awaiting_join) m->awaiting_join(JoinResult{errc::kUnknownMemberId, -1, {}, {}, "", m->id, false, {}});
  if (m->awaiting_sync) m->awaiting_sync(sync_error(errc::kUnknownMemberId));
  g->remove(member_id);
  switch (g->state) {
    case GroupState::kStable:
    case GroupState::kCompletingRebalance:
      return maybe_prepare_rebalance(g);
    case GroupState::kPreparingRebalance:
      return try_complete_join(g);
    case GroupState::kEmpty:
    case GroupState::kDead:
      return;
  }
}

void GroupCoordinator::reset_and_propagate_assignment_error(Group& g, KafkaError error) {
  for (Member& m : g.members) {
    m.assignment.clear();
    if (m.awaiting_sync) {
      SyncDone answer = std::move(m.awaiting_sync);
      m.awaiting_sync = nullptr;
      answer(sync_error(error));
    }
  }
}

void GroupCoordinator::set_and_propagate_assignment(
    Group& g, const std::map<std::string, std::vector<uint8_t>>& assignment) {
  for (Member& m : g.members) {
    auto it = assignment.find(m.id);
    m.assignment = it == assignment.end() ? std::vector<uint8_t>{} : it->second;
    if (m.awaiting_sync) {
      SyncDone answer = std::move(m.awaiting_sync);
      m.awaiting_sync = nullptr;
      answer(SyncResult{errc::kNone, g.protocol_type, g.protocol_name, m.assignment});
      touch(m);
    }
  }
}

void GroupCoordinator::touch(Member& m) const {
  m.deadline = Clock::now() + std::chrono::milliseconds(m.session_timeout_ms);
}

void GroupCoordinator::transition(Group& g, GroupState s) const {
  g.state = s;
  g.state_timestamp = wall_ms();
}

namespace {

// A member's session runs while it is not parked in a JoinGroup or SyncGroup; a new
// member's parked join is bounded by its own deadline.
bool session_runs(const Member& m) {
  return m.is_new || (!m.awaiting_join && !m.awaiting_sync);
}

}  // namespace

// Sets the group's timer to its earliest deadline (or none).
void GroupCoordinator::arm(const GroupPtr& g) {
  if (g->consumer) return consumer_arm(g);
  std::optional<Clock::time_point> next;
  auto consider = [&next](Clock::time_point t) {
    if (!next || t < *next) next = t;
  };
  for (const Member& m : g->members) {
    if (session_runs(m)) consider(m.deadline);
  }
  for (const auto& [id, t] : g->pending_members) consider(t);
  if (g->state == GroupState::kPreparingRebalance) consider(g->join_deadline);
  if (!g->pending_sync.empty()) consider(g->sync_deadline);
  if (!next) {
    g->timer.cancel();
    return;
  }
  g->timer.expires_at(*next);
  std::weak_ptr<Group> weak = g;
  g->timer.async_wait([this, weak](const asio::error_code& ec) {
    if (ec) return;  // re-armed or cancelled
    if (GroupPtr locked = weak.lock()) on_timer(locked);
  });
}

void GroupCoordinator::on_timer(const GroupPtr& g) {
  const auto now = Clock::now();
  for (auto it = g->pending_members.begin(); it != g->pending_members.end();) {
    it = it->second <= now ? g->pending_members.erase(it) : std::next(it);
  }
  std::vector<std::string> expired;
  for (const Member& m : g->members) {
    if (session_runs(m) && m.deadline <= now) expired.push_back(m.id);
  }
  for (const std::string& id : expired) {
    spdlog::info("group {}: member {} expired (no heartbeat within its session timeout)", g->id, id);
    remove_member_and_update(g, id);
  }
  if (g->state == GroupState::kPreparingRebalance && g->join_deadline <= now) {
    if (g->initial_delay && g->new_member_added && g->initial_delay_remaining_ms > 0) {
      const int32_t delay = config_.group_initial_rebalance_delay_ms;
      g->new_member_added = false;
      g->join_deadline = now + std::chrono::milliseconds(std::min(delay, g->initial_delay_remaining_ms));
      g->initial_delay_remaining_ms = std::max(g->initial_delay_remaining_ms - delay, 0);
    } else {
      complete_join(g);
    }
  } else if (g->state == GroupState::kPreparingRebalance) {
    try_complete_join(g);
  }
  if (!g->pending_sync.empty() && g->sync_deadline <= now &&
      (g->state == GroupState::kCompletingRebalance || g->state == GroupState::kStable)) {
    // Members that joined but never synced within the rebalance timeout are dropped.
    const std::set<std::string> late = std::move(g->pending_sync);
    g->pending_sync.clear();
    for (const std::string& id : late) {
      spdlog::info("group {}: member {} removed: no SyncGroup within the rebalance timeout", g->id, id);
      remove_member_and_update(g, id);
    }
  }
  arm(g);
}

}  // namespace strata::group

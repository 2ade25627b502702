// JoinGroup and the rebalance it starts, as Kafka's classic GroupCoordinator runs it.
#include <random>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "group/coordinator.h"
#include "group/errors.h"

namespace strata::group {

namespace {

JoinResult join_error(KafkaError error, std::string member_id = "") {
  JoinResult r;
  r.error = error;
  r.member_id = std::move(member_id);
  return r;
}

std::string random_uuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t hi = rng(), lo = rng();
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", uint32_t(hi >> 32),
                     uint16_t(hi >> 16), uint16_t(hi), uint16_t(lo >> 48),
                     lo & 0xFFFFFFFFFFFFull);
}

}  // namespace

std::string GroupCoordinator::new_member_id(const JoinRequest& r) const {
  // Kafka: "<client id>-<uuid>", or "<group instance id>-<uuid>" for static members.
  return (r.group_instance_id ? *r.group_instance_id : r.client_id) + "-" + random_uuid();
}

void GroupCoordinator::join(JoinRequest r, JoinDone done) {
  if (r.group_id.empty()) return done(join_error(errc::kInvalidGroupId, r.member_id));
  if (r.session_timeout_ms < config_.group_min_session_timeout_ms ||
      r.session_timeout_ms > config_.group_max_session_timeout_ms) {
    return done(join_error(errc::kInvalidSessionTimeout, r.member_id));
  }
  const bool unknown_member = r.member_id.empty();
  GroupPtr g = unknown_member ? get_or_create(r.group_id) : find(r.group_id);
  if (!g) return done(join_error(errc::kUnknownMemberId, r.member_id));
  if (g->consumer) {
    // A consumer-protocol group with members hosts classic members (KIP-848's migration,
    // coordinator_migration.cc); an empty one becomes a classic group (its offsets stay),
    // as Kafka converts it.
    if (!g->consumer->members.empty()) return classic_join_consumer(g, r, std::move(done));
    log_.append(g->partition, consumer_tombstones(*g), [](KafkaError) {});
    g->consumer.reset();
    g->protocol_type.reset();
    g->state = GroupState::kEmpty;
    spdlog::info("group {}: empty consumer group converted to a classic group", g->id);
  }
  if (!g->has(r.member_id) && int64_t(g->members.size()) >= config_.group_max_size) {
    return done(join_error(errc::kGroupMaxSizeReached, r.member_id));
  }
  if (unknown_member) {
    join_new_member(g, r, std::move(done));
  } else {
    join_known_member(g, r, std::move(done));
  }
  if (g->state == GroupState::kPreparingRebalance) try_complete_join(g);
  arm(g);
}

void GroupCoordinator::join_new_member(const GroupPtr& g, JoinRequest& r, JoinDone done) {
  if (g->state == GroupState::kDead) return done(join_error(errc::kCoordinatorNotAvailable));
  if (!g->supports_protocols(r.protocol_type, r.protocols)) {
    return done(join_error(errc::kInconsistentGroupProtocol));
  }
  const std::string id = new_member_id(r);
  if (r.group_instance_id) return join_static_new_member(g, r, id, std::move(done));
  if (r.require_known_member_id) {
    // KIP-394: hand out the id and wait for the member to come back with it, so a
    // client that never receives this answer leaves no member behind.
    g->pending_members[id] = Clock::now() + std::chrono::milliseconds(r.session_timeout_ms);
    return done(join_error(errc::kMemberIdRequired, id));
  }
  add_member_and_rebalance(g, r, id, std::move(done));
}

void GroupCoordinator::join_static_new_member(const GroupPtr& g, JoinRequest& r,
                                              const std::string& new_id, JoinDone done) {
  auto it = g->static_members.find(*r.group_instance_id);
  Member* known = it == g->static_members.end() ? nullptr : g->find(it->second);
  if (known == nullptr) return add_member_and_rebalance(g, r, new_id, std::move(done));
  replace_static_member(g, *known, r, new_id, std::move(done));
}

void GroupCoordinator::join_known_member(const GroupPtr& g, JoinRequest& r, JoinDone done) {
  if (g->state == GroupState::kDead) return done(join_error(errc::kCoordinatorNotAvailable, r.member_id));
  if (!g->supports_protocols(r.protocol_type, r.protocols)) {
    return done(join_error(errc::kInconsistentGroupProtocol, r.member_id));
  }
  if (g->pending_members.count(r.member_id) != 0) {
    // The second join of KIP-394: the member now has its id. Static members never pend.
    return add_member_and_rebalance(g, r, r.member_id, std::move(done));
  }
  if (g->is_static_member_fenced(r.group_instance_id, r.member_id)) {
    return done(join_error(errc::kFencedInstanceId, r.member_id));
  }
  Member* m = g->find(r.member_id);
  const bool instance_unknown =
      r.group_instance_id && g->static_members.count(*r.group_instance_id) == 0;
  if (m == nullptr || instance_unknown) return done(join_error(errc::kUnknownMemberId, r.member_id));
  switch (g->state) {
    case GroupState::kPreparingRebalance:
      return update_member_and_rebalance(g, *m, r, std::move(done));
    case GroupState::kCompletingRebalance:
      // Same metadata: the member missed the JoinGroup answer; give it again.
      if (m->protocols == r.protocols) {
        touch(*m);
        return done(join_result(*g, *m, g->is_leader(m->id)));
      }
      return update_member_and_rebalance(g, *m, r, std::move(done));
    case GroupState::kStable:
      // A leader's join forces a rebalance (it may have seen topic metadata change);
      // a follower with unchanged metadata just learns the current generation.
      if (g->is_leader(m->id) || m->protocols != r.protocols) {
        return update_member_and_rebalance(g, *m, r, std::move(done));
      }
      touch(*m);
      return done(join_result(*g, *m, false));
    case GroupState::kEmpty:
    case GroupState::kDead:
      return done(join_error(errc::kUnknownMemberId, r.member_id));
  }
}

void GroupCoordinator::add_member_and_rebalance(const GroupPtr& g, JoinRequest& r,
                                                const std::string& member_id, JoinDone done) {
  Member m;
  m.id = member_id;
  m.instance_id = r.group_instance_id;
  m.client_id = r.client_id;
  m.client_host = r.client_host;
  m.session_timeout_ms = r.session_timeout_ms;
  m.rebalance_timeout_ms = r.rebalance_timeout_ms;
  m.protocol_type = r.protocol_type;
  m.protocols = std::move(r.protocols);
  m.awaiting_join = std::move(done);
  // A new member cannot heartbeat until it has an answer: its parked join is bounded
  // by Kafka's new-member join timeout instead of the session timeout.
  m.is_new = true;
  m.deadline = Clock::now() + std::chrono::milliseconds(config_.new_member_join_timeout_ms);
  if (g->state == GroupState::kPreparingRebalance && g->generation == 0) g->new_member_added = true;
  g->add(std::move(m));
  maybe_prepare_rebalance(g);
}

void GroupCoordinator::update_member_and_rebalance(const GroupPtr& g, Member& m, JoinRequest& r,
                                                   JoinDone done) {
  m.protocols = std::move(r.protocols);
  m.rebalance_timeout_ms = r.rebalance_timeout_ms;
  m.session_timeout_ms = r.session_timeout_ms;
  if (m.awaiting_join) m.awaiting_join(join_error(errc::kRebalanceInProgress, m.id));  // superseded
  m.awaiting_join = std::move(done);
  maybe_prepare_rebalance(g);
}

// KIP-345: a static member rejoined with a new member id (a restart). The old id is
// fenced; in a Stable group whose protocol choice stands, the member gets the current
// generation back without a rebalance once the new id is durable.
void GroupCoordinator::replace_static_member(const GroupPtr& g, Member& m, JoinRequest& r,
                                             const std::string& new_id, JoinDone done) {
  const std::string old_id = m.id;
  const std::string old_leader = g->leader.value_or("");
  if (m.awaiting_join) m.awaiting_join(join_error(errc::kFencedInstanceId, old_id));
  if (m.awaiting_sync) m.awaiting_sync(SyncResult{errc::kFencedInstanceId, {}, {}, {}});
  m.awaiting_join = nullptr;
  m.awaiting_sync = nullptr;
  m.id = new_id;
  g->static_members[*r.group_instance_id] = new_id;
  if (g->leader == old_id) g->leader = new_id;
  if (g->pending_sync.erase(old_id) != 0) g->pending_sync.insert(new_id);
  m.client_id = r.client_id;
  m.client_host = r.client_host;
  m.protocols = std::move(r.protocols);
  m.rebalance_timeout_ms = r.rebalance_timeout_ms;
  m.session_timeout_ms = r.session_timeout_ms;
  touch(m);
  switch (g->state) {
    case GroupState::kStable: {
      if (g->protocol_name != g->select_protocol()) {
        m.awaiting_join = std::move(done);
        return maybe_prepare_rebalance(g);
      }
      std::map<std::string, std::vector<uint8_t>> assignment;
      for (const Member& x : g->members) assignment[x.id] = x.assignment;
      const bool skip = r.supports_skip_assignment;
      store_group(g, assignment, [this, g, new_id, old_leader, skip, done](KafkaError error) {
        Member* now = g->find(new_id);
        if (error != errc::kNone || now == nullptr) {
          return done(join_error(error != errc::kNone ? error : errc::kUnknownMemberId, new_id));
        }
        // A v9+ leader learns it leads but may skip the assignment; older clients are
        // told the previous leader id so the new id does not redo a trivial assignment.
        const bool leads = g->is_leader(new_id);
        JoinResult res = join_result(*g, *now, skip && leads);
        res.skip_assignment = skip && leads;
        if (!skip) res.leader = old_leader;
        done(std::move(res));
      });
      return;
    }
    case GroupState::kCompletingRebalance:
      // The leader may already be assigning to the old id: rebalance again.
      m.awaiting_join = std::move(done);
      return prepare_rebalance(g);
    case GroupState::kPreparingRebalance:
      m.awaiting_join = std::move(done);
      return;
    case GroupState::kEmpty:
    case GroupState::kDead:
      return done(join_error(errc::kUnknownMemberId, new_id));  // unreachable: it has members
  }
}

void GroupCoordinator::maybe_prepare_rebalance(const GroupPtr& g) {
  if (g->can_rebalance()) prepare_rebalance(g);
}

void GroupCoordinator::prepare_rebalance(const GroupPtr& g) {
  if (g->state == GroupState::kCompletingRebalance) {
    reset_and_propagate_assignment_error(*g, errc::kRebalanceInProgress);
  }
  g->pending_sync.clear();
  const auto now = Clock::now();
  const int32_t timeout = g->max_rebalance_timeout_ms();
  const int32_t delay = config_.group_initial_rebalance_delay_ms;
  // The first rebalance of an empty group waits group.initial.rebalance.delay.ms (and
  // again, up to the rebalance timeout, while new members keep arriving), so a group
  // starting up settles in one generation instead of one per member.
  g->initial_delay = g->state == GroupState::kEmpty && delay > 0;
  if (g->initial_delay) {
    g->initial_delay_remaining_ms = std::max(timeout - delay, 0);
    g->new_member_added = false;
    g->join_deadline = now + std::chrono::milliseconds(delay);
  } else {
    g->join_deadline = now + std::chrono::milliseconds(timeout);
  }
  transition(*g, GroupState::kPreparingRebalance);
  spdlog::debug("group {}: preparing rebalance (generation {})", g->id, g->generation);
  try_complete_join(g);
}

void GroupCoordinator::try_complete_join(const GroupPtr& g) {
  if (g->state == GroupState::kPreparingRebalance && !g->initial_delay && g->all_members_joined()) {
    complete_join(g);
  }
}

JoinResult GroupCoordinator::join_result(const Group& g, const Member& m, bool with_members) const {
  JoinResult r;
  r.generation = g.generation;
  r.protocol_type = g.protocol_type;
  r.protocol_name = g.protocol_name;
  r.leader = g.leader.value_or("");
  r.member_id = m.id;
  if (with_members) {
    for (const Member& x : g.members) {
      r.members.push_back({x.id, x.instance_id, x.metadata(g.protocol_name)});
    }
  }
  return r;
}

// The join phase is over: members that did not rejoin leave (static ones stay until
// their session expires), a new generation starts and every parked join is answered.
void GroupCoordinator::complete_join(const GroupPtr& g) {
  std::vector<std::string> gone;
  for (const Member& m : g->members) {
    if (!m.awaiting_join && !m.instance_id) gone.push_back(m.id);
  }
  for (const std::string& id : gone) g->remove(id);
  g->initial_delay = false;
  bool leader_joined = false;
  if (const Member* l = g->leader ? g->find(*g->leader) : nullptr; l && l->awaiting_join) {
    leader_joined = true;
  } else {
    for (const Member& m : g->members) {
      if (m.awaiting_join) {
        g->leader = m.id;
        leader_joined = true;
        break;
      }
    }
  }
  if (!leader_joined && !g->members.empty()) {
    // Only static members that have not rejoined remain: wait another rebalance timeout
    // for them (their sessions expire meanwhile if they are gone).
    g->join_deadline = Clock::now() + std::chrono::milliseconds(g->max_rebalance_timeout_ms());
    return;
  }
  ++g->generation;
  g->pending_sync.clear();
  if (g->members.empty()) {
    g->protocol_name.reset();
    g->leader.reset();
    transition(*g, GroupState::kEmpty);
    spdlog::info("group {} is empty (generation {})", g->id, g->generation);
    store_group(g, {}, [](KafkaError) {});
    return;
  }
  g->protocol_name = g->select_protocol();
  transition(*g, GroupState::kCompletingRebalance);
  spdlog::info("group {} generation {}: {} members, protocol {}, leader {}", g->id, g->generation,
               g->members.size(), *g->protocol_name, g->leader.value_or(""));
  g->sync_deadline = Clock::now() + std::chrono::milliseconds(g->max_rebalance_timeout_ms());
  for (Member& m : g->members) {
    if (m.awaiting_join) {
      JoinDone answer = std::move(m.awaiting_join);
      m.awaiting_join = nullptr;
      answer(join_result(*g, m, g->is_leader(m.id)));
    }
    m.is_new = false;
    touch(m);
    g->pending_sync.insert(m.id);
  }
}

}  // namespace strata::group

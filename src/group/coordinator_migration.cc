// KIP-848's online migration, as Kafka 4.x runs it: an application rolled from the
// classic protocol to the consumer protocol keeps its group, offsets and partitions.
//  - A consumer-protocol member joining a classic group that has members turns it into a
//    consumer-protocol group (group.consumer.migration.policy upgrade or bidirectional):
//    every classic member becomes a member at the classic generation's epoch, holding
//    the partitions its last SyncGroup gave it, and the target is that assignment.
//  - Classic members then live inside the consumer-protocol group: JoinGroup is their
//    heartbeat with a subscription (the server assignor decides, the member's own assignor
//    is not asked), SyncGroup hands them their assigned partitions, Heartbeat answers
//    REBALANCE_IN_PROGRESS whenever they must join again to give up or take partitions
//    (within their rebalance timeout, else they are fenced), LeaveGroup fences them.
//  - When the last consumer-protocol member leaves and classic members remain (policy
//    downgrade or bidirectional), the group becomes a classic group again at its group
//    epoch and rebalances, its members joining again as in any classic rebalance.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "group/coordinator.h"
#include "group/errors.h"
#include "protocol/consumer_protocol.h"

namespace strata::group {

namespace {

JoinResult join_error(KafkaError e, std::string member_id = "") {
  JoinResult r;
  r.error = e;
  r.member_id = std::move(member_id);
  return r;
}

SyncResult sync_error(KafkaError e) {
  SyncResult r;
  r.error = e;
  return r;
}

Assignment by_id(const std::vector<protocol::ConsumerTopicPartitions>& list, const TopicView& topics) {
  Assignment a;
  for (const auto& t : list) {
    auto info = topics.find(t.topic);
    if (!info) continue;
    for (int32_t p : t.partitions) {
      if (p >= 0 && p < info->partitions) a[info->id].insert(p);
    }
  }
  normalize(a);
  return a;
}

std::vector<protocol::ConsumerTopicPartitions> by_name(const Assignment& a, const TopicView& topics) {
  std::vector<protocol::ConsumerTopicPartitions> out;
  for (const auto& [id, parts] : a) {
    auto info = topics.find(id);
    if (!info) continue;
    out.push_back({info->name, std::vector<int32_t>(parts.begin(), parts.end())});
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.topic < y.topic; });
  return out;
}

// Kafka's check that a classic member may join: the consumer protocol type, and at least
// one protocol every classic member already in the group also names.
bool protocols_fit(const ConsumerGroup& cg, const JoinRequest& r) {
  if (r.protocol_type != "consumer" || r.protocols.empty()) return false;
  for (const auto& [id, m] : cg.members) {
    if (!m.classic || id == r.member_id) continue;
    const bool shared = std::any_of(r.protocols.begin(), r.protocols.end(), [&m](const Protocol& p) {
      return std::any_of(m.classic->protocols.begin(), m.classic->protocols.end(),
                         [&p](const auto& q) { return q.first == p.name; });
    });
    if (!shared) return false;
  }
  return true;
}

}  // namespace

void GroupCoordinator::classic_join_consumer(const GroupPtr& g, JoinRequest& r, JoinDone done) {
  ConsumerGroup& cg = *g->consumer;
  if (r.topics == nullptr) return done(join_error(errc::kCoordinatorNotAvailable, r.member_id));
  if (!protocols_fit(cg, r)) return done(join_error(errc::kInconsistentGroupProtocol, r.member_id));
  const bool unknown = r.member_id.empty();
  std::string member_id = unknown ? new_member_id(r) : r.member_id;
  if (!cg.members.contains(member_id) && cg.members.size() >= size_t(config_.consumer_max_size) &&
      !(r.group_instance_id && cg.static_members.contains(*r.group_instance_id))) {
    return done(join_error(errc::kGroupMaxSizeReached, r.member_id));
  }
  if (unknown && r.require_known_member_id && !r.group_instance_id) {
    return done(join_error(errc::kMemberIdRequired, member_id));
  }
  auto subscription = protocol::decode_consumer_subscription(r.protocols.front().metadata);
  if (!subscription) return done(join_error(errc::kInconsistentGroupProtocol, r.member_id));

  Records records;
  ConsumerMember before;
  bool is_new = false;
  if (r.group_instance_id) {
    auto s = cg.static_members.find(*r.group_instance_id);
    if (s != cg.static_members.end() && s->second != member_id) {
      if (!unknown) return done(join_error(errc::kFencedInstanceId, r.member_id));
      // A static member restarted under a new id: it takes the old one's place.
      before = cg.members.at(s->second);
      for (auto type : {ConsumerRecord::kCurrentAssignment, ConsumerRecord::kTargetMember, ConsumerRecord::kMemberMetadata}) {
        records.push_back({encode_key(ConsumerKey{type, g->id, s->second}), std::nullopt});
      }
      const Assignment target = cg.target.contains(s->second) ? cg.target.at(s->second) : Assignment{};
      cg.remove(s->second);
      before.id = member_id;
      cg.target[member_id] = target;
      is_new = true;
    }
  }
  if (!is_new) {
    auto it = cg.members.find(member_id);
    if (it == cg.members.end()) {
      // As Kafka: any member id joins (the one MEMBER_ID_REQUIRED handed out included).
      before.id = member_id;
      is_new = true;
    } else {
      before = it->second;
    }
  }
  ConsumerMember updated = before;
  updated.instance_id = r.group_instance_id;
  if (subscription->message.rack_id) updated.rack_id = subscription->message.rack_id;
  updated.rebalance_timeout_ms = r.rebalance_timeout_ms;
  updated.server_assignor.reset();
  std::vector<std::string> names = subscription->message.topics;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  updated.subscribed_topic_names = std::move(names);
  updated.subscribed_topic_regex.clear();
  updated.client_id = r.client_id;
  updated.client_host = r.client_host;
  ClassicMembership classic{r.session_timeout_ms, {}};
  for (const Protocol& p : r.protocols) classic.protocols.emplace_back(p.name, p.metadata);
  updated.classic = std::move(classic);
  if (is_new || !updated.same_metadata(before)) {
    ConsumerMemberValue v;
    v.instance_id = updated.instance_id;
    v.rack_id = updated.rack_id;
    v.client_id = updated.client_id;
    v.client_host = updated.client_host;
    v.subscribed_topic_names = updated.subscribed_topic_names;
    v.rebalance_timeout_ms = updated.rebalance_timeout_ms;
    v.classic = ClassicMemberMetadata{updated.classic->session_timeout_ms, updated.classic->protocols};
    records.push_back({encode_key(ConsumerKey{ConsumerRecord::kMemberMetadata, g->id, updated.id}), encode_value(v)});
  }
  // What it owns: an eager member gave everything up before joining again; a
  // cooperative one lists what it kept.
  const std::optional<Assignment> owned = by_id(subscription->message.owned_partitions, *r.topics);
  auto settled = settle_member(*g, before, std::move(updated), is_new, owned, *r.topics,
                               std::chrono::milliseconds(r.session_timeout_ms), records);
  if (!settled) return done(join_error(settled.error().error, r.member_id));
  JoinResult out;
  out.member_id = settled->id;
  out.generation = settled->epoch;
  out.protocol_type = "consumer";
  out.protocol_name = r.protocols.front().name;
  if (is_new) spdlog::info("group {}: classic member {} joined the consumer group (group epoch {})", g->id, out.member_id, cg.group_epoch);
  consumer_arm(g);
  consumer_write(*g, std::move(records), [out = std::move(out), done = std::move(done)](KafkaError e) mutable {
    if (e != errc::kNone) return done(join_error(e, out.member_id));
    done(std::move(out));
  });
}

void GroupCoordinator::classic_sync_consumer(const GroupPtr& g, SyncRequest& r, SyncDone done) {
  ConsumerGroup& cg = *g->consumer;
  if (r.topics == nullptr) return done(sync_error(errc::kCoordinatorNotAvailable));
  auto it = cg.members.find(r.member_id);
  if (it == cg.members.end() || !it->second.classic) return done(sync_error(errc::kUnknownMemberId));
  const ConsumerMember& m = it->second;
  if (r.group_instance_id && m.instance_id != r.group_instance_id) return done(sync_error(errc::kFencedInstanceId));
  if (r.generation != m.epoch) return done(sync_error(errc::kIllegalGeneration));
  const auto& protocols = m.classic->protocols;
  if ((r.protocol_type && *r.protocol_type != "consumer") ||
      (r.protocol_name && std::none_of(protocols.begin(), protocols.end(),
                                       [&r](const auto& p) { return p.first == *r.protocol_name; }))) {
    return done(sync_error(errc::kInconsistentGroupProtocol));
  }
  // The assignment in the subscription's version, as Kafka answers.
  int16_t version = 0;
  if (!protocols.empty() && protocols.front().second.size() >= 2) {
    version = std::clamp<int16_t>(int16_t(load_be16(protocols.front().second.data())), 0,
                                  protocol::kConsumerProtocolVersionMax);
  }
  protocol::ConsumerAssignment a;
  a.assigned_partitions = by_name(m.assigned, *r.topics);
  SyncResult out;
  out.protocol_type = "consumer";
  out.protocol_name = protocols.empty() ? "" : protocols.front().first;
  out.assignment = protocol::encode_consumer_assignment(a, version);
  done(std::move(out));
}

// Kafka's classicGroupHeartbeatToConsumerGroup: the session goes on; a member not
// reconciled to the group's epoch must join again.
KafkaError GroupCoordinator::classic_heartbeat_consumer(const GroupPtr& g, const MemberRef& r) {
  ConsumerGroup& cg = *g->consumer;
  auto it = cg.members.find(r.member_id);
  if (it == cg.members.end() || !it->second.classic) return errc::kUnknownMemberId;
  ConsumerMember& m = it->second;
  if (r.group_instance_id && m.instance_id != r.group_instance_id) return errc::kFencedInstanceId;
  if (r.generation != m.epoch) return errc::kIllegalGeneration;
  const auto now = Clock::now();
  m.session_deadline = now + std::chrono::milliseconds(m.classic->session_timeout_ms);
  if (m.reconciled_to(cg.group_epoch)) {
    m.rejoin_deadline.reset();
  } else if (!m.rejoin_deadline) {
    m.rejoin_deadline = now + std::chrono::milliseconds(std::max(m.rebalance_timeout_ms, 0));
  }
  consumer_arm(g);
  return m.reconciled_to(cg.group_epoch) ? errc::kNone : errc::kRebalanceInProgress;
}

KafkaError GroupCoordinator::classic_leave_consumer(const GroupPtr& g, const std::string& member_id,
                                                    const std::optional<std::string>& instance_id) {
  ConsumerGroup& cg = *g->consumer;
  std::string id = member_id;
  if (instance_id) {
    auto s = cg.static_members.find(*instance_id);
    if (s == cg.static_members.end()) return errc::kUnknownMemberId;
    if (!member_id.empty() && s->second != member_id) return errc::kFencedInstanceId;
    id = s->second;
  }
  if (!cg.members.contains(id)) return errc::kUnknownMemberId;
  spdlog::info("group {}: classic member {} left", g->id, id);
  Records records;
  fence_consumer_member(*g, id, records);
  maybe_downgrade(g, records);
  arm(g);
  consumer_write(*g, std::move(records), [](KafkaError) {});
  return errc::kNone;
}

// Kafka's ConsumerGroup.fromClassicGroup: a Stable classic group of the consumer protocol
// becomes a consumer-protocol group with the same members, epochs and partitions.
Result<void, HeartbeatProblem> GroupCoordinator::upgrade_classic_group(const GroupPtr& g, const TopicView& topics,
                                                                       Records& records) {
  const std::string& policy = config_.consumer_migration_policy;
  if (policy != "upgrade" && policy != "bidirectional") {
    return fail(HeartbeatProblem{errc::kGroupIdNotFound,
                                 "Group " + g->id + " is a classic group with members and "
                                 "group.consumer.migration.policy=" + policy + " does not allow upgrading it."});
  }
  if (g->protocol_type != "consumer") {
    return fail(HeartbeatProblem{errc::kGroupIdNotFound, "Group " + g->id + " is not a consumer group."});
  }
  if (g->state != GroupState::kStable) {
    return fail(HeartbeatProblem{errc::kGroupIdNotFound,
                                 "Group " + g->id + " is a classic group in the middle of a rebalance; it can be "
                                 "upgraded once it is stable."});
  }
  if (g->members.size() >= size_t(config_.consumer_max_size)) {
    return fail(HeartbeatProblem{errc::kGroupMaxSizeReached, "The consumer group has reached its maximum capacity."});
  }
  auto cg = std::make_unique<ConsumerGroup>();
  cg->group_epoch = g->generation;
  cg->assignment_epoch = g->generation;
  for (const Member& m : g->members) {
    auto subscription = protocol::decode_consumer_subscription(m.metadata(g->protocol_name));
    auto assignment = protocol::decode_consumer_assignment(m.assignment);
    ConsumerMember cm;
    cm.id = m.id;
    cm.instance_id = m.instance_id;
    cm.client_id = m.client_id;
    cm.client_host = m.client_host;
    if (subscription) {
      cm.subscribed_topic_names = subscription->message.topics;
      std::sort(cm.subscribed_topic_names.begin(), cm.subscribed_topic_names.end());
      cm.rack_id = subscription->message.rack_id;
    }
    cm.rebalance_timeout_ms = m.rebalance_timeout_ms;
    ClassicMembership classic{m.session_timeout_ms, {}};
    for (const Protocol& p : m.protocols) classic.protocols.emplace_back(p.name, p.metadata);
    cm.classic = std::move(classic);
    cm.epoch = g->generation;
    cm.previous_epoch = g->generation;
    if (assignment) cm.assigned = by_id(assignment->message.assigned_partitions, topics);
    cm.session_deadline = m.deadline;
    cg->target[cm.id] = cm.assigned;
    cg->put(std::move(cm));
  }
  records.push_back({encode_key(GroupKey{g->id}), std::nullopt});
  for (const auto& [id, m] : cg->members) {
    ConsumerMemberValue v;
    v.instance_id = m.instance_id;
    v.rack_id = m.rack_id;
    v.client_id = m.client_id;
    v.client_host = m.client_host;
    v.subscribed_topic_names = m.subscribed_topic_names;
    v.rebalance_timeout_ms = m.rebalance_timeout_ms;
    v.classic = ClassicMemberMetadata{m.classic->session_timeout_ms, m.classic->protocols};
    records.push_back({encode_key(ConsumerKey{ConsumerRecord::kMemberMetadata, g->id, id}), encode_value(v)});
  }
  records.push_back({encode_key(ConsumerKey{ConsumerRecord::kGroupMetadata, g->id, ""}),
                     encode_value(ConsumerGroupMetadataValue{cg->group_epoch, cg->metadata_hash})});
  for (const auto& [id, a] : cg->target) {
    std::vector<TopicPartitionsValue> parts;
    for (const auto& [topic, ps] : a) parts.push_back({topic, std::vector<int32_t>(ps.begin(), ps.end())});
    records.push_back({encode_key(ConsumerKey{ConsumerRecord::kTargetMember, g->id, id}), encode_value(TargetMemberValue{parts})});
  }
  records.push_back({encode_key(ConsumerKey{ConsumerRecord::kTargetMetadata, g->id, ""}),
                     encode_value(TargetMetadataValue{cg->assignment_epoch})});
  for (const auto& [id, m] : cg->members) {
    CurrentAssignmentValue c{m.epoch, m.previous_epoch, int8_t(m.state), {}, {}};
    for (const auto& [topic, ps] : m.assigned) c.assigned.push_back({topic, std::vector<int32_t>(ps.begin(), ps.end())});
    records.push_back({encode_key(ConsumerKey{ConsumerRecord::kCurrentAssignment, g->id, id}), encode_value(c)});
  }
  spdlog::info("group {}: classic group of {} members upgraded to the consumer protocol at epoch {}", g->id,
               g->members.size(), cg->group_epoch);
  g->members.clear();
  g->static_members.clear();
  g->pending_members.clear();
  g->pending_sync.clear();
  g->leader.reset();
  g->protocol_name.reset();
  g->consumer = std::move(cg);
  g->state = GroupState::kStable;
  return {};
}

// Kafka's convertToClassicGroup after a consumer-protocol member left.
void GroupCoordinator::maybe_downgrade(const GroupPtr& g, Records& records) {
  const std::string& policy = config_.consumer_migration_policy;
  if (!g->consumer || (policy != "downgrade" && policy != "bidirectional")) return;
  const ConsumerGroup& cg = *g->consumer;
  if (cg.members.empty() || int64_t(cg.members.size()) > config_.group_max_size) return;
  for (const auto& [id, m] : cg.members) {
    if (!m.classic || m.classic->protocols.empty()) return;
  }
  // The protocol every member names, in the first member's order.
  std::optional<std::string> chosen;
  for (const auto& [name, meta] : cg.members.begin()->second.classic->protocols) {
    const bool everyone = std::all_of(cg.members.begin(), cg.members.end(), [&name](const auto& kv) {
      const auto& ps = kv.second.classic->protocols;
      return std::any_of(ps.begin(), ps.end(), [&name](const auto& p) { return p.first == name; });
    });
    if (everyone) {
      chosen = name;
      break;
    }
  }
  if (!chosen) return;
  for (auto& r : consumer_tombstones(*g)) records.push_back(std::move(r));
  const auto now = Clock::now();
  std::vector<Member> members;
  for (const auto& [id, cm] : cg.members) {
    Member m;
    m.id = id;
    m.instance_id = cm.instance_id;
    m.client_id = cm.client_id;
    m.client_host = cm.client_host;
    m.session_timeout_ms = cm.classic->session_timeout_ms;
    m.rebalance_timeout_ms = cm.rebalance_timeout_ms;
    m.protocol_type = "consumer";
    for (const auto& [name, meta] : cm.classic->protocols) m.protocols.push_back({name, meta});
    m.deadline = now + std::chrono::milliseconds(m.session_timeout_ms);
    members.push_back(std::move(m));
  }
  const int32_t epoch = cg.group_epoch;
  g->consumer.reset();
  g->protocol_type = "consumer";
  g->protocol_name = chosen;
  g->generation = epoch;
  g->members.clear();
  g->static_members.clear();
  for (Member& m : members) {
    if (m.instance_id) g->static_members[*m.instance_id] = m.id;
    g->members.push_back(std::move(m));
  }
  g->leader = g->members.front().id;
  g->state = GroupState::kStable;
  records.push_back({encode_key(GroupKey{g->id}), encode_value(group_value(*g, {}))});
  spdlog::info("group {}: its last consumer-protocol member left; back to a classic group of {} members at "
               "generation {}, rebalancing", g->id, g->members.size(), epoch);
  prepare_rebalance(g);
}

}  // namespace strata::group

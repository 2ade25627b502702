// ConsumerGroupHeartbeat and ConsumerGroupDescribe: consumer-protocol groups (KIP-848),
// following Kafka 4.x's GroupMetadataManager. One heartbeat: find or create the group,
// find or create the member (static members by instance id), check its epoch, take the
// request's changes, bump the group epoch when subscriptions or their topics changed,
// recompute the target assignment when the group epoch is ahead of it, reconcile the
// member towards its target (reconcile.h), and answer once the records are durable.
#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "group/assignors.h"
#include "group/coordinator.h"
#include "group/errors.h"
#include "group/reconcile.h"
#include "group/topic_regex.h"

namespace strata::group {

namespace {

bool blank(const std::optional<std::string>& s) {
  return s && std::all_of(s->begin(), s->end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

// A Kafka Uuid as its base64url text without padding (22 characters): what Kafka
// generates for a v0 member that sends no id.
std::string random_member_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  uint8_t b[16];
  for (int i = 0; i < 16; i += 8) {
    const uint64_t x = rng();
    std::memcpy(b + i, &x, 8);
  }
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t byte : b) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      out.push_back(kAlphabet[(acc >> (bits - 6)) & 63]);
      bits -= 6;
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(acc << (6 - bits)) & 63]);
  return out;
}

HeartbeatProblem invalid(std::string message) { return {errc::kInvalidRequest, std::move(message)}; }

// FNV-1a over the sorted subscribed topics' names, ids and partition counts: changes
// when a subscribed topic is created, deleted, recreated or grows.
int64_t topics_hash(const std::set<std::string>& names, const TopicView& topics) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const void* p, size_t n) {
    const auto* c = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  };
  for (const std::string& name : names) {
    auto t = topics.find(name);
    if (!t) continue;
    mix(name.data(), name.size());
    mix(t->id.bytes.data(), t->id.bytes.size());
    mix(&t->partitions, sizeof t->partitions);
  }
  return int64_t(h == 0 ? 1 : h);
}

// FNV-1a over every topic name: changes when a topic is created or deleted (a regex's
// resolution is then stale).
int64_t topic_set_version(const TopicView& topics) {
  uint64_t h = 1469598103934665603ull;
  topics.each([&h](const TopicInfo& t) {
    for (char c : t.name) h = (h ^ uint8_t(c)) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  });
  return int64_t(h);
}

// Kafka's preferred assignor: the one most members name, else the configured default.
std::string preferred_assignor(const ConsumerGroup& cg, const std::vector<std::string>& configured) {
  std::map<std::string, int> votes;
  for (const auto& [id, m] : cg.members) {
    if (m.server_assignor) ++votes[*m.server_assignor];
  }
  std::string best;
  int most = 0;
  for (const auto& [name, n] : votes) {
    if (n > most) {
      best = name;
      most = n;
    }
  }
  return best.empty() ? configured.front() : best;
}

std::vector<TopicPartitionsValue> partitions_value(const Assignment& a) {
  std::vector<TopicPartitionsValue> out;
  for (const auto& [topic, parts] : a) out.push_back({topic, std::vector<int32_t>(parts.begin(), parts.end())});
  return out;
}

ConsumerMemberValue member_value(const ConsumerMember& m) {
  ConsumerMemberValue v;
  v.instance_id = m.instance_id;
  v.rack_id = m.rack_id;
  v.client_id = m.client_id;
  v.client_host = m.client_host;
  v.subscribed_topic_names = m.subscribed_topic_names;
  if (!m.subscribed_topic_regex.empty()) v.subscribed_topic_regex = m.subscribed_topic_regex;
  v.rebalance_timeout_ms = m.rebalance_timeout_ms;
  v.server_assignor = m.server_assignor;
  return v;
}

CurrentAssignmentValue current_value(const ConsumerMember& m) {
  return {m.epoch, m.previous_epoch, int8_t(m.state), partitions_value(m.assigned),
          partitions_value(m.pending_revocation)};
}

using Records = std::vector<OffsetsLog::Record>;

void write_member(const std::string& group, const ConsumerMember& m, Records& out) {
  out.push_back({encode_key(ConsumerKey{ConsumerRecord::kMemberMetadata, group, m.id}), encode_value(member_value(m))});
}
void write_current(const std::string& group, const ConsumerMember& m, Records& out) {
  out.push_back({encode_key(ConsumerKey{ConsumerRecord::kCurrentAssignment, group, m.id}), encode_value(current_value(m))});
}
void write_target(const std::string& group, const std::string& member, const Assignment& a, Records& out) {
  out.push_back({encode_key(ConsumerKey{ConsumerRecord::kTargetMember, group, member}),
                 encode_value(TargetMemberValue{partitions_value(a)})});
}
void tombstone(ConsumerRecord type, const std::string& group, const std::string& sub, Records& out) {
  out.push_back({encode_key(ConsumerKey{type, group, sub}), std::nullopt});
}

}  // namespace

std::optional<HeartbeatProblem> check_heartbeat(const ConsumerHeartbeat& r,
                                                const std::vector<std::string>& assignors) {
  const std::optional<std::string> member_id(r.member_id);
  if (r.group_id.empty() || blank(std::optional<std::string>(r.group_id))) return invalid("GroupId can't be empty.");
  if ((r.api_version >= 1 || r.member_epoch > 0 || r.member_epoch == -1) && blank(member_id)) {
    return invalid("MemberId can't be empty.");
  }
  if (blank(r.instance_id)) return invalid("InstanceId can't be empty.");
  if (blank(r.rack_id)) return invalid("RackId can't be empty.");
  if (r.member_epoch == 0) {
    if (r.rebalance_timeout_ms == -1) return invalid("RebalanceTimeoutMs must be provided in first request.");
    if (!r.owned || !r.owned->empty()) return invalid("TopicPartitions must be empty when (re-)joining.");
    if (!r.subscribed_topic_names && !r.subscribed_topic_regex) {
      return invalid("SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
    }
  } else if (r.member_epoch == -2) {
    if (!r.instance_id) return invalid("InstanceId can't be null.");
  } else if (r.member_epoch < -2) {
    return invalid("MemberEpoch is invalid.");
  }
  if (r.server_assignor && std::find(assignors.begin(), assignors.end(), *r.server_assignor) == assignors.end()) {
    return HeartbeatProblem{errc::kUnsupportedAssignor, "ServerAssignor " + *r.server_assignor + " is not supported. "
                                                        "Supported assignors: " + fmt::format("{}", fmt::join(assignors, ", ")) + "."};
  }
  return std::nullopt;
}

std::chrono::milliseconds GroupCoordinator::consumer_session_timeout() const {
  return std::chrono::milliseconds(config_.consumer_session_timeout_ms);
}

// The group a joining (epoch 0) heartbeat names, created when missing; an empty
// classic group becomes a consumer group (its offsets stay), as Kafka converts it.
Result<GroupCoordinator::GroupPtr, HeartbeatProblem> GroupCoordinator::consumer_group_for_join(
    ConsumerHeartbeat& r, const TopicView& topics, Records& records) {
  GroupPtr g = find(r.group_id);
  if (g && g->consumer) return g;
  if (g && g->state == GroupState::kDead) return fail(HeartbeatProblem{errc::kCoordinatorNotAvailable, "group is being unloaded"});
  if (g && !(g->members.empty() && g->state == GroupState::kEmpty && g->pending_members.empty())) {
    // A running classic group: Kafka's online upgrade (coordinator_migration.cc).
    if (auto up = upgrade_classic_group(g, topics, records); !up) return fail(up.error());
    return g;
  }
  if (g) {
    // Kafka converts an empty classic group whatever group.consumer.migration.policy says.
    records.push_back({encode_key(GroupKey{g->id}), std::nullopt});
    g->generation = 0;
    g->protocol_name.reset();
    g->leader.reset();
    spdlog::info("group {}: empty classic group converted to a consumer group", g->id);
  } else {
    g = get_or_create(r.group_id);
  }
  g->consumer = std::make_unique<ConsumerGroup>();
  g->protocol_type = "consumer";
  g->state = GroupState::kEmpty;
  return g;
}

// Everything one heartbeat decides, gathered before any of it is applied.
struct GroupCoordinator::HeartbeatStep {
  ConsumerMember member;            // as stored before this heartbeat (new: defaults)
  bool is_new = false;
  std::optional<std::string> replaced;  // a static member's previous member id
};

void GroupCoordinator::consumer_heartbeat(ConsumerHeartbeat r, const TopicView& topics, ConsumerHeartbeatDone done) {
  auto refuse = [&done](KafkaError e, std::optional<std::string> message) {
    ConsumerHeartbeatResult out;
    out.error = e;
    out.message = std::move(message);
    done(std::move(out));
  };
  if (auto bad = check_heartbeat(r, config_.consumer_assignors)) return refuse(bad->error, bad->message);
  if (r.member_epoch < 0) return consumer_leave(r, std::move(done));
  if (r.subscribed_topic_regex && !r.subscribed_topic_regex->empty()) {
    if (auto ok = check_regex(*r.subscribed_topic_regex); !ok) return refuse(errc::kInvalidRegularExpression, ok.error());
  }
  Records records;
  GroupPtr g;
  if (r.member_epoch == 0) {
    auto got = consumer_group_for_join(r, topics, records);
    if (!got) return refuse(got.error().error, got.error().message);
    g = *got;
  } else {
    g = find(r.group_id);
    if (!g) return refuse(errc::kGroupIdNotFound, "Consumer group " + r.group_id + " not found.");
    if (!g->consumer) return refuse(errc::kGroupIdNotFound, "Group " + r.group_id + " is not a consumer group.");
  }
  ConsumerGroup& cg = *g->consumer;
  const std::string member_id = r.member_id.empty() ? random_member_id() : r.member_id;
  auto drop_if_unused = [this, &g, &cg] {
    if (cg.members.empty() && cg.group_epoch == 0 && g->offsets.empty() && g->pending_txn_offsets.empty()) erase(*g);
  };

  // Who is this: an existing member, a new one, or a static member coming back.
  HeartbeatStep step;
  if (!cg.members.contains(member_id) && cg.members.size() >= size_t(config_.consumer_max_size) &&
      !(r.instance_id && cg.static_members.contains(*r.instance_id))) {
    drop_if_unused();
    return refuse(errc::kGroupMaxSizeReached, "The consumer group has reached its maximum capacity of " +
                                                   std::to_string(config_.consumer_max_size) + " members.");
  }
  if (!r.instance_id) {
    auto it = cg.members.find(member_id);
    if (it == cg.members.end()) {
      if (r.member_epoch != 0) {
        return refuse(errc::kUnknownMemberId, "Member " + member_id + " is not a member of group " + g->id + ".");
      }
      step.is_new = true;
      step.member.id = member_id;
    } else {
      step.member = it->second;
    }
  } else {
    auto s = cg.static_members.find(*r.instance_id);
    if (r.member_epoch == 0) {
      if (s == cg.static_members.end()) {
        step.is_new = true;
        step.member.id = member_id;
        step.member.instance_id = r.instance_id;
      } else {
        const ConsumerMember& old = cg.members.at(s->second);
        if (old.epoch != -2) {
          return refuse(errc::kUnreleasedInstanceId, "Static member " + member_id + " with instance id " +
                                                         *r.instance_id + " cannot join the group because the instance id "
                                                         "is owned by member " + old.id + ".");
        }
        step.member = old;
        step.member.id = member_id;
        step.member.epoch = 0;
        step.member.previous_epoch = 0;
        step.replaced = old.id;
      }
    } else {
      if (s == cg.static_members.end()) {
        return refuse(errc::kUnknownMemberId, "Instance id " + *r.instance_id + " is unknown.");
      }
      if (s->second != member_id) {
        return refuse(errc::kFencedInstanceId, "Static member " + member_id + " with instance id " + *r.instance_id +
                                                   " was fenced by member " + s->second + ".");
      }
      step.member = cg.members.at(member_id);
    }
  }
  // Kafka's epoch check: a member ahead of the coordinator, or behind it, is fenced and
  // rejoins with nothing; behind by one with a subset of its partitions is a lost answer.
  if (!step.is_new && !step.replaced) {
    const ConsumerMember& m = step.member;
    if (r.member_epoch > m.epoch) {
      return refuse(errc::kFencedMemberEpoch, "The consumer group member has a greater member epoch (" +
                                                  std::to_string(r.member_epoch) + ") than the one known by the group "
                                                  "coordinator (" + std::to_string(m.epoch) + "). The member must abandon "
                                                  "all its partitions and rejoin.");
    }
    if (r.member_epoch < m.epoch &&
        !(r.member_epoch == m.previous_epoch && r.owned && is_subset(*r.owned, m.assigned))) {
      return refuse(errc::kFencedMemberEpoch, "The consumer group member has a smaller member epoch (" +
                                                  std::to_string(r.member_epoch) + ") than the one known by the group "
                                                  "coordinator (" + std::to_string(m.epoch) + "). The member must abandon "
                                                  "all its partitions and rejoin.");
    }
  }

  // The member with this request's changes (null fields: unchanged).
  ConsumerMember updated = step.member;
  if (r.instance_id) updated.instance_id = r.instance_id;
  if (r.rack_id) updated.rack_id = r.rack_id;
  if (r.rebalance_timeout_ms != -1) updated.rebalance_timeout_ms = r.rebalance_timeout_ms;
  if (r.server_assignor) updated.server_assignor = r.server_assignor;
  if (r.subscribed_topic_names) {
    std::vector<std::string> names = *r.subscribed_topic_names;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    updated.subscribed_topic_names = std::move(names);
  }
  if (r.subscribed_topic_regex) updated.subscribed_topic_regex = *r.subscribed_topic_regex;
  updated.client_id = r.client_id;
  updated.client_host = r.client_host;
  updated.classic.reset();  // it speaks the consumer protocol now

  if (step.replaced) {
    // Kafka's replaceMember: the old id's records go, the new id takes its target.
    const Assignment target = cg.target.contains(*step.replaced) ? cg.target.at(*step.replaced) : Assignment{};
    tombstone(ConsumerRecord::kCurrentAssignment, g->id, *step.replaced, records);
    tombstone(ConsumerRecord::kTargetMember, g->id, *step.replaced, records);
    tombstone(ConsumerRecord::kMemberMetadata, g->id, *step.replaced, records);
    cg.remove(*step.replaced);
    cg.target[updated.id] = target;
    write_member(g->id, updated, records);
    write_target(g->id, updated.id, target, records);
    write_current(g->id, updated, records);
    cg.put(updated);
    spdlog::info("group {}: static member {} rejoined as {}", g->id, *updated.instance_id, updated.id);
  } else if (step.is_new || !updated.same_metadata(step.member)) {
    write_member(g->id, updated, records);
  }
  auto settled = settle_member(*g, step.member, std::move(updated), step.is_new, r.owned, topics,
                               consumer_session_timeout(), records);
  if (!settled) return refuse(settled.error().error, settled.error().message);
  const ConsumerMember& after = *settled;
  consumer_arm(g);

  ConsumerHeartbeatResult out;
  out.member_id = after.id;
  out.member_epoch = after.epoch;
  out.heartbeat_interval_ms = config_.consumer_heartbeat_interval_ms;
  const bool full = r.rebalance_timeout_ms != -1 && (r.subscribed_topic_names || r.subscribed_topic_regex) && r.owned;
  if (r.member_epoch == 0 || full || after.assigned != step.member.assigned) out.assignment = after.assigned;
  if (step.is_new) spdlog::info("group {}: member {} joined (group epoch {})", g->id, after.id, cg.group_epoch);
  consumer_write(*g, std::move(records), [out = std::move(out), done = std::move(done)](KafkaError e) mutable {
    if (e != errc::kNone) {
      ConsumerHeartbeatResult failed;
      failed.error = e;
      return done(std::move(failed));
    }
    done(std::move(out));
  });
}

// What every change of a member leads to (the consumer heartbeat's and a classic
// member's JoinGroup alike): the member stored, regexes resolved, the group epoch bumped
// when subscriptions or their topics changed, the target recomputed when the epoch moved
// past it, and the member reconciled towards its target. Returns the member as stored.
Result<ConsumerMember, HeartbeatProblem> GroupCoordinator::settle_member(
    Group& g, const ConsumerMember& before_update, ConsumerMember updated, bool is_new,
    const std::optional<Assignment>& owned, const TopicView& topics, std::chrono::milliseconds session,
    Records& records) {
  ConsumerGroup& cg = *g.consumer;
  const bool names_changed = is_new ? !updated.subscribed_topic_names.empty()
                                         : updated.subscribed_topic_names != before_update.subscribed_topic_names;
  bool bump = cg.group_epoch == 0 || names_changed;
  const std::string old_regex = before_update.subscribed_topic_regex;
  if (updated.subscribed_topic_regex != old_regex) bump = true;
  cg.put(updated);

  // Regular expressions: resolve new ones, re-resolve when topics came or went, drop
  // the ones no member uses any more.
  const int64_t version = topic_set_version(topics);
  const std::set<std::string> in_use = cg.regexes_in_use();
  for (auto it = cg.regexes.begin(); it != cg.regexes.end();) {
    if (in_use.contains(it->first)) {
      ++it;
      continue;
    }
    tombstone(ConsumerRecord::kRegularExpression, g.id, it->first, records);
    it = cg.regexes.erase(it);
  }
  for (const std::string& regex : in_use) {
    auto it = cg.regexes.find(regex);
    if (it != cg.regexes.end() && it->second.version == version) continue;
    ResolvedRegex resolved{resolve_regex(regex, topics), version, wall_ms()};
    if (it == cg.regexes.end() || it->second.topics != resolved.topics) bump = true;
    RegexValue v{std::vector<std::string>(resolved.topics.begin(), resolved.topics.end()), resolved.version,
                 resolved.timestamp};
    records.push_back({encode_key(ConsumerKey{ConsumerRecord::kRegularExpression, g.id, regex}), encode_value(v)});
    cg.regexes[regex] = std::move(resolved);
  }
  const int64_t hash = topics_hash(cg.subscribed_topics(), topics);
  if (hash != cg.metadata_hash) bump = true;
  if (bump) bump_group_epoch(g, hash, records);

  // The target assignment, when the group epoch moved past it.
  if (cg.group_epoch > cg.assignment_epoch) {
    AssignorInput in;
    for (const auto& [id, m] : cg.members) {
      AssignorMember am{m.instance_id, {}, cg.target.contains(id) ? cg.target.at(id) : Assignment{}};
      for (const std::string& name : cg.topics_of(m)) {
        if (auto t = topics.find(name); t && t->partitions > 0) {
          am.topics.insert(t->id);
          in.partitions[t->id] = t->partitions;
        }
      }
      in.members.emplace(id, std::move(am));
    }
    const std::string assignor = preferred_assignor(cg, config_.consumer_assignors);
    auto target = assign(assignor, in);
    if (!target) return fail(HeartbeatProblem{errc::kUnknownServerError, "the " + assignor + " assignor failed: " + target.error()});
    for (auto& [id, a] : *target) {
      auto old = cg.target.find(id);
      const bool changed = old == cg.target.end() ? !a.empty() : old->second != a;
      if (changed) write_target(g.id, id, a, records);
      cg.target[id] = std::move(a);
    }
    cg.assignment_epoch = cg.group_epoch;
    records.push_back({encode_key(ConsumerKey{ConsumerRecord::kTargetMetadata, g.id, ""}),
                       encode_value(TargetMetadataValue{cg.assignment_epoch})});
  }

  // Reconcile the member towards its target.
  ConsumerMember before = cg.members.at(updated.id);
  ConsumerMember after = before;
  if (!before.reconciled_to(cg.assignment_epoch)) {
    static const Assignment kEmpty;
    auto t = cg.target.find(before.id);
    ReconcileInput in{before, cg.assignment_epoch, t == cg.target.end() ? kEmpty : t->second, owned,
                      [&cg](const Uuid& topic, int32_t p) { return cg.owner_epoch(topic, p); }};
    auto next = reconcile(in);
    if (!next) return fail(HeartbeatProblem{next.error(), "The member is in an unknown state and must rejoin without partitions."});
    after = std::move(*next);
  }
  const auto now = Clock::now();
  after.session_deadline = now + session;
  after.rejoin_deadline.reset();
  if (after.state == MemberState::kUnrevokedPartitions) {
    if (!after.revoke_deadline || after.revoke_epoch != after.epoch) {
      after.revoke_deadline = now + std::chrono::milliseconds(std::max(after.rebalance_timeout_ms, 0));
      after.revoke_epoch = after.epoch;
    }
  } else {
    after.revoke_deadline.reset();
    after.revoke_epoch = -1;
  }
  if (!after.same_assignment(before) || is_new) write_current(g.id, after, records);
  if (after.state != before.state || after.epoch != before.epoch) {
    spdlog::debug("group {}: member {} epoch {} -> {}, {} -> {}", g.id, after.id, before.epoch, after.epoch,
                  to_string(before.state), to_string(after.state));
  }
  cg.put(after);
  g.state = cg.members.empty() ? GroupState::kEmpty : GroupState::kStable;
  return after;
}

void GroupCoordinator::consumer_leave(ConsumerHeartbeat& r, ConsumerHeartbeatDone done) {
  ConsumerHeartbeatResult out;
  out.member_id = r.member_id;
  auto refuse = [&done](KafkaError e, std::string message) {
    ConsumerHeartbeatResult res;
    res.error = e;
    res.message = std::move(message);
    done(std::move(res));
  };
  GroupPtr g = find(r.group_id);
  if (!g || !g->consumer) return refuse(errc::kGroupIdNotFound, "Consumer group " + r.group_id + " not found.");
  ConsumerGroup& cg = *g->consumer;
  Records records;
  if (r.instance_id) {
    auto s = cg.static_members.find(*r.instance_id);
    if (s == cg.static_members.end()) return refuse(errc::kUnknownMemberId, "Instance id " + *r.instance_id + " is unknown.");
    if (s->second != r.member_id) {
      return refuse(errc::kFencedInstanceId, "Static member " + r.member_id + " with instance id " + *r.instance_id +
                                                 " was fenced by member " + s->second + ".");
    }
    if (r.member_epoch == -2) {
      // Leaves for now: keeps its partitions and its place until its session ends.
      ConsumerMember m = cg.members.at(r.member_id);
      m.previous_epoch = m.epoch;
      m.epoch = -2;
      m.pending_revocation.clear();
      m.revoke_deadline.reset();
      write_current(g->id, m, records);
      cg.put(std::move(m));
      spdlog::info("group {}: static member {} ({}) left for now", g->id, *r.instance_id, r.member_id);
      out.member_epoch = -2;
      consumer_arm(g);
      return consumer_write(*g, std::move(records), [out = std::move(out), done = std::move(done)](KafkaError e) mutable {
        if (e != errc::kNone) out = ConsumerHeartbeatResult{.error = e};
        done(std::move(out));
      });
    }
  } else if (!cg.members.contains(r.member_id)) {
    return refuse(errc::kUnknownMemberId, "Member " + r.member_id + " is not a member of group " + g->id + ".");
  }
  spdlog::info("group {}: member {} left", g->id, r.member_id);
  fence_consumer_member(*g, r.member_id, records);
  maybe_downgrade(g, records);
  out.member_epoch = -1;
  arm(g);
  consumer_write(*g, std::move(records), [out = std::move(out), done = std::move(done)](KafkaError e) mutable {
    if (e != errc::kNone) out = ConsumerHeartbeatResult{.error = e};
    done(std::move(out));
  });
}

// Kafka's removeMember plus the epoch bump that follows: the member's records go, its
// partitions become free, and the others are reassigned at the next heartbeat.
void GroupCoordinator::fence_consumer_member(Group& g, const std::string& member_id, Records& records) {
  ConsumerGroup& cg = *g.consumer;
  tombstone(ConsumerRecord::kCurrentAssignment, g.id, member_id, records);
  tombstone(ConsumerRecord::kTargetMember, g.id, member_id, records);
  tombstone(ConsumerRecord::kMemberMetadata, g.id, member_id, records);
  cg.remove(member_id);
  const std::set<std::string> in_use = cg.regexes_in_use();
  for (auto it = cg.regexes.begin(); it != cg.regexes.end();) {
    if (in_use.contains(it->first)) {
      ++it;
      continue;
    }
    tombstone(ConsumerRecord::kRegularExpression, g.id, it->first, records);
    it = cg.regexes.erase(it);
  }
  bump_group_epoch(g, cg.metadata_hash, records);
  g.state = cg.members.empty() ? GroupState::kEmpty : GroupState::kStable;
  if (cg.members.empty()) g.state_timestamp = wall_ms();
}

void GroupCoordinator::bump_group_epoch(Group& g, int64_t metadata_hash, Records& records) {
  ConsumerGroup& cg = *g.consumer;
  ++cg.group_epoch;
  cg.metadata_hash = metadata_hash;
  records.push_back({encode_key(ConsumerKey{ConsumerRecord::kGroupMetadata, g.id, ""}),
                     encode_value(ConsumerGroupMetadataValue{cg.group_epoch, cg.metadata_hash})});
}

void GroupCoordinator::consumer_arm(const GroupPtr& g) {
  std::optional<Clock::time_point> next;
  for (const auto& [id, m] : g->consumer->members) {
    if (!next || m.session_deadline < *next) next = m.session_deadline;
    if (m.revoke_deadline && *m.revoke_deadline < *next) next = *m.revoke_deadline;
    if (m.rejoin_deadline && *m.rejoin_deadline < *next) next = *m.rejoin_deadline;
  }
  if (!next) {
    g->timer.cancel();
    return;
  }
  g->timer.expires_at(*next);
  std::weak_ptr<Group> weak = g;
  g->timer.async_wait([this, weak](const asio::error_code& ec) {
    if (ec) return;  // re-armed or cancelled
    if (GroupPtr locked = weak.lock(); locked && locked->consumer) consumer_on_timer(locked);
  });
}

// Members whose session ended, or who kept partitions due elsewhere past their
// rebalance timeout, are fenced (Kafka's session and rebalance timers).
void GroupCoordinator::consumer_on_timer(const GroupPtr& g) {
  const auto now = Clock::now();
  std::vector<std::pair<std::string, const char*>> fenced;
  for (const auto& [id, m] : g->consumer->members) {
    if (m.session_deadline <= now) {
      fenced.emplace_back(id, "its session timed out");
    } else if (m.revoke_deadline && *m.revoke_deadline <= now && m.state == MemberState::kUnrevokedPartitions &&
               m.epoch == m.revoke_epoch) {
      fenced.emplace_back(id, "it did not give up its revoked partitions within its rebalance timeout");
    } else if (m.rejoin_deadline && *m.rejoin_deadline <= now) {
      fenced.emplace_back(id, "a classic member told to join again did not within its rebalance timeout");
    }
  }
  if (!fenced.empty()) {
    Records records;
    for (const auto& [id, why] : fenced) {
      spdlog::info("group {}: member {} fenced: {}", g->id, id, why);
      fence_consumer_member(*g, id, records);
    }
    maybe_downgrade(g, records);
    consumer_write(*g, std::move(records), [](KafkaError) {});
  }
  arm(g);
}

void GroupCoordinator::consumer_write(Group& g, Records records, std::function<void(KafkaError)> done) {
  if (records.empty()) return done(errc::kNone);
  log_.append(g.partition, std::move(records), [done = std::move(done)](KafkaError error) {
    // Kafka's mapping of storage errors for the new coordinator (CoordinatorOperationExceptionHelper).
    switch (error) {
      case errc::kNone: return done(errc::kNone);
      case errc::kNotEnoughReplicas:
      case errc::kNotEnoughReplicasAfterAppend:
      case errc::kRequestTimedOut:
      case errc::kUnknownTopicOrPartition:
        return done(errc::kCoordinatorNotAvailable);
      case errc::kNotLeaderOrFollower:
      case errc::kKafkaStorageError:
        return done(errc::kNotCoordinator);
      default:
        return done(errc::kUnknownServerError);
    }
  });
}

ConsumerGroupDescription GroupCoordinator::consumer_describe(const std::string& group_id) const {
  ConsumerGroupDescription d;
  GroupPtr g = find(group_id);
  if (!g || !g->consumer) {
    d.error = errc::kGroupIdNotFound;
    d.message = g ? "Group " + group_id + " is not a consumer group." : "Group " + group_id + " not found.";
    return d;
  }
  const ConsumerGroup& cg = *g->consumer;
  d.state = cg.state();
  d.group_epoch = cg.group_epoch;
  d.assignment_epoch = cg.assignment_epoch;
  d.assignor = preferred_assignor(cg, config_.consumer_assignors);
  for (const auto& [id, m] : cg.members) {
    auto t = cg.target.find(id);
    d.members.push_back({m, t == cg.target.end() ? Assignment{} : t->second});
  }
  return d;
}

KafkaError GroupCoordinator::check_offset_fetch(const std::string& group_id, const std::optional<std::string>& member_id,
                                                int32_t member_epoch) const {
  GroupPtr g = find(group_id);
  if (!g || !g->consumer) return errc::kNone;
  if (!member_id && member_epoch < 0) return errc::kNone;
  auto it = g->consumer->members.find(member_id.value_or(""));
  if (it == g->consumer->members.end()) return errc::kUnknownMemberId;
  if (it->second.epoch != member_epoch) return errc::kStaleMemberEpoch;
  return errc::kNone;
}

// Kafka's ConsumerGroup.validateOffsetCommit.
KafkaError GroupCoordinator::check_consumer_commit(const Group& g, const MemberRef& member) const {
  const ConsumerGroup& cg = *g.consumer;
  if (member.generation < 0 && cg.members.empty()) return errc::kNone;  // an admin's or a simple commit
  auto it = cg.members.find(member.member_id);
  if (it == cg.members.end()) return errc::kUnknownMemberId;
  if (it->second.classic) {
    // A classic member commits with its generation, which is its epoch.
    return it->second.epoch == member.generation ? errc::kNone : errc::kIllegalGeneration;
  }
  if (!member.epoch_aware) return errc::kUnsupportedVersion;  // consumer members commit with v9+
  if (it->second.epoch != member.generation) return errc::kStaleMemberEpoch;
  return errc::kNone;
}

}  // namespace strata::group

#include "group/coordinator.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "group/errors.h"
#include "group/loading.h"

namespace strata::group {

int64_t wall_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}


GroupCoordinator::GroupCoordinator(GroupConfig config, int32_t partitions, OffsetsLog& log,
                                   ExecutorFor executor_for)
    : config_(config), log_(log), executor_for_(std::move(executor_for)),
      groups_(size_t(partitions)), loading_(size_t(partitions)) {}

GroupCoordinator::~GroupCoordinator() = default;

GroupCoordinator::GroupPtr GroupCoordinator::find(const std::string& group_id) const {
  const auto& groups = groups_[size_t(partition_for(group_id))];
  auto it = groups.find(group_id);
  return it == groups.end() ? nullptr : it->second;
}

GroupCoordinator::GroupPtr GroupCoordinator::get_or_create(const std::string& group_id) {
  const int32_t p = partition_for(group_id);
  auto& slot = groups_[size_t(p)][group_id];
  if (!slot) {
    slot = std::make_shared<Group>(group_id, p, executor_for_(p));
    slot->state_timestamp = wall_ms();
  }
  return slot;
}

void GroupCoordinator::erase(const Group& g) {
  auto& groups = groups_[size_t(g.partition)];
  auto it = groups.find(g.id);
  if (it == groups.end() || it->second.get() != &g) return;  // a reloaded group of the same id stays
  it->second->timer.cancel();
  groups.erase(it);
}

std::vector<GroupListing> GroupCoordinator::list(int32_t partition) const {
  std::vector<GroupListing> out;
  for (const auto& [id, g] : groups_[size_t(partition)]) {
    if (g->consumer) {
      out.push_back({id, "consumer", to_string(g->consumer->state()), "consumer"});
    } else {
      out.push_back({id, g->protocol_type.value_or(""), to_string(g->state), "classic"});
    }
  }
  return out;
}

// As Kafka's GroupMetadata.summary: member metadata and assignments only when Stable.
GroupDescription GroupCoordinator::describe(const std::string& group_id) const {
  GroupDescription d;
  GroupPtr g = find(group_id);
  if (!g) return d;
  d.exists = true;
  if (g->consumer) {
    d.protocol_type = "consumer";
    return d;
  }
  d.state = g->state;
  d.protocol_type = g->protocol_type.value_or("");
  const bool stable = g->state == GroupState::kStable;
  if (stable) d.protocol_name = g->protocol_name.value_or("");
  for (const Member& m : g->members) {
    MemberDescription md{m.id, m.instance_id, m.client_id, m.client_host, {}, {}};
    if (stable) {
      md.metadata = m.metadata(g->protocol_name);
      md.assignment = m.assignment;
    }
    d.members.push_back(std::move(md));
  }
  return d;
}

size_t GroupCoordinator::member_count(const std::string& group_id) const {
  GroupPtr g = find(group_id);
  if (!g) return 0;
  return g->consumer ? g->consumer->members.size() : g->members.size();
}

void GroupCoordinator::delete_group(const std::string& group_id, std::function<void(KafkaError)> done) {
  GroupPtr g = find(group_id);
  if (!g || g->state == GroupState::kDead) return done(errc::kGroupIdNotFound);
  if (g->state != GroupState::kEmpty) return done(errc::kNonEmptyGroup);
  std::vector<OffsetsLog::Record> records;
  for (const auto& [tp, o] : g->offsets) {
    records.push_back({encode_key(OffsetKey{g->id, tp.first, tp.second}), std::nullopt});
  }
  if (g->consumer) {
    if (!g->consumer->members.empty()) return done(errc::kNonEmptyGroup);
    for (auto& r : consumer_tombstones(*g)) records.push_back(std::move(r));
  } else {
    records.push_back({encode_key(GroupKey{g->id}), std::nullopt});
  }
  transition(*g, GroupState::kDead);
  erase(*g);
  spdlog::info("group {} deleted", group_id);
  log_.append(g->partition, std::move(records), [done = std::move(done)](KafkaError error) {
    done(error == errc::kNone ? errc::kNone : errc::kCoordinatorNotAvailable);
  });
}

void GroupCoordinator::replay(int32_t partition, Bytes key, std::optional<Bytes> value) {
  auto& slot = loading_[size_t(partition)];
  if (!slot) slot = std::make_unique<Loading>();
  auto k = decode_key(key);
  if (!k) {
    spdlog::warn("{}-{}: skipping record: {}", kOffsetsTopic, partition, k.error());
    return;
  }
  if (const auto* ck = std::get_if<ConsumerKey>(&*k)) return replay_consumer(partition, *ck, std::move(value));
  if (const auto* ok = std::get_if<OffsetKey>(&*k)) {
    auto& offsets = slot->offsets[ok->group];
    if (!value) {
      offsets.erase({ok->topic, ok->partition});
      return;
    }
    auto v = decode_offset_value(*value);
    if (!v) {
      spdlog::warn("{}-{}: skipping offset of group {}: {}", kOffsetsTopic, partition, ok->group, v.error());
      return;
    }
    offsets[{ok->topic, ok->partition}] =
        CommittedOffset{v->offset, v->leader_epoch, v->metadata, v->commit_timestamp, v->expire_timestamp};
    return;
  }
  const auto& gk = std::get<GroupKey>(*k);
  if (!value) {
    slot->groups[gk.group] = std::nullopt;
    return;
  }
  auto v = decode_group_value(*value);
  if (!v) {
    spdlog::warn("{}-{}: skipping metadata of group {}: {}", kOffsetsTopic, partition, gk.group, v.error());
    return;
  }
  slot->groups[gk.group] = std::move(*v);
  slot->consumer.erase(gk.group);  // the group became classic
}

void GroupCoordinator::finish_load(int32_t partition) {
  std::unique_ptr<Loading> loaded = std::move(loading_[size_t(partition)]);
  if (!loaded) return;
  size_t count = 0;
  for (auto& [id, value] : loaded->groups) {
    if (!value) continue;
    GroupPtr g = get_or_create(id);
    ++count;
    if (!value->protocol_type.empty()) g->protocol_type = value->protocol_type;
    g->generation = value->generation;
    g->protocol_name = value->protocol;
    g->leader = value->leader;
    g->state_timestamp = value->current_state_timestamp;
    for (MemberRecord& r : value->members) {
      Member m;
      m.id = r.member_id;
      m.instance_id = r.group_instance_id;
      m.client_id = r.client_id;
      m.client_host = r.client_host;
      m.session_timeout_ms = r.session_timeout_ms;
      m.rebalance_timeout_ms = r.rebalance_timeout_ms;
      m.protocol_type = value->protocol_type;
      if (value->protocol) m.protocols.push_back({*value->protocol, std::move(r.subscription)});
      m.assignment = std::move(r.assignment);
      touch(m);  // loaded members must heartbeat within their session timeout
      if (m.instance_id) g->static_members[*m.instance_id] = m.id;
      g->members.push_back(std::move(m));
    }
    g->state = g->members.empty() ? GroupState::kEmpty : GroupState::kStable;
    if (g->leader && !g->find(*g->leader)) g->leader.reset();
  }
  finish_consumer_load(*loaded, count);
  for (auto& [id, offsets] : loaded->offsets) {
    if (offsets.empty()) continue;
    auto gv = loaded->groups.find(id);
    if (gv == loaded->groups.end() || !gv->second) ++count;
    get_or_create(id)->offsets = std::move(offsets);
  }
  for (auto& [pid, groups] : loaded->pending) {
    for (auto& [id, offsets] : groups) get_or_create(id)->pending_txn_offsets[pid] = std::move(offsets);
  }
  for (const auto& [id, g] : groups_[size_t(partition)]) arm(g);
  if (count > 0) spdlog::info("{}-{}: loaded {} groups", kOffsetsTopic, partition, count);
}

void GroupCoordinator::shutdown(int32_t partition) {
  for (const auto& [id, g] : groups_[size_t(partition)]) g->timer.cancel();
}

void GroupCoordinator::unload(int32_t partition) {
  loading_[size_t(partition)].reset();
  std::map<std::string, GroupPtr> gone = std::move(groups_[size_t(partition)]);
  groups_[size_t(partition)].clear();
  for (const auto& [id, g] : gone) {
    g->timer.cancel();
    g->state = GroupState::kDead;
    for (Member& m : g->members) {
      if (m.awaiting_join) std::exchange(m.awaiting_join, {})(JoinResult{.error = errc::kNotCoordinator});
      if (m.awaiting_sync) std::exchange(m.awaiting_sync, {})(SyncResult{.error = errc::kNotCoordinator});
    }
  }
  if (!gone.empty()) spdlog::info("{}-{}: unloaded {} groups", kOffsetsTopic, partition, gone.size());
}

}  // namespace strata::group

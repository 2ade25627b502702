// Consumer-protocol groups in __consumer_offsets: replaying their records at load, and
// the tombstones that remove a group.
#include <spdlog/spdlog.h>

#include "group/coordinator.h"
#include "group/loading.h"

namespace strata::group {

namespace {

Assignment assignment_of(const std::vector<TopicPartitionsValue>& list) {
  Assignment a;
  for (const auto& t : list) a[t.topic_id].insert(t.partitions.begin(), t.partitions.end());
  normalize(a);
  return a;
}

template <class T>
void keep(std::map<std::string, T>& map, const std::string& key, Result<T, std::string> value) {
  if (value) map[key] = std::move(*value);
}

}  // namespace

void GroupCoordinator::replay_consumer(int32_t partition, const ConsumerKey& key, std::optional<Bytes> value) {
  Loading& slot = *loading_[size_t(partition)];
  auto warn = [&](const std::string& error) {
    spdlog::warn("{}-{}: skipping a record of consumer group {}: {}", kOffsetsTopic, partition, key.group, error);
  };
  if (key.type == ConsumerRecord::kGroupMetadata && !value) {
    slot.consumer.erase(key.group);  // the group is gone
    return;
  }
  Loading::Consumer& c = slot.consumer[key.group];
  switch (key.type) {
    case ConsumerRecord::kGroupMetadata: {
      auto v = decode_group_metadata_value(*value);
      if (!v) return warn(v.error());
      c.metadata = *v;
      slot.groups[key.group] = std::nullopt;  // the group became a consumer group
      return;
    }
    case ConsumerRecord::kPartitionMetadata:
      return;  // Kafka 4.0's subscription metadata: Strata hashes the topics instead
    case ConsumerRecord::kMemberMetadata:
      if (!value) {
        c.members.erase(key.sub);
        return;
      }
      if (auto v = decode_member_value(*value); !v) return warn(v.error());
      keep(c.members, key.sub, decode_member_value(*value));
      return;
    case ConsumerRecord::kTargetMetadata: {
      if (!value) {
        c.assignment_epoch.reset();
        return;
      }
      auto v = decode_target_metadata_value(*value);
      if (!v) return warn(v.error());
      c.assignment_epoch = v->assignment_epoch;
      return;
    }
    case ConsumerRecord::kTargetMember:
      if (!value) {
        c.targets.erase(key.sub);
        return;
      }
      if (auto v = decode_target_member_value(*value); !v) return warn(v.error());
      keep(c.targets, key.sub, decode_target_member_value(*value));
      return;
    case ConsumerRecord::kCurrentAssignment:
      if (!value) {
        c.current.erase(key.sub);
        return;
      }
      if (auto v = decode_current_assignment_value(*value); !v) return warn(v.error());
      keep(c.current, key.sub, decode_current_assignment_value(*value));
      return;
    case ConsumerRecord::kRegularExpression:
      if (!value) {
        c.regexes.erase(key.sub);
        return;
      }
      if (auto v = decode_regex_value(*value); !v) return warn(v.error());
      keep(c.regexes, key.sub, decode_regex_value(*value));
      return;
  }
}

// Rebuilds every consumer group whose epoch record survives. Members get a fresh
// session: they must heartbeat within the session timeout of the load.
void GroupCoordinator::finish_consumer_load(Loading& loaded, size_t& count) {
  const auto deadline = Clock::now() + consumer_session_timeout();
  for (auto& [id, c] : loaded.consumer) {
    if (!c.metadata) continue;
    GroupPtr g = get_or_create(id);
    g->consumer = std::make_unique<ConsumerGroup>();
    g->protocol_type = "consumer";
    ConsumerGroup& cg = *g->consumer;
    cg.group_epoch = c.metadata->epoch;
    cg.metadata_hash = c.metadata->metadata_hash;
    cg.assignment_epoch = c.assignment_epoch.value_or(0);
    for (auto& [regex, v] : c.regexes) {
      cg.regexes[regex] = ResolvedRegex{std::set<std::string>(v.topics.begin(), v.topics.end()), v.version, v.timestamp};
    }
    for (auto& [member, t] : c.targets) cg.target[member] = assignment_of(t.topic_partitions);
    for (auto& [member, v] : c.members) {
      ConsumerMember m;
      m.id = member;
      m.instance_id = v.instance_id;
      m.rack_id = v.rack_id;
      m.client_id = v.client_id;
      m.client_host = v.client_host;
      m.subscribed_topic_names = v.subscribed_topic_names;
      m.subscribed_topic_regex = v.subscribed_topic_regex.value_or("");
      m.rebalance_timeout_ms = v.rebalance_timeout_ms;
      m.server_assignor = v.server_assignor;
      if (v.classic) m.classic = ClassicMembership{v.classic->session_timeout_ms, v.classic->supported_protocols};
      if (auto cur = c.current.find(member); cur != c.current.end()) {
        m.epoch = cur->second.member_epoch;
        m.previous_epoch = cur->second.previous_member_epoch;
        const int8_t s = cur->second.state;
        m.state = s == 0 ? MemberState::kStable
                  : s == 1 ? MemberState::kUnrevokedPartitions
                  : s == 2 ? MemberState::kUnreleasedPartitions
                           : MemberState::kUnknown;
        m.assigned = assignment_of(cur->second.assigned);
        m.pending_revocation = assignment_of(cur->second.pending_revocation);
      }
      m.session_deadline =
          m.classic ? Clock::now() + std::chrono::milliseconds(m.classic->session_timeout_ms) : deadline;
      cg.put(std::move(m));
    }
    g->state = cg.members.empty() ? GroupState::kEmpty : GroupState::kStable;
    ++count;
  }
}

// Kafka's ConsumerGroup.createGroupTombstoneRecords: every member's current and target
// assignment, the target epoch, every member's metadata, the regexes, the subscription
// metadata and last the group epoch record.
GroupCoordinator::Records GroupCoordinator::consumer_tombstones(const Group& g) const {
  Records out;
  const ConsumerGroup& cg = *g.consumer;
  auto tomb = [&](ConsumerRecord type, const std::string& sub) {
    out.push_back({encode_key(ConsumerKey{type, g.id, sub}), std::nullopt});
  };
  for (const auto& [id, m] : cg.members) tomb(ConsumerRecord::kCurrentAssignment, id);
  for (const auto& [id, m] : cg.members) tomb(ConsumerRecord::kTargetMember, id);
  tomb(ConsumerRecord::kTargetMetadata, "");
  for (const auto& [id, m] : cg.members) tomb(ConsumerRecord::kMemberMetadata, id);
  for (const auto& [regex, r] : cg.regexes) tomb(ConsumerRecord::kRegularExpression, regex);
  tomb(ConsumerRecord::kPartitionMetadata, "");
  tomb(ConsumerRecord::kGroupMetadata, "");
  return out;
}

}  // namespace strata::group

#include "group/consumer_group.h"

#include <algorithm>

namespace strata::group {

void normalize(Assignment& a) {
  std::erase_if(a, [](const auto& kv) { return kv.second.empty(); });
}

bool contains_any(const Assignment& a, const Assignment& b) {
  for (const auto& [topic, parts] : a) {
    auto it = b.find(topic);
    if (it == b.end()) continue;
    for (int32_t p : parts) {
      if (it->second.contains(p)) return true;
    }
  }
  return false;
}

bool is_subset(const Assignment& a, const Assignment& b) {
  for (const auto& [topic, parts] : a) {
    if (parts.empty()) continue;
    auto it = b.find(topic);
    if (it == b.end()) return false;
    if (!std::includes(it->second.begin(), it->second.end(), parts.begin(), parts.end())) return false;
  }
  return true;
}

size_t partition_count(const Assignment& a) {
  size_t n = 0;
  for (const auto& [topic, parts] : a) n += parts.size();
  return n;
}

const char* to_string(MemberState s) {
  switch (s) {
    case MemberState::kStable: return "STABLE";
    case MemberState::kUnrevokedPartitions: return "UNREVOKED_PARTITIONS";
    case MemberState::kUnreleasedPartitions: return "UNRELEASED_PARTITIONS";
    case MemberState::kUnknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

const char* to_string(ConsumerGroupState s) {
  switch (s) {
    case ConsumerGroupState::kEmpty: return "Empty";
    case ConsumerGroupState::kAssigning: return "Assigning";
    case ConsumerGroupState::kReconciling: return "Reconciling";
    case ConsumerGroupState::kStable: return "Stable";
    case ConsumerGroupState::kDead: return "Dead";
  }
  return "Dead";
}

bool ConsumerMember::same_metadata(const ConsumerMember& o) const {
  return instance_id == o.instance_id && rack_id == o.rack_id && client_id == o.client_id &&
         client_host == o.client_host && subscribed_topic_names == o.subscribed_topic_names &&
         subscribed_topic_regex == o.subscribed_topic_regex &&
         rebalance_timeout_ms == o.rebalance_timeout_ms && server_assignor == o.server_assignor &&
         classic == o.classic;
}

bool ConsumerMember::same_assignment(const ConsumerMember& o) const {
  return epoch == o.epoch && previous_epoch == o.previous_epoch && state == o.state &&
         assigned == o.assigned && pending_revocation == o.pending_revocation;
}

// Kafka's ConsumerGroup.maybeUpdateGroupState.
ConsumerGroupState ConsumerGroup::state() const {
  if (members.empty()) return ConsumerGroupState::kEmpty;
  if (group_epoch > assignment_epoch) return ConsumerGroupState::kAssigning;
  for (const auto& [id, m] : members) {
    if (!m.reconciled_to(assignment_epoch)) return ConsumerGroupState::kReconciling;
  }
  return ConsumerGroupState::kStable;
}

int32_t ConsumerGroup::owner_epoch(const Uuid& topic, int32_t partition) const {
  auto it = owners.find({topic, partition});
  return it == owners.end() ? -1 : it->second;
}

namespace {

void forget(std::map<std::pair<Uuid, int32_t>, int32_t, TopicPartitionLess>& owners, const ConsumerMember& m) {
  for (const Assignment* a : {&m.assigned, &m.pending_revocation}) {
    for (const auto& [topic, parts] : *a) {
      for (int32_t p : parts) {
        auto it = owners.find({topic, p});
        if (it != owners.end() && it->second == m.epoch) owners.erase(it);
      }
    }
  }
}

}  // namespace

void ConsumerGroup::put(ConsumerMember m) {
  auto it = members.find(m.id);
  if (it != members.end()) {
    forget(owners, it->second);
    if (it->second.instance_id && it->second.instance_id != m.instance_id) {
      static_members.erase(*it->second.instance_id);
    }
  }
  for (const Assignment* a : {&m.assigned, &m.pending_revocation}) {
    for (const auto& [topic, parts] : *a) {
      for (int32_t p : parts) owners[{topic, p}] = m.epoch;
    }
  }
  if (m.instance_id) static_members[*m.instance_id] = m.id;
  members[m.id] = std::move(m);
}

void ConsumerGroup::remove(const std::string& member_id) {
  auto it = members.find(member_id);
  if (it == members.end()) return;
  forget(owners, it->second);
  if (it->second.instance_id) {
    auto s = static_members.find(*it->second.instance_id);
    if (s != static_members.end() && s->second == member_id) static_members.erase(s);
  }
  members.erase(it);
  target.erase(member_id);
}

std::set<std::string> ConsumerGroup::regexes_in_use() const {
  std::set<std::string> out;
  for (const auto& [id, m] : members) {
    if (!m.subscribed_topic_regex.empty()) out.insert(m.subscribed_topic_regex);
  }
  return out;
}

std::set<std::string> ConsumerGroup::topics_of(const ConsumerMember& m) const {
  std::set<std::string> out(m.subscribed_topic_names.begin(), m.subscribed_topic_names.end());
  if (!m.subscribed_topic_regex.empty()) {
    auto it = regexes.find(m.subscribed_topic_regex);
    if (it != regexes.end()) out.insert(it->second.topics.begin(), it->second.topics.end());
  }
  return out;
}

std::set<std::string> ConsumerGroup::subscribed_topics() const {
  std::set<std::string> out;
  for (const auto& [id, m] : members) {
    auto t = topics_of(m);
    out.insert(t.begin(), t.end());
  }
  return out;
}

}  // namespace strata::group

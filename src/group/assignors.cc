#include "group/assignors.h"

#include <algorithm>
#include <vector>

namespace strata::group {

namespace {

using TopicPartition = std::pair<Uuid, int32_t>;

// Kafka's member order for range: static members by instance id, then dynamic members
// by member id.
std::vector<std::string> range_order(const AssignorInput& in, const Uuid& topic) {
  std::vector<std::pair<std::string, std::string>> statics, dynamics;  // (sort key, id)
  for (const auto& [id, m] : in.members) {
    if (!m.topics.contains(topic)) continue;
    if (m.instance_id) {
      statics.emplace_back(*m.instance_id, id);
    } else {
      dynamics.emplace_back(id, id);
    }
  }
  std::sort(statics.begin(), statics.end());
  std::sort(dynamics.begin(), dynamics.end());
  std::vector<std::string> out;
  for (auto* list : {&statics, &dynamics}) {
    for (auto& [key, id] : *list) out.push_back(id);
  }
  return out;
}

std::map<std::string, Assignment> assign_range(const AssignorInput& in) {
  std::map<std::string, Assignment> out;
  for (const auto& [id, m] : in.members) out[id];
  for (const auto& [topic, count] : in.partitions) {
    const std::vector<std::string> members = range_order(in, topic);
    if (members.empty()) continue;
    const int32_t n = int32_t(members.size());
    const int32_t quota = count / n;
    int32_t extra = count % n;
    int32_t next = 0;
    for (const std::string& id : members) {
      const int32_t take = quota + (extra > 0 ? 1 : 0);
      if (extra > 0) --extra;
      for (int32_t p = next; p < next + take; ++p) out[id][topic].insert(p);
      next += take;
    }
  }
  return out;
}

// Uniform: keep what each member had (if it still subscribes), hand out the rest to
// the least-loaded subscriber, then move partitions from the most to the least loaded
// subscriber until no two subscribers of a topic differ by more than one.
std::map<std::string, Assignment> assign_uniform(const AssignorInput& in) {
  std::map<std::string, size_t> load;
  std::map<TopicPartition, std::string, TopicPartitionLess> owner;
  std::map<std::string, Assignment> out;
  for (const auto& [id, m] : in.members) {
    load[id] = 0;
    out[id];
  }
  // Stickiness: the previous target, where still valid.
  for (const auto& [id, m] : in.members) {
    for (const auto& [topic, parts] : m.previous) {
      auto count = in.partitions.find(topic);
      if (count == in.partitions.end() || !m.topics.contains(topic)) continue;
      for (int32_t p : parts) {
        if (p >= count->second || owner.contains({topic, p})) continue;
        owner[{topic, p}] = id;
        out[id][topic].insert(p);
        ++load[id];
      }
    }
  }
  // Subscribers of each topic, in member-id order.
  std::map<Uuid, std::vector<std::string>, UuidLess> subscribers;
  for (const auto& [id, m] : in.members) {
    for (const Uuid& t : m.topics) {
      if (in.partitions.contains(t)) subscribers[t].push_back(id);
    }
  }
  auto least_loaded = [&load](const std::vector<std::string>& ids) {
    return *std::min_element(ids.begin(), ids.end(),
                             [&load](const std::string& a, const std::string& b) { return load[a] < load[b]; });
  };
  // Unassigned partitions: topics with fewer subscribers first (they have fewer choices).
  std::vector<Uuid> topics;
  for (const auto& [t, ids] : subscribers) topics.push_back(t);
  std::stable_sort(topics.begin(), topics.end(), [&subscribers](const Uuid& a, const Uuid& b) {
    return subscribers[a].size() < subscribers[b].size();
  });
  for (const Uuid& t : topics) {
    for (int32_t p = 0; p < in.partitions.at(t); ++p) {
      if (owner.contains({t, p})) continue;
      const std::string id = least_loaded(subscribers[t]);
      owner[{t, p}] = id;
      out[id][t].insert(p);
      ++load[id];
    }
  }
  // Balance: move one partition at a time from a subscriber with two or more above the
  // least-loaded subscriber of the same topic. Each move lowers the sum of squared loads,
  // so this ends; the bound is a guard.
  size_t moves_left = owner.size() * 2 + 16;
  bool moved = true;
  while (moved && moves_left > 0) {
    moved = false;
    for (const Uuid& t : topics) {
      const std::vector<std::string>& ids = subscribers[t];
      const std::string low = least_loaded(ids);
      // The most loaded subscriber that holds a partition of t.
      std::string high;
      for (const std::string& id : ids) {
        auto it = out[id].find(t);
        if (it == out[id].end() || it->second.empty()) continue;
        if (high.empty() || load[id] > load[high]) high = id;
      }
      if (high.empty() || load[high] < load[low] + 2) continue;
      std::set<int32_t>& from = out[high][t];
      const int32_t p = *from.rbegin();
      from.erase(p);
      out[low][t].insert(p);
      owner[{t, p}] = low;
      --load[high];
      ++load[low];
      moved = true;
      if (--moves_left == 0) break;
    }
  }
  for (auto& [id, a] : out) normalize(a);
  return out;
}

}  // namespace

bool is_assignor(const std::string& name) { return name == "uniform" || name == "range"; }

Result<std::map<std::string, Assignment>, std::string> assign(const std::string& assignor,
                                                              const AssignorInput& in) {
  if (assignor == "range") return assign_range(in);
  if (assignor == "uniform") return assign_uniform(in);
  return fail("unknown assignor " + assignor);
}

}  // namespace strata::group

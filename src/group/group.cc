#include "group/group.h"

#include <algorithm>

#include "common/bytes.h"

namespace strata::group {

const char* to_string(GroupState s) {
  switch (s) {
    case GroupState::kEmpty: return "Empty";
    case GroupState::kPreparingRebalance: return "PreparingRebalance";
    case GroupState::kCompletingRebalance: return "CompletingRebalance";
    case GroupState::kStable: return "Stable";
    case GroupState::kDead: return "Dead";
  }
  return "Unknown";
}

std::vector<uint8_t> Member::metadata(const std::optional<std::string>& protocol) const {
  if (!protocol) return {};
  for (const Protocol& p : protocols) {
    if (p.name == *protocol) return p.metadata;
  }
  return {};
}

Member* Group::find(const std::string& member_id) {
  for (Member& m : members) {
    if (m.id == member_id) return &m;
  }
  return nullptr;
}

const Member* Group::find(const std::string& member_id) const {
  return const_cast<Group*>(this)->find(member_id);
}

bool Group::is_static_member_fenced(const std::optional<std::string>& instance_id,
                                    const std::string& member_id) const {
  if (!instance_id) return false;
  auto it = static_members.find(*instance_id);
  return it != static_members.end() && it->second != member_id;
}

bool Group::supports_protocols(const std::string& type, const std::vector<Protocol>& protocols) const {
  if (members.empty()) return !type.empty() && !protocols.empty();
  if (!protocol_type || *protocol_type != type) return false;
  for (const Protocol& p : protocols) {
    const bool everyone = std::all_of(members.begin(), members.end(), [&](const Member& m) {
      return std::any_of(m.protocols.begin(), m.protocols.end(),
                         [&](const Protocol& q) { return q.name == p.name; });
    });
    if (everyone) return true;
  }
  return false;
}

std::string Group::select_protocol() const {
  if (members.empty()) return "";
  auto supported_by_all = [&](const std::string& name) {
    return std::all_of(members.begin(), members.end(), [&](const Member& m) {
      return std::any_of(m.protocols.begin(), m.protocols.end(),
                         [&](const Protocol& q) { return q.name == name; });
    });
  };
  const Member* first = leader ? find(*leader) : nullptr;
  if (first == nullptr) first = &members.front();
  std::vector<std::string> candidates;
  for (const Protocol& p : first->protocols) {
    if (supported_by_all(p.name)) candidates.push_back(p.name);
  }
  if (candidates.empty()) return "";
  std::map<std::string, int> votes;
  for (const Member& m : members) {
    for (const Protocol& p : m.protocols) {
      if (std::find(candidates.begin(), candidates.end(), p.name) != candidates.end()) {
        ++votes[p.name];
        break;
      }
    }
  }
  std::string best = candidates.front();
  for (const std::string& c : candidates) {
    if (votes[c] > votes[best]) best = c;
  }
  return best;
}

bool Group::all_members_joined() const {
  return pending_members.empty() &&
         std::all_of(members.begin(), members.end(),
                     [](const Member& m) { return bool(m.awaiting_join); });
}

int32_t Group::max_rebalance_timeout_ms() const {
  int32_t t = 0;
  for (const Member& m : members) t = std::max(t, m.rebalance_timeout_ms);
  return t;
}

void Group::add(Member m) {
  if (members.empty()) protocol_type = m.protocol_type;
  if (!leader) leader = m.id;
  if (m.instance_id) static_members[*m.instance_id] = m.id;
  pending_members.erase(m.id);
  members.push_back(std::move(m));
}

void Group::remove(const std::string& member_id) {
  auto it = std::find_if(members.begin(), members.end(),
                         [&](const Member& m) { return m.id == member_id; });
  if (it == members.end()) return;
  if (it->instance_id) static_members.erase(*it->instance_id);
  members.erase(it);
  pending_sync.erase(member_id);
  if (leader == member_id) {
    leader.reset();
    if (!members.empty()) leader = members.front().id;
  }
}

namespace {

// ConsumerProtocolSubscription, any version: int16 version, then topics as an ARRAY of
// STRING (the later fields are not needed here).
std::optional<std::vector<std::string>> subscription_topics(const std::vector<uint8_t>& bytes) {
  ByteReader in(Bytes(bytes.data(), bytes.size()));
  in.i16();
  const int32_t n = in.i32();
  if (!in.ok() || n < 0 || size_t(n) > in.remaining() / 2) return std::nullopt;
  std::vector<std::string> topics;
  for (int32_t i = 0; i < n; ++i) {
    const int16_t len = in.i16();
    if (!in.ok() || len < 0 || !in.fits(size_t(len))) return std::nullopt;
    Bytes s = in.take(size_t(len));
    topics.emplace_back(reinterpret_cast<const char*>(s.data()), s.size());
  }
  if (!in.ok()) return std::nullopt;
  return topics;
}

}  // namespace

std::optional<std::set<std::string>> Group::subscribed_topics() const {
  if (consumer) return consumer->subscribed_topics();
  if (protocol_type != "consumer" || !protocol_name || members.empty()) return std::nullopt;
  std::set<std::string> all;
  for (const Member& m : members) {
    auto topics = subscription_topics(m.metadata(protocol_name));
    if (!topics) return std::nullopt;
    all.insert(topics->begin(), topics->end());
  }
  return all;
}

}  // namespace strata::group

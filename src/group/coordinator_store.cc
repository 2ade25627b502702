// Writing group metadata to __consumer_offsets.
#include "group/coordinator.h"
#include "group/errors.h"

namespace strata::group {

namespace {

// Kafka's mapping of append failures for group writes (GroupMetadataManager.storeGroup):
// transient storage trouble -> COORDINATOR_NOT_AVAILABLE (the client retries), a
// record too large -> UNKNOWN_SERVER_ERROR.
KafkaError group_store_error(KafkaError append_error) {
  switch (append_error) {
    case errc::kNone: return errc::kNone;
    case errc::kUnknownTopicOrPartition:
    case errc::kKafkaStorageError:
      return errc::kCoordinatorNotAvailable;
    default:
      return errc::kUnknownServerError;
  }
}

}  // namespace

GroupValue GroupCoordinator::group_value(
    const Group& g, const std::map<std::string, std::vector<uint8_t>>& assignment) const {
  GroupValue v;
  v.protocol_type = g.protocol_type.value_or("");
  v.generation = g.generation;
  v.protocol = g.protocol_name;
  v.leader = g.leader;
  v.current_state_timestamp = g.state_timestamp;
  for (const Member& m : g.members) {
    MemberRecord r;
    r.member_id = m.id;
    r.group_instance_id = m.instance_id;
    r.client_id = m.client_id;
    r.client_host = m.client_host;
    r.rebalance_timeout_ms = m.rebalance_timeout_ms;
    r.session_timeout_ms = m.session_timeout_ms;
    r.subscription = m.metadata(g.protocol_name);
    auto it = assignment.find(m.id);
    if (it != assignment.end()) r.assignment = it->second;
    v.members.push_back(std::move(r));
  }
  return v;
}

void GroupCoordinator::store_group(const GroupPtr& g,
                                   const std::map<std::string, std::vector<uint8_t>>& assignment,
                                   std::function<void(KafkaError)> done) {
  std::vector<OffsetsLog::Record> records;
  records.push_back({encode_key(GroupKey{g->id}), encode_value(group_value(*g, assignment))});
  log_.append(g->partition, std::move(records),
              [done = std::move(done)](KafkaError error) { done(group_store_error(error)); });
}

}  // namespace strata::group

// What the group handlers share.
#pragma once

#include "broker/handlers/handlers.h"
#include "group/errors.h"

namespace strata::broker {

// Kafka's clientHost for a member: "/" and the peer's address, without the port.
inline std::string client_host(const RequestContext& ctx) {
  const std::string& a = ctx.frame.client_address;
  const auto colon = a.rfind(':');
  return "/" + (colon == std::string::npos ? a : a.substr(0, colon));
}

// Whether `topic` has partition `partition` (offset commits and deletes name
// partitions that must exist).
inline bool partition_exists(Broker& broker, const std::string& topic, int32_t partition) {
  const TopicMeta* t = broker.metadata()->topic(topic);
  return t != nullptr && partition >= 0 && partition < t->partition_count();
}

// The leader of the group's __consumer_offsets partition in `snapshot`: -1 if the topic
// or a leader is missing. On the single node, this node.
inline int32_t group_coordinator(Broker& broker, const MetadataSnapshot& snapshot, const std::string& group) {
  if (!broker.in_cluster()) return broker.config().node_id;
  return snapshot.leader(group::kOffsetsTopic, broker.groups().partition_for(group));
}

// In a cluster a group is served by the leader of its partition only (with one replica
// per partition, the same broker for the partition's whole life, so the coordinator
// loaded at start stays right): NOT_COORDINATOR elsewhere, and the client asks
// FindCoordinator again.
inline bool coordinates(Broker& broker, const RequestContext& ctx, const std::string& group) {
  return group_coordinator(broker, *ctx.metadata, group) == broker.config().node_id;
}

}  // namespace strata::broker

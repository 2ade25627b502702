// What the group handlers share.
#pragma once

#include "broker/authorizer.h"
#include "broker/handlers/handlers.h"
#include "group/errors.h"

namespace strata::broker {

// Kafka's clientHost for a member: "/" and the peer's address, without the port.
inline std::string client_host(const RequestContext& ctx) {
  return "/" + std::string(client_host(std::string_view(ctx.frame.client_address)));
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

// kNone if this broker serves the group now. On the single node always; in a cluster
// only the leader of the group's __consumer_offsets partition, once it has loaded that
// partition at its leader epoch (COORDINATOR_LOAD_IN_PROGRESS until then), and
// NOT_COORDINATOR on the others, so the client asks FindCoordinator again.
inline KafkaError coordinator_error(Broker& broker, const RequestContext& ctx, const std::string& group) {
  return broker.coordinator_status(CoordinatorKind::kGroups, broker.groups().partition_for(group), *ctx.metadata);
}

}  // namespace strata::broker

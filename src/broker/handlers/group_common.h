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

}  // namespace strata::broker

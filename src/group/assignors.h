// The server-side assignors of consumer-protocol groups (KIP-848), by the names Kafka
// gives them in group.consumer.assignors:
//   uniform - balance first (members subscribed to the same topics differ by at most one
//             partition), then stickiness: a member keeps what it had in the previous
//             target wherever balance allows, so a join or a leave moves only the
//             partitions that must move;
//   range   - per topic, contiguous ranges over the subscribers sorted as Kafka does
//             (static members by instance id first, then the others by member id); not
//             sticky, deterministic.
// Pure functions of the group's subscriptions, the topics' partition counts and the
// previous target.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/result.h"
#include "group/consumer_group.h"

namespace strata::group {

struct AssignorMember {
  std::optional<std::string> instance_id;
  std::set<Uuid, UuidLess> topics;  // subscribed topics that exist
  Assignment previous;              // its previous target
};

struct AssignorInput {
  std::map<std::string, AssignorMember> members;  // by member id
  std::map<Uuid, int32_t, UuidLess> partitions;   // partition count of each subscribed topic
};

bool is_assignor(const std::string& name);
// The target assignment of every member (empty ones included), or a message.
Result<std::map<std::string, Assignment>, std::string> assign(const std::string& assignor,
                                                              const AssignorInput& in);

}  // namespace strata::group

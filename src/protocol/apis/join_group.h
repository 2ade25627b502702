// JoinGroup (key 11): a member joins a classic group (or rejoins it for a rebalance); the
// coordinator waits for every member, picks one protocol they all support and a leader,
// and answers each member, sending the leader every member's metadata.
//
// Follows Kafka's schema for versions 0-9 (Kafka 4.0-SNAPSHOT, Oct 2024; 0-1 deprecated),
// flexible from 6. v1 adds the rebalance timeout (before it, the session timeout served
// as both); v2 adds the throttle time to the response; v4 changes only behaviour: a new
// dynamic member (empty member_id, no group_instance_id) is refused with
// MEMBER_ID_REQUIRED and a member id chosen for it, and must join again with that id;
// v5 adds group_instance_id (static membership), also to each member in the leader's
// list; v7 echoes the chosen protocol type in the response, whose protocol name may then
// be null; v8 adds a free-form reason for the join; v9 adds skip_assignment: a static
// leader rejoining a stable group gets the member list back, so it can watch metadata
// as leader, but must not compute a new assignment (KIP-814).
//
// Defaults are Kafka's: -1 for the rebalance timeout and generation; a nullable string
// whose stated default is null starts null, one with none stated starts as "".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct JoinGroupRequest {
  static constexpr int16_t kApiKey = 11;
  static constexpr Versions kVersions{0, 9};
  static constexpr int16_t kFlexibleFrom = 6;

  // One assignment protocol the member supports, e.g. "range" with its subscription.
  struct Protocol {
    std::string name;
    std::vector<uint8_t> metadata;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(metadata, F{{0}});
    }
  };

  std::string group_id;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = -1;             // v1+; -1 (and before v1): use session_timeout_ms
  std::string member_id;                         // "": a new member
  std::optional<std::string> group_instance_id;  // v5+; null: a dynamic member
  std::string protocol_type;                     // "consumer" for Kafka's consumers
  std::vector<Protocol> protocols;
  std::optional<std::string> reason;  // v8+

  template <class V>
  void visit(V& v) {
    v(group_id, F{{0}});
    v(session_timeout_ms, F{{0}});
    v(rebalance_timeout_ms, F{{1}});
    v(member_id, F{{0}});
    v(group_instance_id, F{{5}, {5}});
    v(protocol_type, F{{0}});
    v(protocols, F{{0}});
    v(reason, F{{8}, {8}});
  }
};

struct JoinGroupResponse {
  static constexpr int16_t kApiKey = JoinGroupRequest::kApiKey;
  static constexpr Versions kVersions = JoinGroupRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = JoinGroupRequest::kFlexibleFrom;

  // Sent to the leader only: every member and the metadata of the chosen protocol.
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v5+
    std::vector<uint8_t> metadata;
    template <class V>
    void visit(V& v) {
      v(member_id, F{{0}});
      v(group_instance_id, F{{5}, {5}});
      v(metadata, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;  // v2+
  int16_t error_code = 0;
  int32_t generation_id = -1;
  std::optional<std::string> protocol_type;       // v7+
  std::optional<std::string> protocol_name = "";  // may be null from v7
  std::string leader;
  bool skip_assignment = false;  // v9+
  std::string member_id;
  std::vector<Member> members;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{2}});
    v(error_code, F{{0}});
    v(generation_id, F{{0}});
    v(protocol_type, F{{7}, {7}});
    v(protocol_name, F{{0}, {7}});
    v(leader, F{{0}});
    v(skip_assignment, F{{9}});
    v(member_id, F{{0}});
    v(members, F{{0}});
  }
};

}  // namespace strata::protocol

// OffsetFetch (key 9): a consumer reads back the offsets its group committed, for chosen
// partitions or (topics null, v2+) for every partition the group has committed.
//
// Follows Kafka's schema for versions 0-9 (Kafka 4.0-SNAPSHOT, Oct 2024; 0 deprecated),
// flexible from 6; these are the versions Kafka 3.x clients speak. Versions above 9, if a
// later Kafka defines them (topic ids instead of names), are not declared here.
// v0 read offsets kept in ZooKeeper, v1+ those in the offsets topic (same layout); v2
// lets topics be null ("all") and adds a group-level error code to the response; v3 adds
// the throttle time; v5 adds each offset's leader epoch; v7 adds require_stable (answer
// UNSTABLE_OFFSET_COMMIT rather than an offset a pending transaction may still change);
// v8 batches: the request's group_id and topics, and the response's topics and error
// code, move into one entry per group; v9 adds, per group, the KIP-848 member id and
// epoch, which the broker checks only for groups using the consumer protocol.
//
// The single-group (v0-7) and batched (v8+) forms share the Topic and Partition structs:
// their fields are the same, and which form is on the wire is decided by the containing
// field's versions. A committed_offset of -1 means the group has no offset there.
//
// Defaults are Kafka's: a nullable array with no stated default starts empty, not null;
// a nullable string with no stated default starts as "".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct OffsetFetchRequest {
  static constexpr int16_t kApiKey = 9;
  static constexpr Versions kVersions{0, 9};
  static constexpr int16_t kFlexibleFrom = 6;

  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partition_indexes, F{{0}});
    }
  };
  struct Group {
    std::string group_id;
    std::optional<std::string> member_id;                     // v9+; null: not a KIP-848 member
    int32_t member_epoch = -1;                                // v9+
    std::optional<std::vector<Topic>> topics{std::in_place};  // null: all topics
    template <class V>
    void visit(V& v) {
      v(group_id, F{{8}});
      v(member_id, F{{9}, {9}});
      v(member_epoch, F{{9}});
      v(topics, F{{8}, {8}});
    }
  };

  std::string group_id;                                     // v0-7
  std::optional<std::vector<Topic>> topics{std::in_place};  // v0-7; null (v2+): all topics
  std::vector<Group> groups;                                // v8+
  bool require_stable = false;                              // v7+

  template <class V>
  void visit(V& v) {
    v(group_id, F{{0, 7}});
    v(topics, F{{0, 7}, {2, 7}});
    v(groups, F{{8}});
    v(require_stable, F{{7}});
  }
};

struct OffsetFetchResponse {
  static constexpr int16_t kApiKey = OffsetFetchRequest::kApiKey;
  static constexpr Versions kVersions = OffsetFetchRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = OffsetFetchRequest::kFlexibleFrom;

  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;  // -1: nothing committed
    int32_t committed_leader_epoch = -1;
    std::optional<std::string> metadata = "";
    int16_t error_code = 0;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(committed_offset, F{{0}});
      v(committed_leader_epoch, F{{5}});
      v(metadata, F{{0}, {0}});
      v(error_code, F{{0}});
    }
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partitions, F{{0}});
    }
  };
  struct Group {
    std::string group_id;
    std::vector<Topic> topics;
    int16_t error_code = 0;
    template <class V>
    void visit(V& v) {
      v(group_id, F{{8}});
      v(topics, F{{8}});
      v(error_code, F{{8}});
    }
  };

  int32_t throttle_time_ms = 0;  // v3+
  std::vector<Topic> topics;     // v0-7
  int16_t error_code = 0;        // v2-7
  std::vector<Group> groups;     // v8+

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{3}});
    v(topics, F{{0, 7}});
    v(error_code, F{{2, 7}});
    v(groups, F{{8}});
  }
};

}  // namespace strata::protocol

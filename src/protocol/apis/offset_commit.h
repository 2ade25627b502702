// OffsetCommit (key 8): a consumer stores its position in each partition with its group
// coordinator, optionally with a metadata string of its own.
//
// Follows Kafka's schema for versions 0-9 (Kafka 4.0-SNAPSHOT, Oct 2024; 0-1 deprecated),
// flexible from 8; these are the versions Kafka 3.x clients speak. Versions above 9, if a
// later Kafka defines them (topic ids instead of names), are not declared here.
// v1 adds the generation and member id, so a fenced member's commit can be refused, and a
// per-partition commit timestamp that exists in v1 only; v2 replaces that timestamp with
// one request-wide retention time (v2-4); v3 adds the throttle time to the response; v5
// drops the retention time (the broker's offsets.retention.minutes alone decides); v6
// adds the leader epoch the offset was read under; v7 adds the static member's
// group_instance_id; v9 is v8 on the wire, but marks a client that may use the KIP-848
// consumer protocol, where generation_id_or_member_epoch carries the member epoch and
// the broker may answer STALE_MEMBER_EPOCH or GROUP_ID_NOT_FOUND.
//
// Defaults are Kafka's: -1 for the generation, retention, epoch and timestamp; a nullable
// string with no stated default starts as "".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct OffsetCommitRequest {
  static constexpr int16_t kApiKey = 8;
  static constexpr Versions kVersions{0, 9};
  static constexpr int16_t kFlexibleFrom = 8;

  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;
    int64_t commit_timestamp = -1;  // v1 only
    std::optional<std::string> committed_metadata = "";
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(committed_offset, F{{0}});
      v(committed_leader_epoch, F{{6}});
      v(commit_timestamp, F{{1, 1}});
      v(committed_metadata, F{{0}, {0}});
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

  std::string group_id;
  int32_t generation_id_or_member_epoch = -1;    // v1+; -1: not a group member (simple consumer)
  std::string member_id;                         // v1+; "" with generation -1 as above
  std::optional<std::string> group_instance_id;  // v7+; null: a dynamic member
  int64_t retention_time_ms = -1;                // v2-4; -1: the broker's default
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(group_id, F{{0}});
    v(generation_id_or_member_epoch, F{{1}});
    v(member_id, F{{1}});
    v(group_instance_id, F{{7}, {7}});
    v(retention_time_ms, F{{2, 4}});
    v(topics, F{{0}});
  }
};

struct OffsetCommitResponse {
  static constexpr int16_t kApiKey = OffsetCommitRequest::kApiKey;
  static constexpr Versions kVersions = OffsetCommitRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = OffsetCommitRequest::kFlexibleFrom;

  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
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

  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{3}});
    v(topics, F{{0}});
  }
};

}  // namespace strata::protocol

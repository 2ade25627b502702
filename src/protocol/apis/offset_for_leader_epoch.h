// OffsetForLeaderEpoch (key 23): the end offset of a leader epoch, which a follower
// or a consumer uses to find where its log diverged from the leader's.
// Follows Kafka's schema for versions 0-4 (Kafka 4.0-SNAPSHOT, Oct 2024); flexible
// from 4. v1 returns the epoch, v2 adds fencing by current epoch and throttling, v3
// the requester's replica id.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct OffsetForLeaderEpochRequest {
  static constexpr int16_t kApiKey = 23;
  static constexpr Versions kVersions{0, 4};
  static constexpr int16_t kFlexibleFrom = 4;

  struct Partition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;  // fences requesters with stale metadata
    int32_t leader_epoch = 0;           // the epoch whose end offset is wanted
    template <class V>
    void visit(V& v) {
      v(partition, F{{0}});
      v(current_leader_epoch, F{{2}});
      v(leader_epoch, F{{0}});
    }
  };
  struct Topic {
    std::string topic;
    std::vector<Partition> partitions;
    template <class V>
    void visit(V& v) {
      v(topic, F{{0}});
      v(partitions, F{{0}});
    }
  };

  // -1 a consumer; -2 (the default) a debug consumer that may read past the high
  // watermark, which is also what followers on versions before 3 are taken to be.
  int32_t replica_id = -2;
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(replica_id, F{{3}});
    v(topics, F{{0}});
  }
};

struct OffsetForLeaderEpochResponse {
  static constexpr int16_t kApiKey = OffsetForLeaderEpochRequest::kApiKey;
  static constexpr Versions kVersions = OffsetForLeaderEpochRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = OffsetForLeaderEpochRequest::kFlexibleFrom;

  struct EpochEndOffset {
    int16_t error_code = 0;
    int32_t partition = 0;
    int32_t leader_epoch = -1;
    int64_t end_offset = -1;
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(partition, F{{0}});
      v(leader_epoch, F{{1}});
      v(end_offset, F{{0}});
    }
  };
  struct Topic {
    std::string topic;
    std::vector<EpochEndOffset> partitions;
    template <class V>
    void visit(V& v) {
      v(topic, F{{0}});
      v(partitions, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{2}});
    v(topics, F{{0}});
  }
};

}  // namespace strata::protocol

// ListOffsets (key 2): the offset for a timestamp, or for one of the special
// timestamps (-1 latest, -2 earliest, -3 max timestamp, -4 local log start, -5 last
// tiered offset). Follows Kafka's schema for versions 0-10 (Kafka 4.0-SNAPSHOT, Oct
// 2024); flexible from 6. v0 answers with a list of offsets, v1+ with one offset and
// its timestamp; v2 adds isolation levels, v4 leader-epoch fencing, v10 a timeout for
// lookups in remote storage. Versions 7-9 only add special timestamps.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct ListOffsetsRequest {
  static constexpr int16_t kApiKey = 2;
  static constexpr Versions kVersions{0, 10};
  static constexpr int16_t kFlexibleFrom = 6;

  struct Partition {
    int32_t partition_index = 0;
    int32_t current_leader_epoch = -1;
    int64_t timestamp = 0;
    int32_t max_num_offsets = 1;  // v0 only
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(current_leader_epoch, F{{4}});
      v(timestamp, F{{0}});
      v(max_num_offsets, F{{0, 0}});
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

  int32_t replica_id = 0;      // -1: a consumer
  int8_t isolation_level = 0;  // 0 read uncommitted, 1 read committed
  std::vector<Topic> topics;
  int32_t timeout_ms = 0;

  template <class V>
  void visit(V& v) {
    v(replica_id, F{{0}});
    v(isolation_level, F{{2}});
    v(topics, F{{0}});
    v(timeout_ms, F{{10}});
  }
};

struct ListOffsetsResponse {
  static constexpr int16_t kApiKey = ListOffsetsRequest::kApiKey;
  static constexpr Versions kVersions = ListOffsetsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = ListOffsetsRequest::kFlexibleFrom;

  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::vector<int64_t> old_style_offsets;  // v0 only
    int64_t timestamp = -1;
    int64_t offset = -1;
    int32_t leader_epoch = -1;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(error_code, F{{0}});
      v(old_style_offsets, F{{0, 0}});
      v(timestamp, F{{1}});
      v(offset, F{{1}});
      v(leader_epoch, F{{4}});
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
    v(throttle_time_ms, F{{2}});
    v(topics, F{{0}});
  }
};

}  // namespace strata::protocol

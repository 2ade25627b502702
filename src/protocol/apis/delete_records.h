// DeleteRecords (key 21): advance partitions' log start offsets, discarding the records
// before them.
//
// Follows Kafka 4.0's schema: versions 0-2, flexible from 2. v1 is v0.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DeleteRecordsRequest {
  static constexpr int16_t kApiKey = 21;
  static constexpr Versions kVersions{0, 2};
  static constexpr int16_t kFlexibleFrom = 2;

  struct Partition {
    int32_t partition_index = 0;
    int64_t offset = 0;  // the new log start offset; -1: the high watermark
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(offset, F{{0}});
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

  std::vector<Topic> topics;
  int32_t timeout_ms = 0;

  template <class V>
  void visit(V& v) {
    v(topics, F{{0}});
    v(timeout_ms, F{{0}});
  }
};

struct DeleteRecordsResponse {
  static constexpr int16_t kApiKey = DeleteRecordsRequest::kApiKey;
  static constexpr Versions kVersions = DeleteRecordsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DeleteRecordsRequest::kFlexibleFrom;

  struct Partition {
    int32_t partition_index = 0;
    int64_t low_watermark = 0;
    int16_t error_code = 0;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(low_watermark, F{{0}});
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
    v(throttle_time_ms, F{{0}});
    v(topics, F{{0}});
  }
};

}  // namespace strata::protocol

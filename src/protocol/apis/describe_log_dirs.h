// DescribeLogDirs (key 35): the broker's log directories and the size and lag of each
// partition replica in them.
//
// Follows Kafka 4.0's schema: versions 0-4 (0 deprecated), flexible from 2. v1 is v0;
// v3 adds a top-level error code; v4 adds each directory's volume total and usable bytes.
//
// Defaults are Kafka's: a nullable array with no stated default starts empty, not null.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DescribeLogDirsRequest {
  static constexpr int16_t kApiKey = 35;
  static constexpr Versions kVersions{0, 4};
  static constexpr int16_t kFlexibleFrom = 2;

  struct Topic {
    std::string topic;
    std::vector<int32_t> partitions;
    template <class V>
    void visit(V& v) {
      v(topic, F{{0}});
      v(partitions, F{{0}});
    }
  };

  std::optional<std::vector<Topic>> topics{std::in_place};  // null: every topic

  template <class V>
  void visit(V& v) {
    v(topics, F{{0}, {0}});
  }
};

struct DescribeLogDirsResponse {
  static constexpr int16_t kApiKey = DescribeLogDirsRequest::kApiKey;
  static constexpr Versions kVersions = DescribeLogDirsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DescribeLogDirsRequest::kFlexibleFrom;

  struct Partition {
    int32_t partition_index = 0;
    int64_t partition_size = 0;  // bytes of its segments
    // The current log: its log end minus the high watermark; a future log: the current
    // log's end minus its own.
    int64_t offset_lag = 0;
    bool is_future_key = false;  // a log being moved here by AlterReplicaLogDirs
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(partition_size, F{{0}});
      v(offset_lag, F{{0}});
      v(is_future_key, F{{0}});
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
  struct Result {
    int16_t error_code = 0;
    std::string log_dir;  // absolute path
    std::vector<Topic> topics;
    int64_t total_bytes = -1;   // of the directory's volume
    int64_t usable_bytes = -1;  // of the directory's volume
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(log_dir, F{{0}});
      v(topics, F{{0}});
      v(total_bytes, F{{4}});
      v(usable_bytes, F{{4}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::vector<Result> results;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{3}});
    v(results, F{{0}});
  }
};

}  // namespace strata::protocol

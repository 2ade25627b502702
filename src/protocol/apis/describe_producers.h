// DescribeProducers (key 61): the active idempotent and transactional producers of
// some partitions, as the partition leader knows them (KIP-664: finding hanging
// transactions).
//
// Follows Kafka 4.0's schema: version 0 only, flexible in every version.
//
// Defaults are Kafka's: -1 for the last sequence, last timestamp and transaction start
// offset; the error message starts as null.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DescribeProducersRequest {
  static constexpr int16_t kApiKey = 61;
  static constexpr Versions kVersions{0, 0};
  static constexpr int16_t kFlexibleFrom = 0;

  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partition_indexes, F{{0}});
    }
  };

  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(topics, F{{0}});
  }
};

struct DescribeProducersResponse {
  static constexpr int16_t kApiKey = DescribeProducersRequest::kApiKey;
  static constexpr Versions kVersions = DescribeProducersRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DescribeProducersRequest::kFlexibleFrom;

  struct ProducerState {
    int64_t producer_id = 0;
    int32_t producer_epoch = 0;  // int32 on this wire, unlike everywhere else
    int32_t last_sequence = -1;
    int64_t last_timestamp = -1;
    int32_t coordinator_epoch = 0;
    int64_t current_txn_start_offset = -1;  // -1: no open transaction
    template <class V>
    void visit(V& v) {
      v(producer_id, F{{0}});
      v(producer_epoch, F{{0}});
      v(last_sequence, F{{0}});
      v(last_timestamp, F{{0}});
      v(coordinator_epoch, F{{0}});
      v(current_txn_start_offset, F{{0}});
    }
  };
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::vector<ProducerState> active_producers;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(error_code, F{{0}});
      v(error_message, F{{0}, {0}});
      v(active_producers, F{{0}});
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

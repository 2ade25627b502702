// WriteTxnMarkers (key 27): a transaction coordinator asks partition leaders to write
// the COMMIT or ABORT control batches that end a transaction (broker to broker).
//
// Follows Kafka's schema for versions 0-2, flexible from 1. Kafka 4.0 dropped v0
// (KIP-896), kept here as the versions older brokers send; v2 (Kafka 4.2, KIP-1228)
// adds each marker's transaction version (0/1 the classic protocol, 2 KIP-890's).
//
// Defaults are Kafka's.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct WriteTxnMarkersRequest {
  static constexpr int16_t kApiKey = 27;
  static constexpr Versions kVersions{0, 2};
  static constexpr int16_t kFlexibleFrom = 1;

  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partition_indexes, F{{0}});
    }
  };
  struct Marker {
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    bool transaction_result = false;  // true: COMMIT; false: ABORT
    std::vector<Topic> topics;
    int32_t coordinator_epoch = 0;
    int8_t transaction_version = 0;  // v2+
    template <class V>
    void visit(V& v) {
      v(producer_id, F{{0}});
      v(producer_epoch, F{{0}});
      v(transaction_result, F{{0}});
      v(topics, F{{0}});
      v(coordinator_epoch, F{{0}});
      v(transaction_version, F{{2}});
    }
  };

  std::vector<Marker> markers;

  template <class V>
  void visit(V& v) {
    v(markers, F{{0}});
  }
};

struct WriteTxnMarkersResponse {
  static constexpr int16_t kApiKey = WriteTxnMarkersRequest::kApiKey;
  static constexpr Versions kVersions = WriteTxnMarkersRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = WriteTxnMarkersRequest::kFlexibleFrom;

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
  struct Marker {
    int64_t producer_id = 0;
    std::vector<Topic> topics;
    template <class V>
    void visit(V& v) {
      v(producer_id, F{{0}});
      v(topics, F{{0}});
    }
  };

  std::vector<Marker> markers;

  template <class V>
  void visit(V& v) {
    v(markers, F{{0}});
  }
};

}  // namespace strata::protocol

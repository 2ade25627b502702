// DescribeTransactions (key 65): the transaction coordinator's view of some
// transactional ids: state, timeout, start time, producer and partitions (KIP-664).
//
// Follows Kafka 4.0's schema: version 0 only, flexible in every version.
//
// Defaults are Kafka's.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DescribeTransactionsRequest {
  static constexpr int16_t kApiKey = 65;
  static constexpr Versions kVersions{0, 0};
  static constexpr int16_t kFlexibleFrom = 0;

  std::vector<std::string> transactional_ids;  // empty: nothing is described

  template <class V>
  void visit(V& v) {
    v(transactional_ids, F{{0}});
  }
};

struct DescribeTransactionsResponse {
  static constexpr int16_t kApiKey = DescribeTransactionsRequest::kApiKey;
  static constexpr Versions kVersions = DescribeTransactionsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DescribeTransactionsRequest::kFlexibleFrom;

  struct Topic {
    std::string topic;
    std::vector<int32_t> partitions;
    template <class V>
    void visit(V& v) {
      v(topic, F{{0}});
      v(partitions, F{{0}});
    }
  };
  struct TransactionState {
    int16_t error_code = 0;
    std::string transactional_id;
    std::string transaction_state;  // "Empty", "Ongoing", "PrepareCommit", ...
    int32_t transaction_timeout_ms = 0;
    int64_t transaction_start_time_ms = 0;
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    std::vector<Topic> topics;  // the partitions in the transaction (without markers yet)
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(transactional_id, F{{0}});
      v(transaction_state, F{{0}});
      v(transaction_timeout_ms, F{{0}});
      v(transaction_start_time_ms, F{{0}});
      v(producer_id, F{{0}});
      v(producer_epoch, F{{0}});
      v(topics, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<TransactionState> transaction_states;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(transaction_states, F{{0}});
  }
};

}  // namespace strata::protocol

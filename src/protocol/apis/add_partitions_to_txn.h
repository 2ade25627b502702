// AddPartitionsToTxn (key 24): a transactional producer adds partitions to its ongoing
// transaction before it first produces to them.
//
// Follows Kafka 4.0's schema: versions 0-5, flexible from 3. v1 is v0; v2 may answer
// PRODUCER_FENCED; v4 is the brokers' batched form (KIP-890): many transactions per
// request, each with verify_only (check the partitions are already in the transaction,
// add nothing), replacing the single-transaction v0-3 fields, and a top-level error code
// in the response; v5 may answer TRANSACTION_ABORTABLE. Clients send v0-3 only.
//
// Defaults are Kafka's.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct AddPartitionsToTxnRequest {
  static constexpr int16_t kApiKey = 24;
  static constexpr Versions kVersions{0, 5};
  static constexpr int16_t kFlexibleFrom = 3;

  struct Topic {
    std::string name;
    std::vector<int32_t> partitions;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partitions, F{{0}});
    }
  };
  struct Transaction {  // v4+
    std::string transactional_id;
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    bool verify_only = false;  // true: only check the partitions are in the transaction
    std::vector<Topic> topics;
    template <class V>
    void visit(V& v) {
      v(transactional_id, F{{4}});
      v(producer_id, F{{4}});
      v(producer_epoch, F{{4}});
      v(verify_only, F{{4}});
      v(topics, F{{4}});
    }
  };

  std::vector<Transaction> transactions;      // v4+
  std::string v3_and_below_transactional_id;  // v0-3
  int64_t v3_and_below_producer_id = 0;       // v0-3
  int16_t v3_and_below_producer_epoch = 0;    // v0-3
  std::vector<Topic> v3_and_below_topics;     // v0-3

  template <class V>
  void visit(V& v) {
    v(transactions, F{{4}});
    v(v3_and_below_transactional_id, F{{0, 3}});
    v(v3_and_below_producer_id, F{{0, 3}});
    v(v3_and_below_producer_epoch, F{{0, 3}});
    v(v3_and_below_topics, F{{0, 3}});
  }
};

struct AddPartitionsToTxnResponse {
  static constexpr int16_t kApiKey = AddPartitionsToTxnRequest::kApiKey;
  static constexpr Versions kVersions = AddPartitionsToTxnRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = AddPartitionsToTxnRequest::kFlexibleFrom;

  struct PartitionResult {
    int32_t partition_index = 0;
    int16_t partition_error_code = 0;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(partition_error_code, F{{0}});
    }
  };
  struct TopicResult {
    std::string name;
    std::vector<PartitionResult> results_by_partition;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(results_by_partition, F{{0}});
    }
  };
  struct TransactionResult {  // v4+
    std::string transactional_id;
    std::vector<TopicResult> topic_results;
    template <class V>
    void visit(V& v) {
      v(transactional_id, F{{4}});
      v(topic_results, F{{4}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;                                  // v4+: the whole request's
  std::vector<TransactionResult> results_by_transaction;   // v4+
  std::vector<TopicResult> results_by_topic_v3_and_below;  // v0-3

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{4}});
    v(results_by_transaction, F{{4}});
    v(results_by_topic_v3_and_below, F{{0, 3}});
  }
};

}  // namespace strata::protocol

// AddOffsetsToTxn (key 25): a transactional producer adds a consumer group's offsets
// partition to its transaction, before committing offsets with TxnOffsetCommit.
//
// Follows Kafka 4.0's schema: versions 0-4, flexible from 3. v1 is v0; v2 may answer
// PRODUCER_FENCED; v4 TRANSACTION_ABORTABLE (KIP-890). The layout never changes.
//
// Defaults are Kafka's.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct AddOffsetsToTxnRequest {
  static constexpr int16_t kApiKey = 25;
  static constexpr Versions kVersions{0, 4};
  static constexpr int16_t kFlexibleFrom = 3;

  std::string transactional_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  std::string group_id;

  template <class V>
  void visit(V& v) {
    v(transactional_id, F{{0}});
    v(producer_id, F{{0}});
    v(producer_epoch, F{{0}});
    v(group_id, F{{0}});
  }
};

struct AddOffsetsToTxnResponse {
  static constexpr int16_t kApiKey = AddOffsetsToTxnRequest::kApiKey;
  static constexpr Versions kVersions = AddOffsetsToTxnRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = AddOffsetsToTxnRequest::kFlexibleFrom;

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{0}});
  }
};

}  // namespace strata::protocol

// InitProducerId (key 22): allocate a producer id and epoch, for an idempotent producer
// or, with a transactional id, for a transactional one (fencing older incarnations).
//
// Follows Kafka 4.0's schema: versions 0-5, flexible from 2. v1 is v0; v3 lets a
// producer send its current id and epoch to resume after INVALID_PRODUCER_EPOCH; v4
// may answer PRODUCER_FENCED; v5 TRANSACTION_ABORTABLE.
//
// Defaults are Kafka's: a nullable string with no stated default starts as "".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct InitProducerIdRequest {
  static constexpr int16_t kApiKey = 22;
  static constexpr Versions kVersions{0, 5};
  static constexpr int16_t kFlexibleFrom = 2;

  std::optional<std::string> transactional_id = "";  // null: not transactional
  int32_t transaction_timeout_ms = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;

  template <class V>
  void visit(V& v) {
    v(transactional_id, F{{0}, {0}});
    v(transaction_timeout_ms, F{{0}});
    v(producer_id, F{{3}});
    v(producer_epoch, F{{3}});
  }
};

struct InitProducerIdResponse {
  static constexpr int16_t kApiKey = InitProducerIdRequest::kApiKey;
  static constexpr Versions kVersions = InitProducerIdRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = InitProducerIdRequest::kFlexibleFrom;

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = 0;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{0}});
    v(producer_id, F{{0}});
    v(producer_epoch, F{{0}});
  }
};

}  // namespace strata::protocol

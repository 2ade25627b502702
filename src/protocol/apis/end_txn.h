// EndTxn (key 26): a transactional producer commits or aborts its transaction.
//
// Follows Kafka 4.0's schema: versions 0-5, flexible from 3. v1 is v0; v2 may answer
// PRODUCER_FENCED; v4 TRANSACTION_ABORTABLE; v5 (KIP-890 part 2, transaction version 2)
// bumps the producer epoch at every transaction end, so the response carries the
// producer id and epoch the producer is to use next.
//
// Defaults are Kafka's: -1 for the v5 response's producer id and epoch.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct EndTxnRequest {
  static constexpr int16_t kApiKey = 26;
  static constexpr Versions kVersions{0, 5};
  static constexpr int16_t kFlexibleFrom = 3;

  std::string transactional_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  bool committed = false;  // true: commit; false: abort

  template <class V>
  void visit(V& v) {
    v(transactional_id, F{{0}});
    v(producer_id, F{{0}});
    v(producer_epoch, F{{0}});
    v(committed, F{{0}});
  }
};

struct EndTxnResponse {
  static constexpr int16_t kApiKey = EndTxnRequest::kApiKey;
  static constexpr Versions kVersions = EndTxnRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = EndTxnRequest::kFlexibleFrom;

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  int64_t producer_id = -1;     // v5+
  int16_t producer_epoch = -1;  // v5+

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{0}});
    v(producer_id, F{{5}});
    v(producer_epoch, F{{5}});
  }
};

}  // namespace strata::protocol

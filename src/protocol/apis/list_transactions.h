// ListTransactions (key 66): the transactions a coordinator holds, filtered by state,
// producer id, age and transactional id (KIP-664).
//
// Follows Kafka's schema for versions 0-2, flexible in every version. v1 adds the
// duration filter (KIP-994); v2 (Kafka 4.1, KIP-1152) adds a regular expression over
// transactional ids, and may answer INVALID_REGULAR_EXPRESSION. The response's layout
// never changes.
//
// Defaults are Kafka's: -1 for the duration filter, null for the pattern.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct ListTransactionsRequest {
  static constexpr int16_t kApiKey = 66;
  static constexpr Versions kVersions{0, 2};
  static constexpr int16_t kFlexibleFrom = 0;

  std::vector<std::string> state_filters;               // empty: every state
  std::vector<int64_t> producer_id_filters;             // empty: every producer
  int64_t duration_filter = -1;                         // v1+; ms; < 0: any age
  std::optional<std::string> transactional_id_pattern;  // v2+; null or "": every id

  template <class V>
  void visit(V& v) {
    v(state_filters, F{{0}});
    v(producer_id_filters, F{{0}});
    v(duration_filter, F{{1}});
    v(transactional_id_pattern, F{{2}, {2}});
  }
};

struct ListTransactionsResponse {
  static constexpr int16_t kApiKey = ListTransactionsRequest::kApiKey;
  static constexpr Versions kVersions = ListTransactionsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = ListTransactionsRequest::kFlexibleFrom;

  struct TransactionState {
    std::string transactional_id;
    int64_t producer_id = 0;
    std::string transaction_state;
    template <class V>
    void visit(V& v) {
      v(transactional_id, F{{0}});
      v(producer_id, F{{0}});
      v(transaction_state, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::vector<std::string> unknown_state_filters;  // requested states the coordinator lacks
  std::vector<TransactionState> transaction_states;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{0}});
    v(unknown_state_filters, F{{0}});
    v(transaction_states, F{{0}});
  }
};

}  // namespace strata::protocol

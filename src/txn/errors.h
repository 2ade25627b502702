// The Kafka error codes the transaction coordinator answers with.
#pragma once

#include <cstdint>

namespace strata::txn::errc {

inline constexpr int16_t kNone = 0;
inline constexpr int16_t kUnknownServerError = -1;
inline constexpr int16_t kCoordinatorNotAvailable = 15;
inline constexpr int16_t kNotCoordinator = 16;
inline constexpr int16_t kInvalidRequest = 42;
inline constexpr int16_t kInvalidProducerEpoch = 47;
inline constexpr int16_t kInvalidTxnState = 48;
inline constexpr int16_t kInvalidProducerIdMapping = 49;
inline constexpr int16_t kInvalidTransactionTimeout = 50;
inline constexpr int16_t kConcurrentTransactions = 51;
inline constexpr int16_t kTransactionCoordinatorFenced = 52;
inline constexpr int16_t kProducerFenced = 90;
inline constexpr int16_t kTransactionalIdNotFound = 105;

}  // namespace strata::txn::errc

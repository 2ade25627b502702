// The Kafka error codes the transaction coordinator answers with: `errc::kXxx` is the
// table's `kafka_error::kXxx` (common/kafka_errors.h, where every number is declared).
#pragma once

#include "common/kafka_errors.h"

namespace strata::txn {
namespace errc = ::strata::kafka_error;
}  // namespace strata::txn

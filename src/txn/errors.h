// The Kafka errors the transaction coordinator answers with: `errc::kXxx` is the typed
// `KafkaError::kXxx` of the one table (common/kafka_errors.h). The coordinator returns
// these, never raw numbers; handlers turn them into wire codes with code_of().
#pragma once

#include "common/kafka_errors.h"

namespace strata::txn {
using errc = ::strata::KafkaError;
}  // namespace strata::txn

// The handlers' view of Kafka's error codes: the table (common/kafka_errors.h, where every
// number is declared; `kafka_error::kXxx` names them here too), an error with its message,
// and the one mapping from storage errors to codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/kafka_errors.h"
#include "storage/errors.h"

namespace strata::broker {

// An error code with its message (null: the client shows the code's standard text).
struct ApiError {
  int16_t code = kafka_error::kNone;
  std::optional<std::string> message;
};

// Exhaustive over StorageErrc (no default): a new storage error does not compile until it
// is given its Kafka code here.
KafkaError kafka_error_of(const storage::StorageError& e);

}  // namespace strata::broker

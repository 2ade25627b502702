#include "broker/errors.h"

namespace strata::broker {

int16_t kafka_error_of(const storage::StorageError& e) {
  using storage::StorageErrc;
  switch (e.code) {
    case StorageErrc::kOffsetOutOfRange: return kafka_error::kOffsetOutOfRange;
    case StorageErrc::kMessageTooLarge: return kafka_error::kMessageTooLarge;
    case StorageErrc::kInvalidBatch: return kafka_error::kCorruptMessage;
    default: return kafka_error::kKafkaStorageError;
  }
}

}  // namespace strata::broker

#include "broker/errors.h"

namespace strata::broker {

namespace {
// Idempotent producers' refusals (storage/producer_state.h has the same numbers).
constexpr int16_t kOutOfOrderSequenceNumber = 45;
constexpr int16_t kInvalidProducerEpoch = 47;
constexpr int16_t kInvalidTxnState = 48;
constexpr int16_t kTransactionCoordinatorFenced = 52;
}  // namespace

int16_t kafka_error_of(const storage::StorageError& e) {
  using storage::StorageErrc;
  switch (e.code) {
    case StorageErrc::kOffsetOutOfRange: return kafka_error::kOffsetOutOfRange;
    case StorageErrc::kMessageTooLarge: return kafka_error::kMessageTooLarge;
    case StorageErrc::kInvalidBatch: return kafka_error::kCorruptMessage;
    case StorageErrc::kOutOfOrderSequence: return kOutOfOrderSequenceNumber;
    case StorageErrc::kInvalidProducerEpoch: return kInvalidProducerEpoch;
    case StorageErrc::kInvalidTxnState: return kInvalidTxnState;
    case StorageErrc::kTransactionCoordinatorFenced: return kTransactionCoordinatorFenced;
    case StorageErrc::kInvalidRecord: return kafka_error::kInvalidRecord;
    default: return kafka_error::kKafkaStorageError;
  }
}

}  // namespace strata::broker

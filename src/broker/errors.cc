#include "broker/errors.h"

namespace strata::broker {

int16_t kafka_error_of(const storage::StorageError& e) {
  using storage::StorageErrc;
  switch (e.code) {
    case StorageErrc::kOffsetOutOfRange: return kafka_error::kOffsetOutOfRange;
    case StorageErrc::kMessageTooLarge: return kafka_error::kMessageTooLarge;
    case StorageErrc::kInvalidBatch: return kafka_error::kCorruptMessage;
    // Idempotent producers' refusals (storage/producer_state.h).
    case StorageErrc::kOutOfOrderSequence: return kafka_error::kOutOfOrderSequenceNumber;
    case StorageErrc::kInvalidProducerEpoch: return kafka_error::kInvalidProducerEpoch;
    case StorageErrc::kInvalidTxnState: return kafka_error::kInvalidTxnState;
    case StorageErrc::kTransactionCoordinatorFenced:
      return kafka_error::kTransactionCoordinatorFenced;
    case StorageErrc::kInvalidRecord: return kafka_error::kInvalidRecord;
    // The disk or the files on it: Kafka's KafkaStorageException (the client retries).
    case StorageErrc::kIo:
    case StorageErrc::kCorruptIndex:
    case StorageErrc::kIndexFull:
    case StorageErrc::kIndexOrder:
    case StorageErrc::kOffsetOverflow:
    case StorageErrc::kCorruptCheckpoint:
    case StorageErrc::kClosed:
    case StorageErrc::kCorruptSnapshot:
      return kafka_error::kKafkaStorageError;
  }
  return kafka_error::kUnknownServerError;  // not a StorageErrc value
}

}  // namespace strata::broker

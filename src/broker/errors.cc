#include "broker/errors.h"

namespace strata::broker {

KafkaError kafka_error_of(const storage::StorageError& e) {
  using storage::StorageErrc;
  switch (e.code) {
    case StorageErrc::kOffsetOutOfRange: return KafkaError::kOffsetOutOfRange;
    case StorageErrc::kMessageTooLarge: return KafkaError::kMessageTooLarge;
    case StorageErrc::kInvalidBatch: return KafkaError::kCorruptMessage;
    // Idempotent producers' refusals (storage/producer_state.h).
    case StorageErrc::kOutOfOrderSequence: return KafkaError::kOutOfOrderSequenceNumber;
    case StorageErrc::kInvalidProducerEpoch: return KafkaError::kInvalidProducerEpoch;
    case StorageErrc::kInvalidTxnState: return KafkaError::kInvalidTxnState;
    case StorageErrc::kTransactionCoordinatorFenced:
      return KafkaError::kTransactionCoordinatorFenced;
    case StorageErrc::kInvalidRecord: return KafkaError::kInvalidRecord;
    // The disk or the files on it: Kafka's KafkaStorageException (the client retries).
    case StorageErrc::kIo:
    case StorageErrc::kCorruptIndex:
    case StorageErrc::kIndexFull:
    case StorageErrc::kIndexOrder:
    case StorageErrc::kOffsetOverflow:
    case StorageErrc::kCorruptCheckpoint:
    case StorageErrc::kClosed:
    case StorageErrc::kCorruptSnapshot:
      return KafkaError::kKafkaStorageError;
  }
  return KafkaError::kUnknownServerError;  // not a StorageErrc value
}

}  // namespace strata::broker

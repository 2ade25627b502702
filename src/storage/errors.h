// Storage errors as values: an I/O failure names the operation, the file and errno.
#pragma once

#include <cstdint>
#include <string>

namespace strata::storage {

enum class StorageErrc : uint8_t {
  kIo = 1,            // a system call failed (errno in `sys_errno`)
  kCorruptIndex,      // an index failed its sanity check
  kIndexFull,         // append to a full index
  kIndexOrder,        // append out of offset/position order
  kOffsetOverflow,    // offset - base does not fit a relative int32
  kCorruptCheckpoint, // a checkpoint file does not parse
  kOffsetOutOfRange,  // a read or truncation outside the log
  kInvalidBatch,      // a batch given to append failed its checks
  kMessageTooLarge,   // a batch over max.message.bytes
  kClosed,            // the log was closed
  kCorruptSnapshot,   // a producer snapshot failed its checks (the log rebuilds instead)
  kOutOfOrderSequence,   // an idempotent batch's sequence does not follow (Kafka 45)
  kInvalidProducerEpoch, // an idempotent batch or a marker from a fenced producer epoch (Kafka 47)
  kInvalidTxnState,      // a non-transactional batch inside an open transaction (Kafka 48)
  kTransactionCoordinatorFenced,  // a marker from an older coordinator epoch (Kafka 52)
  kInvalidRecord,        // a control batch given to append (only append_marker writes them; Kafka 87)
};

struct StorageError {
  StorageErrc code = StorageErrc::kIo;
  int sys_errno = 0;
  std::string detail;  // "open /path/x.index" and the like

  std::string message() const;
};

StorageError io_error(std::string what);  // captures errno; reports disk failures (below)
StorageError storage_error(StorageErrc code, std::string detail);

// The disk failure channel (Kafka's LogDirFailureChannel). io_error reports every failure
// of the disk itself (is_disk_failure: EIO, EROFS, ENOSPC, EDQUOT) to the handler the
// process set, from whichever thread met it, before returning the error. A broker halts
// there, as Kafka does when its last log dir fails; with no handler (tools, tests) the
// error is only returned.
using DiskFailureHandler = void (*)(const StorageError&);
void set_disk_failure_handler(DiskFailureHandler handler);
bool is_disk_failure(int sys_errno);

}  // namespace strata::storage

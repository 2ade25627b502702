// Kafka's producer state snapshot, `<offset>.snapshot`, version 1
// (docs/formats/producer-snapshot.md): encoding, decoding and the file itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "common/types.h"
#include "storage/errors.h"
#include "storage/file.h"
#include "storage/producer_state.h"

namespace strata::storage {

// snapshot = version int16 | crc uint32 (CRC-32C of the bytes after it) | count int32 | entry*
inline constexpr int16_t kProducerSnapshotVersion = 1;
inline constexpr size_t kSnapshotVersionPos = 0;
inline constexpr size_t kSnapshotCrcPos = 2;
inline constexpr size_t kSnapshotCountPos = 6;  // the CRC covers from here to the end
inline constexpr size_t kSnapshotHeaderSize = 10;
// entry = producerId int64 | epoch int16 | lastSequence int32 | lastOffset int64 |
//         offsetDelta int32 | timestamp int64 | coordinatorEpoch int32 |
//         currentTxnFirstOffset int64
inline constexpr size_t kSnapshotEntrySize = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;
static_assert(kSnapshotCrcPos + 4 == kSnapshotCountPos);
static_assert(kSnapshotCountPos + 4 == kSnapshotHeaderSize);
static_assert(kSnapshotEntrySize == 46);
// The largest snapshot read (2.9 million producers); a larger file is treated as corrupt
// and the state is rebuilt from the log.
inline constexpr uint64_t kSnapshotBytesMax = 128u << 20;

using SnapshotEntries = std::vector<std::pair<ProducerId, ProducerEntry>>;

// The file's bytes for `state`, entries by increasing producer id, each with its last
// batch only (the format holds one).
std::vector<uint8_t> encode_producer_snapshot(const ProducerState& state);
// Parses a whole file. kCorruptSnapshot on a bad version, a short file, a negative or
// too large count, bytes after the last entry, or a CRC mismatch. An entry with
// lastOffset -1 has no batch.
Result<SnapshotEntries, StorageError> decode_producer_snapshot(Bytes file);

enum class SnapshotSync : uint8_t {
  kNow,    // fsync the file before it takes its name, and the directory after
  kLater,  // the caller fdatasyncs the returned File before relying on the snapshot
};

// Writes `bytes` as `path` without ever exposing a partial file under that name:
// "<path>.tmp", then rename. With kLater a crash may leave an empty or torn file under
// `path`; readers reject it by its CRC. Returns the written file.
Result<std::shared_ptr<File>, StorageError> write_producer_snapshot(const std::string& path,
                                                                   Bytes bytes,
                                                                   SnapshotSync sync);
// Reads and decodes `path` (at most kSnapshotBytesMax bytes).
Result<SnapshotEntries, StorageError> read_producer_snapshot(const std::string& path);

}  // namespace strata::storage

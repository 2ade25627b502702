// `strata dump-log` for producer-state `<offset>.snapshot` files, as Kafka's
// DumpLogSegments.dumpProducerIdSnapshot prints them (docs/formats/dump-log-output.md
// section 3.4; the file format is docs/formats/producer-snapshot.md).
//
// The file is checked the way Kafka's ProducerStateManager.readSnapshot checks it, in
// the same order and with the same messages, so a file Kafka's tool rejects is rejected
// here with the same words (except where Kafka's message is a bare "null": there this
// says what is missing). Nothing is printed for a file that fails a check.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "common/bytes.h"
#include "common/result.h"
#include "common/types.h"

namespace strata::tools {

// One entry of a snapshot file, every field as stored.
struct SnapshotFileEntry {
  ProducerId producer_id;
  ProducerEpoch epoch;
  Sequence last_sequence;
  Offset last_offset;  // < 0: the producer has no batch
  int32_t offset_delta = 0;
  int64_t timestamp = -1;  // Kafka's lastTimestamp and the batch's timestamp alike
  int32_t coordinator_epoch = -1;
  Offset current_txn_first_offset;  // < 0: no open transaction
};

// A snapshot file Kafka would read: its entry count and the bytes after the last entry
// (Kafka ignores them; they are covered by the CRC).
struct SnapshotFileShape {
  int32_t count = 0;
  size_t trailing_bytes = 0;
};

// Kafka's readSnapshot checks: version, then the fields (header, count, entries), then
// the CRC. The error is the text of Kafka's CorruptSnapshotException, e.g.
// "Snapshot is corrupt (CRC is no longer valid). Stored crc: 1. Computed crc: 2".
Result<SnapshotFileShape, std::string> check_snapshot_file(Bytes file);

// Entry `i` (0 <= i < count) of a file check_snapshot_file accepted.
SnapshotFileEntry snapshot_file_entry(Bytes file, int32_t i);

// Kafka's line for one entry, without its newline: "producerId: 1 producerEpoch: 0
// coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: 5 " and,
// when the entry has a batch, "firstSequence: 0 lastSequence: 4 lastOffset: 9
// offsetDelta: 4 timestamp: 5". Without a batch the line ends in that space, as Kafka's.
std::string snapshot_entry_line(const SnapshotFileEntry& e);

// Dumps `path` after its "Dumping" line: one line per entry on `out`, in file order. A
// file that fails Kafka's checks prints Kafka's message on `err` (and no entries); a file
// Kafka reads but Strata's broker would not load gets a note on `err`. Returns 0, or 1 if
// the file cannot be read or fails a check (Kafka's tool exits 0 there).
int dump_producer_snapshot(const std::string& path, std::ostream& out, std::ostream& err);

}  // namespace strata::tools

#include "tools/dump_snapshot.h"

#include <fmt/format.h>

#include <cassert>
#include <limits>
#include <ostream>

#include "record/crc32c.h"
#include "storage/producer_snapshot.h"
#include "tools/mapped_file.h"

namespace strata::tools {

using storage::kSnapshotCountPos;
using storage::kSnapshotEntrySize;
using storage::kSnapshotHeaderSize;

namespace {

// Kafka wraps every parse failure as "Snapshot failed schema validation: <cause>".
Failure<std::string> schema_error(const std::string& cause) {
  return fail("Snapshot failed schema validation: " + cause);
}

// Where Kafka's cause is a BufferUnderflowException, whose message is "null".
Failure<std::string> too_short_for_header(size_t file_size) {
  return schema_error(fmt::format("the file is {} bytes, shorter than the {}-byte header",
                                  file_size, kSnapshotHeaderSize));
}

// Kafka's DefaultRecordBatch.decrementSequence, in Java's wrapping int arithmetic so
// that any stored values (a file can hold anything its CRC covers) are defined here.
int32_t first_sequence(int32_t last_sequence, int32_t offset_delta) {
  const uint32_t last = uint32_t(last_sequence);
  const uint32_t delta = uint32_t(offset_delta);
  if (last_sequence < offset_delta) return int32_t(uint32_t(INT32_MAX) - (delta - last) + 1u);
  return int32_t(last - delta);
}

std::string optional_long(Offset v) {
  return v.value() >= 0 ? fmt::format("OptionalLong[{}]", v.value()) : "OptionalLong.empty";
}

// Why Strata's broker (storage::read_producer_snapshot) would refuse a file Kafka reads.
std::string strata_load_concern(size_t file_size, const SnapshotFileShape& shape) {
  if (file_size > storage::kSnapshotBytesMax) {
    return fmt::format("it is {} bytes, over the broker's limit of {}", file_size,
                       storage::kSnapshotBytesMax);
  }
  if (shape.trailing_bytes > 0) {
    return fmt::format("{} bytes follow the last entry", shape.trailing_bytes);
  }
  return "";
}

}  // namespace

Result<SnapshotFileShape, std::string> check_snapshot_file(Bytes file) {
  ByteReader r(file);
  const int16_t version = r.i16();
  if (!r.ok()) return too_short_for_header(file.size());
  if (version != storage::kProducerSnapshotVersion) {
    return schema_error(fmt::format("Snapshot contained an unknown file version {}", version));
  }
  const uint32_t stored_crc = r.u32();
  const int32_t count = r.i32();
  if (!r.ok()) return too_short_for_header(file.size());
  // The generated ProducerSnapshot reader's two checks on an array length.
  if (count < 0) {
    return schema_error("non-nullable field producerEntries was serialized as null");
  }
  if (!r.fits(count)) {
    return schema_error(fmt::format(
        "Tried to allocate a collection of size {}, but there are only {} bytes remaining.", count,
        r.remaining()));
  }
  const uint64_t entries_bytes = uint64_t(count) * kSnapshotEntrySize;
  if (entries_bytes > r.remaining()) {
    return schema_error(fmt::format("the file is {} bytes, too short for its {} entries ({} bytes)",
                                    file.size(), count, kSnapshotHeaderSize + entries_bytes));
  }
  const uint32_t computed_crc = record::crc32c(file.subspan(kSnapshotCountPos));
  if (stored_crc != computed_crc) {
    return fail(
        fmt::format("Snapshot is corrupt (CRC is no longer valid). Stored crc: {}. "
                    "Computed crc: {}",
                    stored_crc, computed_crc));
  }
  return SnapshotFileShape{count, size_t(r.remaining() - entries_bytes)};
}

SnapshotFileEntry snapshot_file_entry(Bytes file, int32_t i) {
  assert(i >= 0);
  assert(kSnapshotHeaderSize + (uint64_t(i) + 1) * kSnapshotEntrySize <= file.size());
  ByteReader r(
      file.subspan(kSnapshotHeaderSize + size_t(i) * kSnapshotEntrySize, kSnapshotEntrySize));
  SnapshotFileEntry e;
  e.producer_id = ProducerId(r.i64());
  e.epoch = ProducerEpoch(r.i16());
  e.last_sequence = Sequence(r.i32());
  e.last_offset = Offset(r.i64());
  e.offset_delta = r.i32();
  e.timestamp = r.i64();
  e.coordinator_epoch = r.i32();
  e.current_txn_first_offset = Offset(r.i64());
  assert(r.ok() && r.remaining() == 0);
  return e;
}

std::string snapshot_entry_line(const SnapshotFileEntry& e) {
  std::string line = fmt::format(
      "producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {} "
      "lastTimestamp: {} ",
      e.producer_id.value(), e.epoch.value(), e.coordinator_epoch,
      optional_long(e.current_txn_first_offset), e.timestamp);
  // Kafka loads an entry with a batch only when its lastOffset is >= 0.
  if (e.last_offset.value() >= 0) {
    line += fmt::format(
        "firstSequence: {} lastSequence: {} lastOffset: {} offsetDelta: {} timestamp: {}",
        first_sequence(e.last_sequence.value(), e.offset_delta), e.last_sequence.value(),
        e.last_offset.value(), e.offset_delta, e.timestamp);
  }
  return line;
}

int dump_producer_snapshot(const std::string& path, std::ostream& out, std::ostream& err) {
  // Kafka reads the whole file; a mapping costs no memory up front however big it is.
  MappedFile file(path, std::numeric_limits<uint64_t>::max());
  if (!file.ok()) {
    err << "Error: cannot read " << path << ": " << file.error() << "\n";
    return 1;
  }
  auto shape = check_snapshot_file(file.bytes());
  if (!shape) {
    err << shape.error() << "\n";
    return 1;
  }
  for (int32_t i = 0; i < shape->count; ++i) {
    out << snapshot_entry_line(snapshot_file_entry(file.bytes(), i)) << "\n";
  }
  const std::string concern = strata_load_concern(file.bytes().size(), *shape);
  if (!concern.empty()) {
    err << "Note: Strata's broker would not load " << path << ": " << concern << "\n";
  }
  return 0;
}

}  // namespace strata::tools

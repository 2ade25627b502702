#include "storage/producer_snapshot.h"

#include <unistd.h>

#include "record/crc32c.h"
#include "storage/checkpoint.h"

namespace strata::storage {

namespace {

StorageError corrupt(const std::string& why) {
  return storage_error(StorageErrc::kCorruptSnapshot, "producer snapshot " + why);
}

void encode_entry(ByteWriter& w, ProducerId id, const ProducerEntry& e) {
  const ProducerBatch last = e.empty() ? ProducerBatch{} : e.batches().back();
  w.i64(id.value());
  w.i16(e.epoch.value());
  w.i32(last.last_sequence.value());
  w.i64(last.last_offset.value());
  w.i32(last.offset_delta);
  w.i64(e.last_timestamp);
  w.i32(e.coordinator_epoch);
  w.i64(e.current_txn_first_offset.value());
}

// Kafka's readSnapshot: the entry with its one batch, if it has one.
std::pair<ProducerId, ProducerEntry> decode_entry(ByteReader& r) {
  const ProducerId id(r.i64());
  ProducerEntry e;
  e.epoch = ProducerEpoch(r.i16());
  ProducerBatch last;
  last.last_sequence = Sequence(r.i32());
  last.last_offset = Offset(r.i64());
  last.offset_delta = r.i32();
  last.max_timestamp = r.i64();
  e.coordinator_epoch = r.i32();
  const int64_t txn = r.i64();
  e.current_txn_first_offset = Offset(txn >= 0 ? txn : -1);
  if (last.last_offset.value() >= 0) e.add_batch(e.epoch, last);
  e.last_timestamp = last.max_timestamp;
  return {id, e};
}

}  // namespace

std::vector<uint8_t> encode_producer_snapshot(const ProducerState& state) {
  const auto entries = state.sorted();
  std::vector<uint8_t> out;
  out.reserve(kSnapshotHeaderSize + entries.size() * kSnapshotEntrySize);
  ByteWriter w(out);
  w.i16(kProducerSnapshotVersion);
  w.u32(0);  // the CRC, patched below
  w.i32(int32_t(entries.size()));
  for (const auto& [id, entry] : entries) encode_entry(w, id, *entry);
  const uint32_t crc = record::crc32c(Bytes(out).subspan(kSnapshotCountPos));
  store_be32(&out[kSnapshotCrcPos], crc);
  return out;
}

Result<SnapshotEntries, StorageError> decode_producer_snapshot(Bytes file) {
  ByteReader r(file);
  const int16_t version = r.i16();
  const uint32_t crc = r.u32();
  const int32_t count = r.i32();
  if (!r.ok()) return fail(corrupt("is " + std::to_string(file.size()) + " bytes, too short"));
  if (version != kProducerSnapshotVersion) {
    return fail(corrupt("has unknown version " + std::to_string(version)));
  }
  if (count < 0 || uint64_t(count) * kSnapshotEntrySize != r.remaining()) {
    return fail(corrupt("claims " + std::to_string(count) + " entries in " +
                        std::to_string(r.remaining()) + " bytes"));
  }
  const uint32_t computed = record::crc32c(file.subspan(kSnapshotCountPos));
  if (crc != computed) {
    return fail(corrupt("CRC mismatch: stored " + std::to_string(crc) + ", computed " +
                        std::to_string(computed)));
  }
  SnapshotEntries out;
  out.reserve(size_t(count));
  for (int32_t i = 0; i < count; ++i) out.push_back(decode_entry(r));
  if (!r.ok() || r.remaining() != 0) return fail(corrupt("entries do not parse"));
  return out;
}

Result<std::shared_ptr<File>, StorageError> write_producer_snapshot(const std::string& path,
                                                                   Bytes bytes,
                                                                   SnapshotSync sync) {
  const std::string tmp = path + kTempFileSuffix;
  auto file = File::open(tmp, true);
  if (!file) return fail(file.error());
  // A .tmp left by a crash is removed when the log loads, but be exact regardless.
  if (auto t = (*file)->truncate(0); !t) return fail(t.error());
  if (auto w = (*file)->pwrite_all(bytes, 0); !w) return fail(w.error());
  if (sync == SnapshotSync::kNow) {
    if (auto s = (*file)->datasync(); !s) return fail(s.error());
  }
  if (auto r = rename_file(tmp, path); !r) {
    ::unlink(tmp.c_str());
    return fail(r.error());
  }
  if (sync == SnapshotSync::kNow) {
    if (auto d = sync_directory(path.substr(0, path.rfind('/'))); !d) return fail(d.error());
  }
  return std::move(*file);
}

Result<SnapshotEntries, StorageError> read_producer_snapshot(const std::string& path) {
  auto file = File::open(path, false);
  if (!file) return fail(file.error());
  auto size = (*file)->size();
  if (!size) return fail(size.error());
  if (*size > kSnapshotBytesMax) {
    return fail(corrupt(path + " is " + std::to_string(*size) + " bytes, over the limit"));
  }
  std::vector<uint8_t> bytes(*size);
  auto got = (*file)->pread_some(bytes, 0);
  if (!got) return fail(got.error());
  bytes.resize(*got);
  auto decoded = decode_producer_snapshot(bytes);
  if (!decoded) {
    return fail(storage_error(StorageErrc::kCorruptSnapshot, path + ": " + decoded.error().detail));
  }
  return decoded;
}

}  // namespace strata::storage

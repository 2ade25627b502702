#include "storage/cleaner_filter.h"

#include <string>

#include "record/batch_builder.h"
#include "record/batch_format.h"
#include "record/crc32c.h"
#include "record/legacy.h"
#include "record/validate.h"

namespace strata::storage {

using namespace strata::record;

namespace {

StorageError bad_batch(const BatchView& batch, const std::string& why) {
  return storage_error(
      StorageErrc::kInvalidBatch,
      "cleaner: batch at offset " + std::to_string(batch.base_offset().value()) + ": " + why);
}

void append_bytes(std::vector<uint8_t>& out, Bytes bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

}  // namespace

std::vector<uint8_t> empty_batch_like(const BatchView& batch) {
  std::vector<uint8_t> b(kHeaderSize);
  uint8_t* h = b.data();
  const int16_t attributes =
      int16_t(batch.attributes() & (kTimestampTypeBit | kTransactionalBit | kControlBit));
  store_be64(h + kBaseOffsetPos, uint64_t(batch.base_offset().value()));
  store_be32(h + kBatchLengthPos, uint32_t(kHeaderSize - kLogOverhead));
  store_be32(h + kPartitionLeaderEpochPos, uint32_t(batch.partition_leader_epoch().value()));
  h[kMagicPos] = uint8_t(kMagicV2);
  store_be16(h + kAttributesPos, uint16_t(attributes));
  store_be32(h + kLastOffsetDeltaPos, uint32_t(batch.last_offset_delta()));
  store_be64(h + kBaseTimestampPos, uint64_t(int64_t(-1)));
  store_be64(h + kMaxTimestampPos, uint64_t(batch.max_timestamp()));
  store_be64(h + kProducerIdPos, uint64_t(batch.producer_id().value()));
  store_be16(h + kProducerEpochPos, uint16_t(batch.producer_epoch().value()));
  store_be32(h + kBaseSequencePos, uint32_t(batch.base_sequence().value()));
  store_be32(h + kRecordCountPos, 0);
  store_be32(h + kCrcPos, crc32c(Bytes(b).subspan(kCrcStart)));
  return b;
}

BatchFilter::BatchFilter(const CleanTask& task, const OffsetMap& map, CleanerTxns& txns,
                         int64_t now_ms, CleanStats& stats)
    : task_(task), map_(map), txns_(txns), now_ms_(now_ms), stats_(stats) {}

bool BatchFilter::last_batch_of_producer(const BatchView& batch) const {
  auto it = task_.producers.find(batch.producer_id());
  if (it == task_.producers.end()) return false;
  if (it->second.last_data_offset) return batch.last_offset() == *it->second.last_data_offset;
  return batch.is_control() && batch.producer_epoch() == it->second.epoch;
}

// Kafka's checkBatchRetention in LogCleaner.cleanInto.
Result<BatchFilter::Decision, StorageError> BatchFilter::decide(const BatchView& batch) {
  bool can_discard = false;
  if (batch.is_control()) {
    auto c = txns_.on_control(batch, cleaned_index_);
    if (!c) return fail(c.error());
    can_discard = *c;
  } else {
    can_discard = txns_.on_data(batch);
  }
  Decision d;
  const auto horizon = batch.delete_horizon_ms();
  d.discard_records =
      batch.is_control() ? can_discard && horizon && *horizon <= now_ms_ : can_discard;
  d.marker_for_empty_txn = can_discard && batch.is_control();
  if (batch.producer_id().value() >= 0 && last_batch_of_producer(batch)) {
    d.keep = Keep::kRetainEmpty;
  } else if (Offset(batch.last_offset().value() + 1) == task_.first_uncleanable) {
    d.keep = Keep::kRetainEmpty;  // the round's last batch keeps the log's last offset
  } else {
    d.keep = d.discard_records ? Keep::kDelete : Keep::kDeleteEmpty;
  }
  return d;
}

// Kafka's Cleaner.shouldRetainRecord for a data batch's record.
bool BatchFilter::retain_record(const BatchView& batch, const RecordView& r) {
  const Offset offset = batch.offset_of(r);
  if (offset > map_.latest_offset()) return true;
  if (!r.key) {
    ++stats_.keyless_records_removed;
    return false;
  }
  const std::optional<Offset> latest = map_.get(*r.key);
  if (latest && offset < *latest) return false;
  const auto horizon = batch.delete_horizon_ms();
  const bool retain_deletes = !horizon || now_ms_ < *horizon;
  return r.value.has_value() || retain_deletes;
}

// Kafka's filterBatch: the records that stay go to kept_.
Result<BatchFilter::Kept, StorageError> BatchFilter::keep_records(const BatchView& batch,
                                                                  const Decision& decision) {
  auto records = uncompressed_records(batch, scratch_);
  if (!records) return fail(bad_batch(batch, to_string(records.error())));
  RecordCursor cursor(*records, batch.record_count());
  kept_.clear();
  Kept kept;
  int32_t last_delta = -1;
  for (RecordView r;;) {
    auto more = cursor.next(r);
    if (!more) return fail(bad_batch(batch, to_string(more.error())));
    if (!*more) return kept;
    // A rebuilt batch needs increasing offset deltas within lastOffsetDelta.
    if (r.offset_delta <= last_delta || r.offset_delta > batch.last_offset_delta()) {
      return fail(bad_batch(batch, "offset deltas out of order"));
    }
    last_delta = r.offset_delta;
    ++stats_.records_read;
    if (decision.discard_records || !(batch.is_control() || retain_record(batch, r))) {
      kept.all = false;
      continue;
    }
    kept_.push_back(r);
    if (!r.value) kept.tombstones = true;
  }
}

void BatchFilter::emit(Bytes batch, Offset last_offset, int64_t max_timestamp,
                       std::vector<uint8_t>& out, std::vector<BatchInfo>& infos) {
  append_bytes(out, batch);
  infos.push_back({last_offset, max_timestamp, uint32_t(batch.size())});
  stats_.bytes_written += batch.size();
}

Result<void, StorageError> BatchFilter::filter(Bytes entry, std::vector<uint8_t>& out,
                                               std::vector<BatchInfo>& infos) {
  stats_.bytes_read += entry.size();
  if (int8_t(entry[kMagicPos]) != kMagicV2) {
    auto legacy = parse_legacy_entry(entry);
    if (!legacy) {
      return fail(storage_error(StorageErrc::kInvalidBatch, "cleaner: bad legacy entry"));
    }
    emit(entry, legacy->offset, legacy->timestamp.value(), out, infos);
    return {};
  }
  auto framed = frame_batch(entry);
  if (!framed || framed->size() != entry.size()) {
    return fail(storage_error(StorageErrc::kInvalidBatch, "cleaner: unframed batch"));
  }
  const BatchView batch = *framed;
  if (batch.crc() != batch.computed_crc()) return fail(bad_batch(batch, "CRC mismatch"));
  auto decision = decide(batch);
  if (!decision) return fail(decision.error());
  if (decision->keep == Keep::kDelete) return {};
  auto kept = keep_records(batch, *decision);
  if (!kept) return fail(kept.error());
  if (kept_.empty()) {
    if (decision->keep == Keep::kRetainEmpty) {
      const std::vector<uint8_t> empty = empty_batch_like(batch);
      emit(empty, batch.last_offset(), batch.max_timestamp(), out, infos);
    }
    return {};
  }
  const auto horizon = batch.delete_horizon_ms();
  const bool set_horizon = (kept->tombstones || decision->marker_for_empty_txn) && !horizon;
  stats_.records_written += kept_.size();
  if (kept->all && !set_horizon) {
    emit(entry, batch.last_offset(), batch.max_timestamp(), out, infos);
    return {};
  }
  const std::optional<int64_t> new_horizon =
      set_horizon ? std::optional<int64_t>(now_ms_ + task_.config.delete_retention_ms) : horizon;
  return rewrite(batch, kept_, new_horizon, out, infos);
}

// Kafka's buildRetainedRecordsInto: the same batch with fewer records.
Result<void, StorageError> BatchFilter::rewrite(const BatchView& batch,
                                                const std::vector<RecordView>& kept,
                                                std::optional<int64_t> horizon,
                                                std::vector<uint8_t>& out,
                                                std::vector<BatchInfo>& infos) {
  BatchOptions o;
  o.codec = batch.codec();
  o.timestamp_type = batch.timestamp_type();
  o.transactional = batch.is_transactional();
  o.control = batch.is_control();
  o.base_offset = batch.base_offset();
  o.partition_leader_epoch = batch.partition_leader_epoch();
  o.producer_id = batch.producer_id();
  o.producer_epoch = batch.producer_epoch();
  o.base_sequence = batch.base_sequence();
  o.delete_horizon_ms = horizon;
  BatchBuilder builder(o);
  std::vector<Header> headers;
  for (const RecordView& r : kept) {
    headers.clear();
    HeaderCursor hc(r);
    for (Header h; hc.next(h);) headers.push_back(h);
    builder.append_at(r.offset_delta, batch.timestamp_of(r), r.key, r.value, headers);
  }
  builder.set_last_offset_delta(batch.last_offset_delta());
  auto bytes = builder.finish();
  if (!bytes) return fail(bad_batch(batch, to_string(bytes.error())));
  const BatchView rebuilt(*bytes);
  emit(*bytes, rebuilt.last_offset(), rebuilt.max_timestamp(), out, infos);
  return {};
}

}  // namespace strata::storage

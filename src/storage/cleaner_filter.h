// The cleaner's rule for one batch (Kafka's LogCleaner.cleanInto filter and
// MemoryRecords.filterTo): what of it survives, and in what form.
//
//   - a batch of an aborted transaction, a marker that may go and whose delete horizon has
//     passed: dropped whole (kept as an empty header if it is a producer's last batch, or
//     the last batch before the first uncleanable offset);
//   - otherwise its records are filtered: a record stays if its offset is beyond the map,
//     or it has a key whose mapped offset is not above its own, and it has a value or its
//     batch's delete horizon has not passed (none set counts as not passed);
//   - all records stay and no horizon is needed: the batch is copied byte for byte;
//   - some stay: the batch is rebuilt with the same base offset, lastOffsetDelta (so the
//     producer's last sequence stays), producer fields, leader epoch, attributes and
//     codec, each record at its own offset and timestamp, and a new CRC. A batch keeping
//     a tombstone, or a marker that may go, gets the delete horizon now +
//     delete.retention.ms (attributes bit 6, baseTimestamp) if it has none yet;
//   - none stay: dropped, or an empty header as above (Kafka's writeEmptyHeader).
//
// Legacy (v0/v1) entries are copied as they are: Strata never compacts them.
//
// Threading: the cleaner thread's.
#pragma once

#include <cstdint>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_view.h"
#include "storage/cleaner_txns.h"
#include "storage/errors.h"
#include "storage/log_cleaner.h"
#include "storage/offset_map.h"
#include "storage/segment.h"

namespace strata::storage {

class BatchFilter {
 public:
  // All references must outlive the filter.
  BatchFilter(const CleanTask& task, const OffsetMap& map, CleanerTxns& txns, int64_t now_ms,
              CleanStats& stats);

  // The txn index of the segment being written (ABORT markers that stay go there).
  void set_cleaned_index(TxnIndex* index) { cleaned_index_ = index; }
  // Appends to `out` what survives of `entry` (a v2 batch or a legacy entry, as a
  // segment holds it) and a BatchInfo for it to `infos`. A batch that fails its CRC or
  // whose records do not decode is an error (kInvalidBatch): the cleaning stops.
  Result<void, StorageError> filter(Bytes entry, std::vector<uint8_t>& out,
                                    std::vector<BatchInfo>& infos);

 private:
  enum class Keep { kDelete, kRetainEmpty, kDeleteEmpty };  // Kafka's BatchRetention
  struct Decision {
    Keep keep = Keep::kDeleteEmpty;
    bool discard_records = false;
    bool marker_for_empty_txn = false;
  };
  struct Kept {
    bool all = true;          // every record stays
    bool tombstones = false;  // a record that stays has a null value
  };
  Result<Decision, StorageError> decide(const record::BatchView& batch);
  Result<Kept, StorageError> keep_records(const record::BatchView& batch, const Decision& decision);
  void emit(Bytes batch, Offset last_offset, int64_t max_timestamp, std::vector<uint8_t>& out,
            std::vector<BatchInfo>& infos);
  bool last_batch_of_producer(const record::BatchView& batch) const;
  bool retain_record(const record::BatchView& batch, const record::RecordView& r);
  Result<void, StorageError> rewrite(const record::BatchView& batch,
                                     const std::vector<record::RecordView>& kept,
                                     std::optional<int64_t> horizon, std::vector<uint8_t>& out,
                                     std::vector<BatchInfo>& infos);

  const CleanTask& task_;
  const OffsetMap& map_;
  CleanerTxns& txns_;
  int64_t now_ms_;
  CleanStats& stats_;
  TxnIndex* cleaned_index_ = nullptr;
  std::vector<uint8_t> scratch_;  // decompressed records
  std::vector<record::RecordView> kept_;
};

// Kafka's DefaultRecordBatch.writeEmptyHeader: a record-less v2 batch with `batch`'s base
// and last offsets, producer fields, leader epoch, timestamp type, transactional and
// control bits and max timestamp; no codec, baseTimestamp -1, no delete horizon.
std::vector<uint8_t> empty_batch_like(const record::BatchView& batch);

}  // namespace strata::storage

#include "storage/cleaner_txns.h"

#include <algorithm>

#include "record/control.h"

namespace strata::storage {

namespace {

enum class MarkerKind { kNone, kAbort, kCommit, kOther };

// The type of a control batch's first record; kNone for an empty batch (one a cleaning
// emptied), kOther for anything unreadable or not an end-transaction marker.
MarkerKind marker_kind(const record::BatchView& batch) {
  if (batch.record_count() == 0) return MarkerKind::kNone;
  std::vector<uint8_t> scratch;
  auto records = record::uncompressed_records(batch, scratch);
  if (!records) return MarkerKind::kOther;
  record::RecordCursor cursor(*records, batch.record_count());
  record::RecordView r;
  auto more = cursor.next(r);
  if (!more || !*more) return MarkerKind::kOther;
  auto key = record::parse_control_key(r.key);
  if (!key) return MarkerKind::kOther;
  if (key->type == int16_t(record::ControlType::kAbort)) return MarkerKind::kAbort;
  if (key->type == int16_t(record::ControlType::kCommit)) return MarkerKind::kCommit;
  return MarkerKind::kOther;
}

}  // namespace

CleanerTxns::CleanerTxns(std::vector<AbortedTxn> aborted) : aborted_(std::move(aborted)) {
  std::sort(aborted_.begin(), aborted_.end(), [](const AbortedTxn& a, const AbortedTxn& b) {
    return a.first_offset > b.first_offset;
  });
}

void CleanerTxns::start_aborts_up_to(Offset offset) {
  while (!aborted_.empty() && aborted_.back().first_offset <= offset) {
    const AbortedTxn& txn = aborted_.back();
    ongoing_aborts_.try_emplace(txn.producer_id, OngoingAbort{txn, std::nullopt});
    aborted_.pop_back();
  }
}

bool CleanerTxns::on_data(const record::BatchView& batch) {
  start_aborts_up_to(batch.last_offset());
  if (!batch.is_transactional()) return false;
  auto it = ongoing_aborts_.find(batch.producer_id());
  if (it == ongoing_aborts_.end()) {
    ongoing_commits_.insert(batch.producer_id());
    return false;
  }
  it->second.last_batch = batch.last_offset();
  return true;
}

Result<bool, StorageError> CleanerTxns::on_control(const record::BatchView& batch,
                                                   TxnIndex* cleaned) {
  start_aborts_up_to(batch.last_offset());
  const ProducerId pid = batch.producer_id();
  switch (marker_kind(batch)) {
    case MarkerKind::kNone:
      return true;  // emptied by an earlier cleaning
    case MarkerKind::kOther:
      return false;
    case MarkerKind::kCommit:
      return ongoing_commits_.erase(pid) == 0;
    case MarkerKind::kAbort: {
      auto it = ongoing_aborts_.find(pid);
      if (it == ongoing_aborts_.end()) return true;
      const OngoingAbort abort = it->second;
      ongoing_aborts_.erase(it);
      if (!abort.last_batch) return true;
      // Batches of it were seen (and dropped) in this pass: the marker stays this time.
      if (cleaned != nullptr) {
        if (auto a = cleaned->append(abort.txn); !a) return fail(a.error());
      }
      return false;
    }
  }
  return false;
}

}  // namespace strata::storage

// A log's transactions: end-transaction markers written for the coordinator, the open
// transactions behind the last stable offset, and the txn indexes a read_committed
// fetch consults (docs/formats/txn-index.md).
#include <string>

#include "record/control.h"
#include "record/stamp.h"
#include "storage/log.h"

namespace strata::storage {

namespace {

StorageError marker_refused(ProducerErrc e, const EndTxn& m, const ProducerEntry* entry) {
  const std::string who = "marker for producer " + std::to_string(m.producer_id.value()) +
                          " epoch " + std::to_string(m.epoch.value());
  if (e == ProducerErrc::kInvalidProducerEpoch) {
    return storage_error(StorageErrc::kInvalidProducerEpoch,
                         who + " is older than its current epoch " +
                             std::to_string(entry ? entry->epoch.value() : -1));
  }
  return storage_error(StorageErrc::kTransactionCoordinatorFenced,
                       who + ": coordinator epoch " + std::to_string(m.coordinator_epoch) +
                           " is older than " +
                           std::to_string(entry ? entry->coordinator_epoch : -1));
}

std::vector<uint8_t> marker_batch(const EndTxn& m, Offset offset, LeaderEpoch epoch) {
  record::EndTxnMarker marker;
  marker.type = m.commit ? record::ControlType::kCommit : record::ControlType::kAbort;
  marker.coordinator_epoch = m.coordinator_epoch;
  record::ControlBatchOptions o;
  o.base_offset = offset;
  o.partition_leader_epoch = epoch;
  o.producer_id = m.producer_id;
  o.producer_epoch = m.epoch;
  o.timestamp_ms = m.timestamp;
  return record::build_end_txn_batch(marker, o);
}

}  // namespace

AbortedTxn Log::aborted_entry(const CompletedTxn& txn) const {
  return AbortedTxn{txn.producer_id, txn.first_offset, txn.last_offset,
                    producers_.last_stable_offset(txn)};
}

Result<AppendResult, StorageError> Log::append_marker(const TxnMarker& marker, LeaderEpoch epoch,
                                                      int64_t now_ms) {
  check_owner();
  if (auto w = check_writable(); !w) return fail(w.error());
  if (marker.producer_id.value() < 0) {
    return fail(storage_error(StorageErrc::kInvalidRecord, "marker without a producer id"));
  }
  const EndTxn end{marker.producer_id, marker.epoch, marker.coordinator_epoch, marker.commit,
                   now_ms};
  if (const ProducerErrc e = producers_.check_marker(end); e != ProducerErrc::kNone) {
    return fail(marker_refused(e, end, producers_.find(marker.producer_id)));
  }
  const Offset offset = next_offset_;
  std::vector<uint8_t> batch = marker_batch(end, offset, epoch);
  const bool log_append_time = config_.message_timestamp_type == "LogAppendTime";
  if (log_append_time) record::set_log_append_time(batch, TimestampMs(now_ms));
  if (active().should_roll(batch.size(), offset, now_ms, now_ms, config_)) {
    if (auto r = roll(now_ms); !r) return fail(r.error());
  }
  const BatchInfo info{offset, now_ms, uint32_t(batch.size())};
  if (auto r = active().append(batch, std::span(&info, 1)); !r) return fail(r.error());
  next_offset_ = Offset(offset.value() + 1);
  if (epochs_.empty() || epoch > epochs_.back().epoch) {
    epochs_.push_back({epoch, offset});
    if (auto e = save_epochs(offset); !e) return fail(e.error());
  }
  std::shared_ptr<File> txn_file;
  const auto completed = producers_.end_txn(end, offset);
  if (completed && completed->aborted) {
    TxnIndex& index = active().txn_index();
    if (auto a = index.append(aborted_entry(*completed)); !a) return fail(a.error());
    txn_file = index.file();
  }
  note_written(txn_file);
  AppendResult result;
  result.first_offset = result.last_offset = offset;
  result.max_timestamp = now_ms;
  if (log_append_time) result.log_append_time = now_ms;
  result.batches = 1;
  return result;
}

std::vector<AbortedTxn> Log::aborted_transactions(Offset start, Offset upper) const {
  check_owner();
  std::vector<AbortedTxn> out;
  auto it = segments_.upper_bound(start.value());
  if (it != segments_.begin()) --it;
  for (; it != segments_.end(); ++it) {
    if (it->second->txn_index().collect(start, upper, out)) break;
  }
  return out;
}

}  // namespace strata::storage

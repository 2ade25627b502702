// The cleaner thread's part of a cleaning (Kafka's Cleaner.doClean): map the dirty range,
// then rewrite the log up to where the map ends, group by group, into `.cleaned` files.
#include "storage/log_cleaner.h"

#include <algorithm>
#include <cmath>

#include "record/batch_format.h"
#include "record/validate.h"
#include "storage/cleaner_filter.h"
#include "storage/cleaner_txns.h"
#include "storage/index_format.h"
#include "storage/segment_scan.h"

namespace strata::storage {

using namespace strata::record;

namespace {

constexpr uint64_t kEntryBytesFloor = 16u << 20;  // as the log's own scans

uint64_t max_entry_bytes(const LogConfig& config) {
  return std::max<uint64_t>(uint64_t(config.max_message_bytes) + 4096 + kLogOverhead,
                            kEntryBytesFloor);
}

StorageError stopped() {
  return storage_error(StorageErrc::kClosed, "cleaning aborted");
}

bool stop_requested(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

StorageError torn(const CleanInput& in, uint64_t position) {
  return storage_error(StorageErrc::kInvalidBatch,
                       "cleaner: segment " + std::to_string(in.base.value()) +
                           " has no whole entry at position " + std::to_string(position));
}

// Walks the entries of `in` from `position` to its end, or until `visit` returns false.
template <class Visit>
Result<void, StorageError> for_each_entry(const CleanInput& in, uint64_t position,
                                          uint64_t max_entry, const std::atomic<bool>* stop,
                                          Visit&& visit) {
  SequentialReader reader(*in.file, in.size, max_entry, position);
  for (Bytes entry;;) {
    if (stop_requested(stop)) return fail(stopped());
    auto more = reader.next(entry);
    if (!more) return fail(more.error());
    if (!*more) break;
    auto go_on = visit(entry);
    if (!go_on) return fail(go_on.error());
    if (!*go_on) return {};
  }
  if (reader.position() != in.size) return fail(torn(in, reader.position()));
  return {};
}

StorageError bad_entry(const char* what) {
  return storage_error(StorageErrc::kInvalidBatch, std::string("cleaner: ") + what);
}

// Maps the keys of a committed data batch's records at or after the first dirty offset;
// false when the map filled first (the records before are mapped; cleaning stops there).
Result<bool, StorageError> map_records(const CleanTask& task, const BatchView& batch,
                                       OffsetMap& map, size_t entries_max,
                                       std::vector<uint8_t>& scratch, CleanStats& stats) {
  auto records = uncompressed_records(batch, scratch);
  if (!records) return fail(bad_entry("records do not decompress"));
  RecordCursor cursor(*records, batch.record_count());
  for (RecordView rec;;) {
    auto more = cursor.next(rec);
    if (!more) return fail(bad_entry("record does not decode"));
    if (!*more) return true;
    const Offset offset = batch.offset_of(rec);
    if (rec.key && offset >= task.first_dirty) {
      if (map.size() >= entries_max) return false;
      map.put(*rec.key, offset);
    }
    ++stats.map_records_read;
  }
}

// Kafka's buildOffsetMapForSegment. Returns true when the map filled up in this segment.
Result<bool, StorageError> map_segment(const CleanTask& task, const CleanInput& in, OffsetMap& map,
                                       size_t entries_max, CleanerTxns& txns,
                                       const std::atomic<bool>* stop, CleanStats& stats) {
  const uint64_t start = in.base <= task.first_dirty ? in.first_dirty_position : 0;
  std::vector<uint8_t> scratch;
  bool full = false;
  auto visit = [&](Bytes entry) -> Result<bool, StorageError> {
    stats.map_bytes_read += entry.size();
    Offset last(int64_t(load_be64(entry.data())));  // a legacy entry's (last) offset
    if (int8_t(entry[kMagicPos]) == kMagicV2) {
      auto batch = frame_batch(entry);
      if (!batch) return fail(bad_entry("unframed batch"));
      last = batch->last_offset();
      if (batch->is_control()) {
        if (auto c = txns.on_control(*batch, nullptr); !c) return fail(c.error());
        ++stats.map_records_read;
      } else if (!txns.on_data(*batch)) {
        auto fits = map_records(task, *batch, map, entries_max, scratch, stats);
        if (!fits) return fail(fits.error());
        full = !*fits;
        if (full) return false;
      }
    }
    if (last >= task.first_dirty) map.update_latest_offset(last);
    return true;
  };
  if (auto r = for_each_entry(in, start, max_entry_bytes(task.config), stop, visit); !r) {
    return fail(r.error());
  }
  if (!full) map.update_latest_offset(Offset(in.next_base.value() - 1));  // gaps included
  return full;
}

// Kafka's buildOffsetMap over [first_dirty, first_uncleanable).
Result<void, StorageError> build_offset_map(const CleanTask& task, OffsetMap& map,
                                            double load_factor, const std::atomic<bool>* stop,
                                            CleanStats& stats) {
  map.clear();
  std::vector<AbortedTxn> aborted;
  for (const AbortedTxn& t : task.aborted) {
    if (t.last_offset >= task.first_dirty) aborted.push_back(t);
  }
  CleanerTxns txns(std::move(aborted));
  const size_t entries_max = size_t(std::floor(double(map.slots()) * load_factor));
  for (const CleanInput& in : task.segments) {
    if (in.next_base <= task.first_dirty || in.base >= task.first_uncleanable) continue;
    auto full = map_segment(task, in, map, entries_max, txns, stop, stats);
    if (!full) return fail(full.error());
    if (*full) break;
  }
  stats.map_utilization = map.utilization();
  return {};
}

// Kafka's cleanInto for each segment of a group: what survives goes to `seg`, in writes
// of about log.cleaner.io.buffer.size; then the final index entries and an fdatasync.
Result<void, StorageError> filter_into(Segment& seg, const std::vector<const CleanInput*>& group,
                                       BatchFilter& filter, const CleanTask& task,
                                       const CleanerConfig& config, const std::atomic<bool>* stop) {
  const size_t write_bytes = size_t(std::max(config.io_buffer_size, 1));
  std::vector<uint8_t> buffer;
  std::vector<BatchInfo> infos;
  auto drain = [&]() -> Result<void, StorageError> {
    auto a = seg.append(buffer, infos);
    buffer.clear();
    infos.clear();
    return a;
  };
  auto visit = [&](Bytes entry) -> Result<bool, StorageError> {
    if (auto f = filter.filter(entry, buffer, infos); !f) return fail(f.error());
    if (buffer.size() >= write_bytes) {
      if (auto d = drain(); !d) return fail(d.error());
    }
    return true;
  };
  for (const CleanInput* in : group) {
    if (auto r = for_each_entry(*in, 0, max_entry_bytes(task.config), stop, visit); !r) return r;
  }
  if (auto d = drain(); !d) return d;
  if (auto i = seg.on_become_inactive(); !i) return i;
  return seg.flush();
}

// Kafka's cleanSegments: one group into one `.cleaned` segment, flushed.
Result<CleanedGroup, StorageError> clean_group(const CleanTask& task,
                                               const std::vector<const CleanInput*>& group,
                                               BatchFilter& filter, const CleanerConfig& config,
                                               int64_t now_ms, const std::atomic<bool>* stop) {
  auto created =
      Segment::create(task.dir, group.front()->base, task.config, now_ms, kCleanedSuffix);
  if (!created) return fail(created.error());
  CleanedGroup out;
  out.segment = std::move(*created);
  for (const CleanInput* in : group) out.replaces.emplace_back(in->base, in->file);
  filter.set_cleaned_index(&out.segment->txn_index());
  auto written = filter_into(*out.segment, group, filter, task, config, stop);
  filter.set_cleaned_index(nullptr);
  if (!written) {
    out.segment->remove_files();
    return fail(written.error());
  }
  return out;
}

}  // namespace

CleanResult::~CleanResult() {
  for (CleanedGroup& g : groups) {
    if (g.segment) g.segment->remove_files();
  }
}

std::vector<std::vector<const CleanInput*>> group_segments(const std::vector<const CleanInput*>& in,
                                                           uint64_t segment_bytes_max,
                                                           uint64_t index_bytes_max,
                                                           Offset first_uncleanable) {
  std::vector<std::vector<const CleanInput*>> groups;
  for (size_t i = 0; i < in.size();) {
    std::vector<const CleanInput*> group{in[i]};
    uint64_t log_bytes = in[i]->size, index_bytes = in[i]->offset_index_bytes,
             time_bytes = in[i]->time_index_bytes;
    for (++i; i < in.size(); ++i) {
      const CleanInput& next = *in[i];
      // Kafka's lastOffsetForFirstSegment: the next base - 1, or the cleanable end - 1.
      const int64_t last = (i + 1 < in.size() ? in[i + 1]->base : first_uncleanable).value() - 1;
      const bool offsets_fit = next.size == 0 || last - group.front()->base.value() <= INT32_MAX;
      if (log_bytes + next.size > segment_bytes_max ||
          index_bytes + next.offset_index_bytes > index_bytes_max ||
          time_bytes + next.time_index_bytes > index_bytes_max || !offsets_fit) {
        break;
      }
      group.push_back(&next);
      log_bytes += next.size;
      index_bytes += next.offset_index_bytes;
      time_bytes += next.time_index_bytes;
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

Result<CleanResult, StorageError> run_clean(const CleanTask& task, OffsetMap& map,
                                            const CleanerConfig& config, int64_t now_ms,
                                            const std::atomic<bool>* stop) {
  if (double(map.slots()) * config.dedupe_buffer_load_factor < 1.0) {
    return fail(storage_error(StorageErrc::kIo,
                              "offset map too small for one key: raise "
                              "log.cleaner.dedupe.buffer.size"));
  }
  CleanResult result;
  if (auto m = build_offset_map(task, map, config.dedupe_buffer_load_factor, stop, result.stats);
      !m) {
    return fail(m.error());
  }
  result.end_offset = std::max(Offset(map.latest_offset().value() + 1), task.first_dirty);
  std::vector<const CleanInput*> inputs;
  for (const CleanInput& in : task.segments) {
    if (in.base < result.end_offset) inputs.push_back(&in);
  }
  const auto groups =
      group_segments(inputs, uint64_t(task.config.segment_bytes),
                     uint64_t(task.config.segment_index_bytes), task.first_uncleanable);
  CleanerTxns txns(task.aborted);
  BatchFilter filter(task, map, txns, now_ms, result.stats);
  for (const auto& group : groups) {
    auto cleaned = clean_group(task, group, filter, config, now_ms, stop);
    if (!cleaned) return fail(cleaned.error());  // result's destructor removes earlier groups
    result.stats.segments_read += group.size();
    ++result.stats.segments_written;
    result.groups.push_back(std::move(*cleaned));
  }
  return result;
}

}  // namespace strata::storage

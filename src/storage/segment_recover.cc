// Segment recovery and timestamp search: the two paths that read every batch's bytes.
#include <vector>

#include "record/batch_view.h"
#include "record/legacy.h"
#include "record/validate.h"
#include "storage/segment.h"
#include "storage/segment_scan.h"

namespace strata::storage {

using namespace strata::record;

namespace {

struct EntryCheck {
  bool ok = false;
  Offset first, last;
  int64_t max_timestamp = -1;
  const char* why = "";
};

// Validation of one entry as recovery needs it, as Kafka's LogSegment.recover does:
// framing, header sanity and the checksum. The records were validated when produced and
// the CRC proves these are those bytes; decoding every record again measured 2-4x
// slower on small records (docs/performance.md) for no extra safety.
EntryCheck check_entry(Bytes entry) {
  EntryCheck c;
  auto reject = [&c](const char* why) {
    c.why = why;
    return c;
  };
  const int8_t magic = int8_t(entry[kMagicPos]);
  if (magic == kMagicV2) {
    auto framed = frame_batch(entry);
    if (!framed || framed->size() != entry.size()) return reject("bad batch framing");
    if (framed->crc() != framed->computed_crc()) return reject("CRC mismatch");
    if (framed->last_offset_delta() < 0 || framed->record_count() < 0) {
      return reject("bad header");
    }
    if (framed->codec_bits() > kCodecMax) return reject("unknown codec");
    c.first = framed->base_offset();
    c.last = framed->last_offset();
    c.max_timestamp = framed->max_timestamp();
  } else {
    auto m = parse_legacy_entry(entry);
    if (!m || !m->crc_valid) return reject("bad legacy message");
    c.first = c.last = m->offset;
    c.max_timestamp = m->timestamp.value();
  }
  c.ok = true;
  return c;
}

}  // namespace

Result<RecoveryStats, StorageError> Segment::recover(const LogConfig& config,
                                                    const EntryVisitor& visit) {
  if (auto w = make_indexes_writable(config); !w) return fail(w.error());
  needs_recovery_ = false;
  offsets_.clear();
  times_.clear();
  if (auto r = txns_->reset(); !r) return fail(r.error());
  max_timestamp_ = -1;
  offset_of_max_timestamp_ = base_;
  next_offset_ = base_;
  bytes_since_index_entry_ = 0;
  rolling_timestamp_ = -1;

  RecoveryStats stats;
  const uint64_t max_entry = uint64_t(config.max_message_bytes) + 4096 + kLogOverhead;
  SequentialReader reader(*log_, size_, std::max<uint64_t>(max_entry, 16u << 20));
  for (;;) {
    const uint64_t position = reader.position();
    Bytes entry;
    auto more = reader.next(entry);
    if (!more) return fail(more.error());
    if (!*more) {
      if (position < size_) stats.reason = "torn or oversized entry";
      break;
    }
    const EntryCheck c = check_entry(entry);
    if (!c.ok) {
      stats.reason = c.why;
      break;
    }
    if (c.first < next_offset_ || c.last < c.first ||
        c.last.value() - base_.value() > INT32_MAX) {
      stats.reason = "offset out of order or out of range";
      break;
    }
    const BatchInfo info{c.last, c.max_timestamp, uint32_t(entry.size())};
    if (rolling_timestamp_ < 0 && position == 0) rolling_timestamp_ = c.max_timestamp;
    index_batch(info, position, &config);
    if (visit) visit(entry);
    next_offset_ = Offset(c.last.value() + 1);
    stats.valid_bytes = position + entry.size();
    ++stats.batches;
  }
  stats.truncated_bytes = size_ - stats.valid_bytes;
  if (stats.truncated_bytes > 0) {
    if (auto t = log_->truncate(stats.valid_bytes); !t) return fail(t.error());
    size_ = stats.valid_bytes;
  }
  return stats;
}

Result<void, StorageError> Segment::scan(Offset from, uint64_t max_entry_bytes,
                                         const EntryVisitor& visit) const {
  auto first = find_batch(from);
  if (!first) return fail(first.error());
  if (!*first) return {};
  SequentialReader reader(*log_, size_, max_entry_bytes, (*first)->position);
  for (Bytes entry;;) {
    auto more = reader.next(entry);
    if (!more) return fail(more.error());
    if (!*more) return {};
    visit(entry);
  }
}

Result<std::optional<std::pair<Offset, int64_t>>, StorageError> Segment::find_by_timestamp(
    int64_t ts, Offset start_offset) const {
  using Found = std::optional<std::pair<Offset, int64_t>>;
  const TimestampOffset hint = times_.lookup(ts);
  uint64_t position = offsets_.lookup(std::max(hint.offset, start_offset)).position;
  std::vector<uint8_t> batch, scratch;
  while (position < size_) {
    auto loc = read_location(*log_, position, size_);
    if (!loc) return fail(loc.error());
    if (!*loc) break;
    position += (*loc)->size;
    if ((*loc)->max_timestamp < ts || (*loc)->last_offset < start_offset) continue;
    batch.resize((*loc)->size);
    auto got = log_->pread_some(batch, (*loc)->position);
    if (!got) return fail(got.error());
    auto view = frame_batch(batch);
    if (!view) {  // a legacy entry: one offset, one timestamp
      if ((*loc)->max_timestamp >= ts) return Found{{(*loc)->last_offset, (*loc)->max_timestamp}};
      continue;
    }
    auto records = uncompressed_records(*view, scratch);
    if (!records) continue;
    RecordCursor cursor(*records, view->record_count());
    RecordView r;
    while (true) {
      auto more = cursor.next(r);
      if (!more || !*more) break;
      const int64_t t = view->timestamp_of(r);
      const Offset o = view->offset_of(r);
      if (t >= ts && o >= start_offset) return Found{{o, t}};
    }
  }
  return Found{};
}

}  // namespace strata::storage

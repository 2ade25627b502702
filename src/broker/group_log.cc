#include "broker/group_log.h"

#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/errors.h"
#include "record/batch_builder.h"
#include "record/batch_view.h"
#include "record/validate.h"

namespace strata::broker {

namespace {

storage::TopicPartition offsets_partition(int32_t p) {
  return {group::kOffsetsTopic, PartitionId(p)};
}

}  // namespace

void GroupLog::append(int32_t partition, std::vector<Record> records,
                      std::function<void(int16_t)> done) {
  const storage::TopicPartition tp = offsets_partition(partition);
  auto ex = broker_.shard(broker_.owner_shard(tp)).get_executor();
  auto answer = [ex, done](int16_t error) { asio::post(ex, [done, error] { done(error); }); };
  storage::Log* log = broker_.logs().get(tp);
  if (log == nullptr) return answer(kafka_error::kUnknownTopicOrPartition);
  const int64_t now = now_ms();
  record::BatchBuilder builder(record::BatchOptions{});
  for (const Record& r : records) {
    std::optional<Bytes> value;
    if (r.value) value = Bytes(*r.value);
    builder.append(now, Bytes(r.key), value);
  }
  auto batch = builder.finish();
  if (!batch) return answer(kafka_error::kUnknownServerError);
  if (batch->size() > size_t(log->config().max_message_bytes)) {
    return answer(kafka_error::kRecordListTooLarge);
  }
  auto appended = log->append(MutableBytes(*batch), LeaderEpoch(0), now);
  if (!appended) {
    spdlog::error("append to {}-{} failed: {}", tp.topic, partition, appended.error().message());
    return answer(kafka_error_of(appended.error()));
  }
  broker_.fetch_waiters().notify(tp);
  log->sync([answer](Result<void, storage::StorageError> r) {
    answer(r.ok() ? kafka_error::kNone : kafka_error::kKafkaStorageError);
  });
}

void load_groups(Broker& broker, group::GroupCoordinator& coordinator) {
  std::vector<uint8_t> buffer, scratch;
  for (int32_t p = 0; p < coordinator.partitions(); ++p) {
    storage::Log* log = broker.logs().get(offsets_partition(p));
    if (log == nullptr) continue;
    Offset next = log->log_start_offset();
    while (next < log->log_end_offset()) {
      auto region = log->read(next, 1 << 20, true, std::nullopt);
      if (!region || !*region || (*region)->size == 0) {
        spdlog::error("{}-{}: cannot read at offset {}; later records are not loaded",
                      group::kOffsetsTopic, p, next.value());
        break;
      }
      buffer.resize((*region)->size);
      auto got = (*region)->file->pread_some(MutableBytes(buffer), (*region)->position);
      if (!got || *got == 0) break;
      buffer.resize(*got);
      Bytes in(buffer);
      const Offset before = next;
      while (!in.empty()) {
        auto batch = record::frame_batch(in);
        if (!batch) break;
        in = in.subspan(batch->size());
        next = Offset(batch->last_offset().value() + 1);
        if (batch->is_control()) continue;
        auto records = record::uncompressed_records(*batch, scratch);
        if (!records) continue;
        record::RecordCursor cursor(*records, batch->record_count());
        record::RecordView r;
        while (true) {
          auto more = cursor.next(r);
          if (!more || !*more) break;
          if (r.key) coordinator.replay(p, *r.key, r.value);
        }
      }
      if (next == before) {
        spdlog::error("{}-{}: unreadable batch at offset {}; later records are not loaded",
                      group::kOffsetsTopic, p, next.value());
        break;
      }
    }
    coordinator.finish_load(p);
  }
}

}  // namespace strata::broker

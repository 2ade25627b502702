#include "broker/internal_log.h"

#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/errors.h"
#include "record/validate.h"

namespace strata::broker {

LeaderCheck check_leading(const Broker& broker, const storage::TopicPartition& tp, const storage::Log& log) {
  LeaderCheck c;
  c.snapshot = broker.metadata();
  c.meta = c.snapshot->partition(tp.topic, tp.partition.value());
  if (broker.in_cluster() && (c.meta == nullptr || c.meta->leader != broker.config().node_id)) {
    c.error = KafkaError::kNotLeaderOrFollower;
  } else if (c.meta != nullptr && Replication::below_min_isr(*c.meta, log)) {
    c.error = KafkaError::kNotEnoughReplicas;
  }
  return c;
}

void append_internal(Broker& broker, const storage::TopicPartition& tp,
                     const std::vector<InternalRecord>& records, const record::BatchOptions& options,
                     std::function<void(KafkaError)> done) {
  auto ex = broker.shard(broker.owner_shard(tp)).get_executor();
  auto answer = [ex, done](KafkaError error) { asio::post(ex, [done, error] { done(error); }); };
  storage::Log* log = broker.logs().get(tp);
  if (log == nullptr) return answer(KafkaError::kUnknownTopicOrPartition);
  // A coordinator that lost the leadership (its unload not yet run) must not append to
  // what is now a follower's log.
  const LeaderCheck leading = check_leading(broker, tp, *log);
  if (leading.error != KafkaError::kNone) return answer(leading.error);
  const PartitionMeta* meta = leading.meta;
  const int64_t now = now_ms();
  record::BatchBuilder builder(options);
  for (const InternalRecord& r : records) {
    std::optional<Bytes> value;
    if (r.value) value = Bytes(*r.value);
    builder.append(now, Bytes(r.key), value);
  }
  auto batch = builder.finish();
  if (!batch) return answer(KafkaError::kUnknownServerError);
  if (batch->size() > size_t(log->config().max_message_bytes)) {
    return answer(KafkaError::kRecordListTooLarge);
  }
  auto appended = log->append(MutableBytes(*batch), stamped_epoch(meta), now,
                              storage::AppendOrigin::kCoordinator);
  if (!appended) {
    spdlog::error("append to {}-{} failed: {}", tp.topic, tp.partition.value(),
                  appended.error().message());
    return answer(kafka_error_of(appended.error()));
  }
  broker.fetch_waiters().notify(tp);
  broker.after_leader_append(tp, *log);
  await_committed(broker, tp, *log, meta, appended->last_offset.value() + 1, answer);
}

void await_committed(Broker& broker, const storage::TopicPartition& tp, storage::Log& log,
                     const PartitionMeta* meta, int64_t end, std::function<void(KafkaError)> done) {
  const bool replicated = meta != nullptr && Replication::replicated(*meta);
  const int64_t deadline = now_ms() + broker.config().request_timeout_ms;
  auto shard = broker.shard(broker.owner_shard(tp)).get_executor();
  log.sync([&broker, tp, &log, done, replicated, end, deadline, shard](Result<void, storage::StorageError> r) {
    if (!r.ok()) return done(KafkaError::kKafkaStorageError);
    if (!replicated) return done(KafkaError::kNone);
    // The high watermark is the owner shard's to read (the sync thread runs this).
    asio::post(shard, [&broker, tp, &log, done, end, deadline] {
      broker.replication().wait_for_high_watermark(tp, end, deadline, log, [done](int16_t error) {
        done(static_cast<KafkaError>(error));
      });
    });
  });
}

void replay_internal(Broker& broker, const storage::TopicPartition& tp,
                     const std::function<void(const record::BatchView&)>& visit) {
  storage::Log* log = broker.logs().get(tp);
  if (log == nullptr) return;
  std::vector<uint8_t> buffer;
  Offset next = log->log_start_offset();
  while (next < log->log_end_offset()) {
    auto region = log->read(next, 1 << 20, true, std::nullopt);
    if (!region || !*region || (*region)->size == 0) {
      spdlog::error("{}-{}: cannot read at offset {}; later records are not loaded", tp.topic,
                    tp.partition.value(), next.value());
      return;
    }
    buffer.resize((*region)->size);
    auto got = (*region)->file->pread_some(MutableBytes(buffer), (*region)->position);
    if (!got || *got == 0) return;
    buffer.resize(*got);
    Bytes in(buffer);
    const Offset before = next;
    while (!in.empty()) {
      auto batch = record::frame_batch(in);
      if (!batch) break;
      in = in.subspan(batch->size());
      next = Offset(batch->last_offset().value() + 1);
      visit(*batch);
    }
    if (next == before) {
      spdlog::error("{}-{}: unreadable batch at offset {}; later records are not loaded",
                    tp.topic, tp.partition.value(), next.value());
      return;
    }
  }
}

void for_each_record(const record::BatchView& batch, std::vector<uint8_t>& scratch,
                     const std::function<void(Bytes key, std::optional<Bytes> value)>& visit) {
  auto records = record::uncompressed_records(batch, scratch);
  if (!records) return;
  record::RecordCursor cursor(*records, batch.record_count());
  record::RecordView r;
  while (true) {
    auto more = cursor.next(r);
    if (!more || !*more) break;
    if (r.key) visit(*r.key, r.value);
  }
}

}  // namespace strata::broker

// Produce: each partition's batch is validated once (framing, magic 2, CRC, records),
// its offsets are stamped in place in the request buffer and it is appended as is,
// whole or not at all. acks=-1 waits for fdatasync (group commit) unless the topic uses
// Kafka's flush.messages/flush.ms policy; acks=0 gets no response.
// Errors: INVALID_REQUIRED_ACKS, UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION,
// CORRUPT_MESSAGE / INVALID_RECORD (record::kafka_error_code), MESSAGE_TOO_LARGE,
// KAFKA_STORAGE_ERROR; INVALID_TOPIC_EXCEPTION for the internal topics; INVALID_RECORD
// for a record without a key on a compacted topic (cleanup.policy with compact);
// for idempotent batches (storage/producer_state.h) OUT_OF_ORDER_SEQUENCE_NUMBER and
// INVALID_PRODUCER_EPOCH, and a retried duplicate answers its original offsets.
#include <spdlog/spdlog.h>

#include "broker/durability.h"
#include "broker/errors.h"
#include "broker/handlers/handlers.h"
#include "broker/partitions.h"
#include "broker/recompress.h"
#include "record/validate.h"

namespace strata::broker {

using protocol::ProduceRequest;
using protocol::ProduceResponse;

namespace {

struct Appended {
  int16_t error = 0;
  int64_t base_offset = -1;
  int64_t log_append_time = -1;
  int64_t log_start_offset = -1;
  std::optional<SyncTarget> sync;  // set when the ack must wait for fdatasync
};

// The checks a producer's records must pass before anything is written.
int16_t validate(MutableBytes records, const storage::LogConfig& config, std::string& why) {
  // A v0/v1 entry is intact bytes in a format produce does not take: INVALID_RECORD, as
  // Kafka's ProduceRequest.validateRecords answers (CORRUPT_MESSAGE is retriable, so a
  // legacy producer would retry forever). Unknown magics stay CORRUPT_MESSAGE below.
  if (records.size() > record::kMagicPos) {
    const int8_t magic = int8_t(records[record::kMagicPos]);
    if (magic == record::kMagicV0 || magic == record::kMagicV1) {
      why = "produce requests may carry only magic 2 record batches";
      return kafka_error::kInvalidRecord;
    }
  }
  std::vector<uint8_t> scratch;
  record::ValidateOptions options;
  options.require_keys = config.compact();
  auto batch = record::validate_batch(records, options, scratch);
  if (!batch) {
    why = record::to_string(batch.error());
    return record::kafka_error_code(batch.error());
  }
  if (batch->size() != records.size()) {
    why = "produce requests must carry exactly one record batch per partition";
    return kafka_error::kInvalidRecord;
  }
  // The whole batch, offset and length fields included, as Kafka's sizeInBytes.
  if (batch->size() > size_t(config.max_message_bytes)) {
    why = "batch larger than max.message.bytes";
    return kafka_error::kMessageTooLarge;
  }
  if (batch->is_control()) {
    why = "clients may not write control batches";
    return kafka_error::kInvalidRecord;
  }
  // Kafka's LogValidator: an idempotent batch must carry a sequence.
  if (batch->producer_id().value() >= 0 && batch->base_sequence().value() < 0) {
    why = "a batch with a producer id needs a base sequence";
    return kafka_error::kInvalidRecord;
  }
  return kafka_error::kNone;
}

asio::awaitable<Appended> produce_partition(Broker& broker, const std::string& topic,
                                            ProduceRequest::PartitionData& p, int16_t acks) {
  Appended a;
  if (is_internal_topic(topic)) {
    // Internal: only the group coordinator writes it (Kafka: "Cannot append to
    // internal topic").
    a.error = kafka_error::kInvalidTopic;
    co_return a;
  }
  Lookup found = find_partition(broker, topic, p.index, true);
  if (!found.ref) {
    a.error = found.error;
    co_return a;
  }
  PartitionRef ref = *found.ref;
  if (!p.records.data || p.records.data->empty()) {
    a.error = kafka_error::kInvalidRecord;
    co_return a;
  }
  const storage::LogConfig& config = ref.log->config();
  std::string why;
  if (int16_t e = validate(*p.records.data, config, why); e != 0) {
    spdlog::debug("rejected produce to {}-{}: {}", topic, p.index, why);
    a.error = e;
    co_return a;
  }
  MutableBytes batch = *p.records.data;
  // compression.type other than "producer": rebuild the batch with the topic's codec.
  std::vector<uint8_t> rebuilt;
  if (auto codec = target_codec(config.compression_type)) {
    auto re = recompress(record::BatchView(batch), *codec);
    if (!re) {
      a.error = record::kafka_error_code(re.error());
      co_return a;
    }
    if (*re) {
      rebuilt = std::move(**re);
      batch = MutableBytes(rebuilt);
    }
  }
  auto result = co_await broker.on_shard(ref.shard, [log = ref.log, batch] {
    return log->append(batch, LeaderEpoch(0), now_ms());
  });
  if (!result) {
    spdlog::warn("append to {}-{} failed: {}", topic, p.index, result.error().message());
    a.error = kafka_error_of(result.error());
    co_return a;
  }
  broker.fetch_waiters().notify(ref.tp);
  a.base_offset = result->first_offset.value();
  a.log_append_time = result->log_append_time;
  a.log_start_offset = ref.log->log_start_offset().value();
  // Durable by default for acks=all; Kafka's flush policy when the operator set one.
  const bool kafka_flush_policy = config.flush_messages != INT64_MAX || config.flush_ms != INT64_MAX;
  if (acks == -1 && !kafka_flush_policy) a.sync = SyncTarget{ref.shard, ref.log};
  co_return a;
}

}  // namespace

asio::awaitable<ProduceResponse> handle_produce(Broker& broker, RequestContext&,
                                                ProduceRequest& request) {
  ProduceResponse r;
  const bool acks_ok = request.acks == 0 || request.acks == 1 || request.acks == -1;
  // Append everything first, then wait once for all the fdatasyncs together.
  std::vector<SyncTarget> syncs;
  for (auto& topic : request.topic_data) {
    ProduceResponse::TopicResponse tr;
    tr.name = topic.name;
    for (auto& p : topic.partition_data) {
      ProduceResponse::PartitionResponse pr;
      pr.index = p.index;
      if (!acks_ok) {
        pr.error_code = kafka_error::kInvalidRequiredAcks;
      } else {
        Appended a = co_await produce_partition(broker, topic.name, p, request.acks);
        pr.error_code = a.error;
        pr.base_offset = a.base_offset;
        pr.log_append_time_ms = a.log_append_time;
        pr.log_start_offset = a.log_start_offset;
        if (a.sync) syncs.push_back(*a.sync);
      }
      tr.partition_responses.push_back(std::move(pr));
    }
    r.responses.push_back(std::move(tr));
  }
  if (!co_await wait_durable(broker, std::move(syncs))) {
    // Which partition failed is not known: every durable one reports the storage error.
    for (auto& tr : r.responses) {
      for (auto& pr : tr.partition_responses) {
        if (pr.error_code == 0 && request.acks == -1) pr.error_code = kafka_error::kKafkaStorageError;
      }
    }
  }
  co_return r;
}

}  // namespace strata::broker

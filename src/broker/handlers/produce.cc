// Produce: each partition's batch is validated once (framing, magic 2, CRC, records),
// its offsets are stamped in place in the request buffer and it is appended as is,
// whole or not at all. acks=-1 waits for fdatasync (group commit) unless the topic uses
// Kafka's flush.messages/flush.ms policy, and on a replicated partition for its high
// watermark; acks=0 gets no response.
// Errors: INVALID_REQUIRED_ACKS, UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION,
// CORRUPT_MESSAGE / INVALID_RECORD (record::kafka_error_code), MESSAGE_TOO_LARGE,
// KAFKA_STORAGE_ERROR; NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND and
// REQUEST_TIMED_OUT (replicated, acks=-1); INVALID_TOPIC_EXCEPTION for the internal topics; INVALID_RECORD
// for a record without a key on a compacted topic (cleanup.policy with compact);
// for idempotent batches (storage/producer_state.h) OUT_OF_ORDER_SEQUENCE_NUMBER and
// INVALID_PRODUCER_EPOCH, and a retried duplicate answers its original offsets.
#include <spdlog/spdlog.h>

#include "broker/durability.h"
#include "broker/errors.h"
#include "broker/handlers/authorize.h"
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

// One partition of the request: where it goes, what to append, and the answer.
struct Job {
  PartitionRef ref;
  MutableBytes batch;            // the request's bytes, or `rebuilt`
  std::vector<uint8_t> rebuilt;  // compression.type other than "producer"
  Appended out;
};

// Checks (and, for compression.type, rebuilds) one partition's batch on the connection's
// shard, with the topic's settings from the request's snapshot.
void prepare(Job& job, ProduceRequest::PartitionData& p) {
  if (job.ref.error != 0) {
    job.out.error = job.ref.error;
    return;
  }
  if (!p.records.data || p.records.data->empty()) {
    job.out.error = kafka_error::kInvalidRecord;
    return;
  }
  const storage::LogConfig& config = job.ref.meta->log_config;
  std::string why;
  if (int16_t e = validate(*p.records.data, config, why); e != 0) {
    spdlog::debug("rejected produce to {}-{}: {}", job.ref.tp.topic, p.index, why);
    job.out.error = e;
    return;
  }
  job.batch = *p.records.data;
  if (auto codec = target_codec(config.compression_type)) {
    auto re = recompress(record::BatchView(job.batch), *codec);
    if (!re) {
      job.out.error = record::kafka_error_code(re.error());
    } else if (*re) {
      job.rebuilt = std::move(**re);
      job.batch = MutableBytes(job.rebuilt);
    }
  }
}

// On the partition's owner shard: the append, and the sync request when the answer
// must wait for the disk (acks=-1, unless Kafka's flush policy is set for the topic).
// A replicated partition (broker/replication.h) also waits, for acks=-1, until its high
// watermark passes the batch (at most the request's timeout), and refuses acks=-1 with
// NOT_ENOUGH_REPLICAS before appending while its ISR is below min.insync.replicas.
void append_on_owner(Broker& broker, Job& job, storage::Log* log, int16_t acks, int32_t timeout_ms,
                     DurableWait& durable, size_t index) {
  if (log == nullptr) {
    job.out.error = kafka_error::kUnknownTopicOrPartition;  // deleted or re-created meanwhile
    return;
  }
  const PartitionMeta& meta = job.ref.meta->partitions[size_t(job.ref.tp.partition.value())];
  // The request's snapshot may be older than the shard's view: leadership lost (or
  // moved away and back, a new epoch) since then is NOT_LEADER_OR_FOLLOWER, not an
  // append into a follower's log stamped with a stale epoch.
  if (!broker.leads(job.ref.tp, meta.leader_epoch)) {
    job.out.error = kafka_error::kNotLeaderOrFollower;
    return;
  }
  const bool replicated = Replication::replicated(meta);
  if (acks == -1 && Replication::below_min_isr(meta, *log)) {
    job.out.error = kafka_error::kNotEnoughReplicas;
    return;
  }
  if (replicated) log->track_high_watermark();  // before the append: it is not committed yet
  auto result = log->append(job.batch, stamped_epoch(&meta), now_ms());
  if (!result) {
    spdlog::warn("append to {}-{} failed: {}", job.ref.tp.topic, job.ref.tp.partition.value(),
                 result.error().message());
    job.out.error = code_of(kafka_error_of(result.error()));
    return;
  }
  broker.fetch_waiters().notify(job.ref.tp);
  job.out.base_offset = result->first_offset.value();
  job.out.log_append_time = result->log_append_time;
  job.out.log_start_offset = log->log_start_offset().value();
  const storage::LogConfig& config = log->config();
  const bool kafka_flush_policy = config.flush_messages != INT64_MAX || config.flush_ms != INT64_MAX;
  if (acks == -1 && !kafka_flush_policy) durable.sync(*log, index);
  if (!replicated) return;
  const int64_t now = now_ms();
  if (broker.replication().after_leader_append(job.ref.tp, meta, *log, now)) {
    broker.fetch_waiters().notify(job.ref.tp);
  }
  if (acks == -1) {
    broker.replication().wait_for_high_watermark(job.ref.tp, result->last_offset.value() + 1,
                                                 now + std::max(timeout_ms, 0), *log, durable.hold(index));
  }
}

// Bytes of the request's batches whose validation decompresses (a compressed batch) or
// rebuilds them (a topic's compression.type): the work that may be worth moving off the
// connection's shard.
int64_t heavy_bytes(const std::vector<Job>& jobs, ProduceRequest& request) {
  int64_t bytes = 0;
  size_t at = 0;
  for (auto& topic : request.topic_data) {
    for (auto& p : topic.partition_data) {
      const Job& job = jobs[at++];
      if (job.ref.error != 0 || !p.records.data) continue;
      const MutableBytes records = *p.records.data;
      const bool compressed = records.size() > record::kAttributesPos + 1 &&
                              (records[record::kAttributesPos + 1] & 0x07) != 0;
      if (compressed || target_codec(job.ref.meta->log_config.compression_type)) {
        bytes += int64_t(records.size());
      }
    }
  }
  return bytes;
}

void prepare_all(std::vector<Job>& jobs, ProduceRequest& request) {
  size_t at = 0;
  for (auto& topic : request.topic_data) {
    for (auto& p : topic.partition_data) prepare(jobs[at++], p);
  }
}

}  // namespace

// Kafka's per-connection order holds because every append is posted (one hop per owner
// shard) before the turn passes to the connection's next request; the wait for
// fdatasync comes after, so pipelined durable produces still share fdatasync rounds.
// Kafka's BrokerTopicMetrics for one partition's answer, as Kafka marks them per
// partition: a produce request, and its records and bytes in or a failure.
void account(Broker& broker, TopicTraffic& traffic, const Job& job, int16_t error) {
  TopicTraffic& all = broker.traffic().all();
  count(traffic, all, &TopicTraffic::produce_requests, 1);
  if (error != 0) {
    count(traffic, all, &TopicTraffic::failed_produce, 1);
    return;
  }
  const record::BatchView batch(job.batch);
  count(traffic, all, &TopicTraffic::messages_in, uint64_t(std::max(batch.record_count(), 0)));
  count(traffic, all, &TopicTraffic::bytes_in, job.batch.size());
}

asio::awaitable<ProduceResponse> handle_produce(Broker& broker, RequestContext& ctx,
                                                ProduceRequest& request) {
  ProduceResponse r;
  const bool acks_ok = request.acks == 0 || request.acks == 1 || request.acks == -1;
  // Topics first (auto-creation refreshes ctx.metadata), then every partition against
  // the one snapshot the request keeps.
  std::vector<int16_t> topic_errors;
  // Authorization (Kafka's): WRITE on the transactional id of transactional records, else
  // TRANSACTIONAL_ID_AUTHORIZATION_FAILED for every partition; WRITE on each topic, else
  // TOPIC_AUTHORIZATION_FAILED for its partitions.
  const bool txn_denied = request.transactional_id &&
                          !authorized(broker, ctx, AclOperation::kWrite, ResourceType::kTransactionalId,
                                      *request.transactional_id);
  for (auto& topic : request.topic_data) {
    int16_t error = 0;
    if (!acks_ok) {
      error = kafka_error::kInvalidRequiredAcks;
    } else if (txn_denied) {
      error = kafka_error::kTransactionalIdAuthorizationFailed;
    } else if (!authorized(broker, ctx, AclOperation::kWrite, ResourceType::kTopic, topic.name)) {
      error = kafka_error::kTopicAuthorizationFailed;
    } else if (is_internal_topic(topic.name)) {
      // Only the coordinators write internal topics (Kafka: "Cannot append to internal topic").
      error = kafka_error::kInvalidTopic;
    } else {
      error = co_await auto_create(broker, ctx, topic.name);
    }
    topic_errors.push_back(error);
  }
  std::vector<Job> jobs;
  for (size_t t = 0; t < request.topic_data.size(); ++t) {
    for (auto& p : request.topic_data[t].partition_data) {
      Job job;
      job.ref = resolve_partition(broker, *ctx.metadata, request.topic_data[t].name, p.index);
      if (broker.withdrawing() && job.ref.error == 0) job.ref.error = kafka_error::kNotLeaderOrFollower;
      if (topic_errors[t] != 0) job.ref.error = topic_errors[t];
      jobs.push_back(std::move(job));
    }
  }
  // Big compressed requests are validated on the blocking pool (the turn is still held,
  // so the connection's order is kept), small ones here, where a hop would cost more.
  const int64_t offload_at = broker.config().produce_offload_bytes;
  if (offload_at >= 0 && heavy_bytes(jobs, request) > offload_at) {
    co_await broker.blocking([&jobs, &request] {
      prepare_all(jobs, request);
      return true;
    });
  } else {
    prepare_all(jobs, request);
  }
  std::vector<PartitionRef> refs;
  refs.reserve(jobs.size());
  for (const Job& j : jobs) {
    refs.push_back(j.ref);
    if (j.out.error != 0) refs.back().error = j.out.error;
  }
  auto durable = std::make_shared<DurableWait>(jobs.size());
  const int16_t acks = request.acks;
  const int32_t timeout_ms = request.timeout_ms;
  ctx.turn.release();  // the appends below are posted before this coroutine suspends
  co_await for_each_log(broker, refs, [&broker, &jobs, acks, timeout_ms, d = durable.get()](size_t i, storage::Log* log) {
    append_on_owner(broker, jobs[i], log, acks, timeout_ms, *d, i);
  });
  co_await durable->wait();
  size_t at = 0;
  for (auto& topic : request.topic_data) {
    ProduceResponse::TopicResponse tr;
    tr.name = topic.name;
    TopicTraffic* traffic = broker.config().traffic_metrics ? &broker.traffic().topic(topic.name) : nullptr;
    for (auto& p : topic.partition_data) {
      const Job& job = jobs[at];
      ProduceResponse::PartitionResponse pr;
      pr.index = p.index;
      pr.error_code = durable->failed(at) ? kafka_error::kKafkaStorageError
                      : durable->error(at) != 0 ? durable->error(at)
                                                : job.out.error;
      if (traffic != nullptr) account(broker, *traffic, job, pr.error_code);
      pr.base_offset = job.out.base_offset;
      pr.log_append_time_ms = job.out.log_append_time;
      pr.log_start_offset = job.out.log_start_offset;
      add_leader_hint(*ctx.metadata, ctx.session().listener->name, job.ref, pr.error_code, pr.current_leader, r.node_endpoints);
      tr.partition_responses.push_back(std::move(pr));
      ++at;
    }
    r.responses.push_back(std::move(tr));
  }
  co_return r;
}

}  // namespace strata::broker

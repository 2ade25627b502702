#include "broker/txn_log.h"

#include <spdlog/spdlog.h>

#include <atomic>

#include "broker/broker.h"
#include "broker/errors.h"
#include "broker/internal_log.h"
#include "group/records.h"

namespace strata::broker {

namespace {

storage::TopicPartition state_partition(int32_t p) {
  return {txn::kTransactionTopic, PartitionId(p)};
}

}  // namespace

void TxnStateLog::append(int32_t partition, std::vector<uint8_t> key,
                         std::optional<std::vector<uint8_t>> value,
                         std::function<void(KafkaError)> done) {
  std::vector<InternalRecord> records;
  records.push_back({std::move(key), std::move(value)});
  append_internal(broker_, state_partition(partition), records, record::BatchOptions{},
                  std::move(done));
}

void write_partition_marker(Broker& broker, const storage::TopicPartition& tp,
                            const txn::MarkerRequest& m, std::function<void(KafkaError)> done) {
  storage::Log* log = broker.logs().get(tp);
  if (log == nullptr) return done(KafkaError::kUnknownTopicOrPartition);
  storage::TxnMarker marker{ProducerId(m.producer_id), ProducerEpoch(m.producer_epoch),
                            m.coordinator_epoch, m.commit};
  auto appended = log->append_marker(marker, LeaderEpoch(0), now_ms());
  if (!appended) {
    spdlog::warn("marker for producer {} epoch {} on {}-{}: {}", m.producer_id, m.producer_epoch,
                 tp.topic, tp.partition.value(), appended.error().message());
    return done(kafka_error_of(appended.error()));
  }
  broker.fetch_waiters().notify(tp);
  // A __consumer_offsets partition's group offsets follow the marker once it is durable
  // (on the partition's shard, where the groups live).
  const bool offsets = tp.topic == group::kOffsetsTopic;
  const int32_t partition = tp.partition.value();
  auto shard = broker.shard(broker.owner_shard(tp)).get_executor();
  log->sync([&broker, done, offsets, partition, shard, pid = m.producer_id,
             commit = m.commit](Result<void, storage::StorageError> r) {
    if (!r.ok()) return done(KafkaError::kKafkaStorageError);
    if (!offsets) return done(KafkaError::kNone);
    asio::post(shard, [&broker, done, partition, pid, commit] {
      broker.groups().complete_txn(partition, pid, commit);
      done(KafkaError::kNone);
    });
  });
}

// One marker per partition, on each partition's shard; the answer is the first error
// that calls for a retry. Partitions that are gone, and markers refused because the
// partition already knows a newer producer epoch (the transaction was ended by a
// newer incarnation), count as written, as Kafka's marker channel drops them.
void BrokerMarkers::write(int32_t txn_partition, txn::MarkerRequest request,
                          std::function<void(KafkaError)> done) {
  struct Round {
    std::atomic<size_t> left{0};
    std::atomic<KafkaError> error{KafkaError::kNone};
    std::function<void(KafkaError)> done;
    asio::any_io_executor executor;
  };
  auto round = std::make_shared<Round>();
  round->done = std::move(done);
  round->executor = broker_.shard(broker_.owner_shard(state_partition(txn_partition))).get_executor();
  auto marker = std::make_shared<const txn::MarkerRequest>(std::move(request));
  std::vector<storage::TopicPartition> tps;
  for (const auto& t : marker->partitions) {
    for (int32_t p : t.partitions) tps.push_back({t.topic, PartitionId(p)});
  }
  round->left = tps.size();
  auto finish_one = [round](KafkaError error) {
    const bool dropped = error == KafkaError::kUnknownTopicOrPartition ||
                         error == KafkaError::kInvalidProducerEpoch ||
                         error == KafkaError::kTransactionCoordinatorFenced;
    if (error != KafkaError::kNone && !dropped) {
      KafkaError none = KafkaError::kNone;
      round->error.compare_exchange_strong(none, error);
    }
    if (round->left.fetch_sub(1) == 1) {
      asio::post(round->executor, [round] { round->done(round->error.load()); });
    }
  };
  for (const auto& tp : tps) {
    asio::post(broker_.shard(broker_.owner_shard(tp)), [this, tp, marker, finish_one] {
      write_partition_marker(broker_, tp, *marker, finish_one);
    });
  }
}

void load_txns(Broker& broker, txn::TxnCoordinator& coordinator) {
  std::vector<uint8_t> scratch;
  for (int32_t p = 0; p < coordinator.partitions(); ++p) {
    replay_internal(broker, state_partition(p), [&](const record::BatchView& batch) {
      if (batch.is_control()) return;
      for_each_record(batch, scratch, [&](Bytes key, std::optional<Bytes> value) {
        coordinator.replay(p, key, value);
      });
    });
  }
}

}  // namespace strata::broker

#include "broker/txn_log.h"

#include <spdlog/spdlog.h>

#include <atomic>

#include "broker/broker.h"
#include "broker/errors.h"
#include "broker/internal_log.h"
#include "broker/replication.h"
#include "client/peer_pool.h"
#include "group/records.h"
#include "protocol/apis/write_txn_markers.h"

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
  // A WriteTxnMarkers request writes its partitions one after another, each waiting for
  // its ISR, so its own snapshot may be long stale: a marker written by a broker that no
  // longer leads the partition would sit in a follower's log under the new leader's
  // epoch, a history the leader does not have (the follower then never catches up).
  const LeaderCheck leading = check_leading(broker, tp, *log);
  if (leading.error != KafkaError::kNone) return done(leading.error);
  const PartitionMeta* meta = leading.meta;
  storage::TxnMarker marker{ProducerId(m.producer_id), ProducerEpoch(m.producer_epoch),
                            m.coordinator_epoch, m.commit};
  auto appended = log->append_marker(marker, stamped_epoch(meta), now_ms());
  if (!appended) {
    spdlog::warn("marker for producer {} epoch {} on {}-{}: {}", m.producer_id, m.producer_epoch,
                 tp.topic, tp.partition.value(), appended.error().message());
    return done(kafka_error_of(appended.error()));
  }
  broker.fetch_waiters().notify(tp);
  broker.after_leader_append(tp, *log);
  // A __consumer_offsets partition's group offsets follow the marker once it is
  // committed (on the partition's shard, where the groups live).
  const bool offsets = tp.topic == group::kOffsetsTopic;
  const int32_t partition = tp.partition.value();
  auto shard = broker.shard(broker.owner_shard(tp)).get_executor();
  await_committed(broker, tp, *log, meta, appended->last_offset.value() + 1,
                  [&broker, done, offsets, partition, shard, pid = m.producer_id, commit = m.commit](KafkaError e) {
                    if (e != KafkaError::kNone || !offsets) return done(e);
                    asio::post(shard, [&broker, done, partition, pid, commit] {
                      broker.groups().complete_txn(partition, pid, commit);
                      done(KafkaError::kNone);
                    });
                  });
}

namespace {

// One write of markers to many partitions: counts them down and answers once, on the
// __transaction_state partition's shard, with the first error that calls for a retry.
// Partitions that are gone, and markers refused because the partition already knows a
// newer producer epoch (the transaction was ended by a newer incarnation), count as
// written, as Kafka's marker channel drops them.
struct MarkerRound : std::enable_shared_from_this<MarkerRound> {
  std::atomic<size_t> left{0};
  std::atomic<KafkaError> error{KafkaError::kNone};
  std::function<void(KafkaError)> done;
  asio::any_io_executor executor;

  void finish_one(KafkaError e) {
    const bool dropped = e == KafkaError::kUnknownTopicOrPartition ||
                         e == KafkaError::kInvalidProducerEpoch ||
                         e == KafkaError::kTransactionCoordinatorFenced;
    if (e != KafkaError::kNone && !dropped) {
      KafkaError none = KafkaError::kNone;
      error.compare_exchange_strong(none, e);
    }
    if (left.fetch_sub(1) == 1) {
      asio::post(executor, [round = shared_from_this()] { round->done(round->error.load()); });
    }
  }
};

// The leader of `tp` in `snapshot` (-1: none known); a topic the snapshot does not know
// is written locally, where it answers UNKNOWN_TOPIC_OR_PARTITION (dropped).
int32_t leader_of(const Broker& broker, const MetadataSnapshot& snapshot, const storage::TopicPartition& tp) {
  const TopicMeta* t = snapshot.topic(tp.topic);
  if (!broker.in_cluster() || t == nullptr || tp.partition.value() >= t->partition_count()) {
    return broker.config().node_id;
  }
  return snapshot.leader(tp.topic, tp.partition.value());
}

// WriteTxnMarkers for `tps`, all led by `leader`, sent through the inter-broker channel;
// each partition's answer (or the failure of the whole request) counts down `round`.
void send_remote(Broker& broker, const BrokerMeta& leader, const std::vector<storage::TopicPartition>& tps,
                 const txn::MarkerRequest& m, const std::shared_ptr<MarkerRound>& round) {
  protocol::WriteTxnMarkersRequest request;
  protocol::WriteTxnMarkersRequest::Marker marker;
  marker.producer_id = m.producer_id;
  marker.producer_epoch = m.producer_epoch;
  marker.transaction_result = m.commit;
  marker.coordinator_epoch = m.coordinator_epoch;
  for (const auto& tp : tps) {
    if (marker.topics.empty() || marker.topics.back().name != tp.topic) marker.topics.push_back({tp.topic, {}});
    marker.topics.back().partition_indexes.push_back(tp.partition.value());
  }
  request.markers.push_back(std::move(marker));
  const size_t count = tps.size();
  const int32_t node = leader.node_id;
  broker.peers().call<protocol::WriteTxnMarkersResponse>(
      {leader.host, uint16_t(leader.port)}, std::move(request),
      [round, count, node](Result<protocol::WriteTxnMarkersResponse, client::ClientError> r) {
        if (!r) {
          spdlog::warn("WriteTxnMarkers to broker {}: {}", node, r.error().message);
          for (size_t i = 0; i < count; ++i) round->finish_one(KafkaError::kNetworkException);
          return;
        }
        size_t answered = 0;
        for (const auto& rm : r->markers) {
          for (const auto& t : rm.topics) {
            for (const auto& p : t.partitions) {
              if (answered++ < count) round->finish_one(KafkaError(p.error_code));
            }
          }
        }
        // A short answer leaves the rest unwritten: retried.
        for (; answered < count; ++answered) round->finish_one(KafkaError::kUnknownServerError);
      });
}

}  // namespace

// One marker per partition: on each local partition's shard, and as one WriteTxnMarkers
// per other broker leading some of the partitions (Kafka's coordinator sends them to
// every leader). A partition without a leader is retried later.
void BrokerMarkers::write(int32_t txn_partition, txn::MarkerRequest request,
                          std::function<void(KafkaError)> done) {
  auto round = std::make_shared<MarkerRound>();
  round->done = std::move(done);
  round->executor = broker_.shard(broker_.owner_shard(state_partition(txn_partition))).get_executor();
  auto marker = std::make_shared<const txn::MarkerRequest>(std::move(request));
  auto snapshot = broker_.metadata();
  const int32_t self = broker_.config().node_id;
  std::vector<storage::TopicPartition> local;
  std::vector<storage::TopicPartition> leaderless;
  std::map<int32_t, std::vector<storage::TopicPartition>> remote;
  size_t total = 0;
  for (const auto& t : marker->partitions) {
    for (int32_t p : t.partitions) {
      storage::TopicPartition tp{t.topic, PartitionId(p)};
      const int32_t leader = leader_of(broker_, *snapshot, tp);
      ++total;
      if (leader == self) {
        local.push_back(std::move(tp));
      } else if (leader < 0 || snapshot->cluster().broker(leader) == nullptr) {
        leaderless.push_back(std::move(tp));
      } else {
        remote[leader].push_back(std::move(tp));
      }
    }
  }
  round->left = total;
  for (const auto& tp : leaderless) {
    spdlog::warn("marker for producer {} on {}-{}: the partition has no leader; retrying later",
                 marker->producer_id, tp.topic, tp.partition.value());
    round->finish_one(KafkaError::kNotLeaderOrFollower);
  }
  for (const auto& [leader, tps] : remote) {
    send_remote(broker_, *snapshot->cluster().broker(leader), tps, *marker, round);
  }
  for (const auto& tp : local) {
    asio::post(broker_.shard(broker_.owner_shard(tp)), [this, tp, marker, round] {
      write_partition_marker(broker_, tp, *marker, [round](KafkaError e) { round->finish_one(e); });
    });
  }
}

void replay_txn_partition(Broker& broker, txn::TxnCoordinator& coordinator, int32_t p) {
  std::vector<uint8_t> scratch;
  replay_internal(broker, state_partition(p), [&](const record::BatchView& batch) {
    if (batch.is_control()) return;
    for_each_record(batch, scratch, [&](Bytes key, std::optional<Bytes> value) {
      coordinator.replay(p, key, value);
    });
  });
}

void load_txns(Broker& broker, txn::TxnCoordinator& coordinator) {
  for (int32_t p = 0; p < coordinator.partitions(); ++p) replay_txn_partition(broker, coordinator, p);
}

}  // namespace strata::broker

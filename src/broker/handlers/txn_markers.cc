// WriteTxnMarkers: what a transaction coordinator sends partition leaders to end a
// transaction. Strata's own coordinator writes its markers directly (txn_log.h); this
// handler serves the same work to a coordinator speaking the protocol.
// Errors per partition: UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER (another
// broker leads it), INVALID_PRODUCER_EPOCH (the
// partition knows a newer epoch), TRANSACTION_COORDINATOR_FENCED (an older
// coordinator epoch), KAFKA_STORAGE_ERROR; CLUSTER_AUTHORIZATION_FAILED for every
// partition without CLUSTER_ACTION on the cluster (Kafka's check: brokers only).
#include "broker/handlers/authorize.h"
#include "broker/handlers/txn_common.h"
#include "broker/partitions.h"
#include "broker/txn_log.h"

namespace strata::broker {

using namespace protocol;

asio::awaitable<WriteTxnMarkersResponse> handle_write_txn_markers(Broker& broker, RequestContext& ctx,
                                                                  WriteTxnMarkersRequest& request) {
  WriteTxnMarkersResponse r;
  const bool allowed = cluster_authorized(broker, ctx, AclOperation::kClusterAction);
  for (const auto& m : request.markers) {
    WriteTxnMarkersResponse::Marker rm;
    rm.producer_id = m.producer_id;
    const txn::MarkerRequest marker{m.producer_id, m.producer_epoch, m.coordinator_epoch,
                                    m.transaction_result, {}};
    for (const auto& t : m.topics) {
      WriteTxnMarkersResponse::Topic rt;
      rt.name = t.name;
      for (int32_t p : t.partition_indexes) {
        if (!allowed) {
          rt.partitions.push_back({p, kafka_error::kClusterAuthorizationFailed});
          continue;
        }
        // In a cluster only the partition's leader writes its markers.
        const PartitionRef ref = resolve_partition(broker, *ctx.metadata, t.name, p);
        if (ref.error != 0) {
          rt.partitions.push_back({p, ref.error});
          continue;
        }
        const storage::TopicPartition tp{t.name, PartitionId(p)};
        const KafkaError e = co_await broker.on_shard_async<KafkaError>(
            broker.owner_shard(tp), [&broker, &tp, &marker](std::function<void(KafkaError)> done) {
              write_partition_marker(broker, tp, marker, std::move(done));
            });
        rt.partitions.push_back({p, code_of(e)});
      }
      rm.topics.push_back(std::move(rt));
    }
    r.markers.push_back(std::move(rm));
  }
  co_return r;
}

}  // namespace strata::broker

// Coordinators move with leadership (issue 15, item 6): in a cluster the group and
// transaction coordinators of a broker serve exactly the internal-topic partitions it
// leads. Each published snapshot is compared with what is wanted (coordinator_loads.h);
// a partition this broker has come to lead (or leads at a new epoch) is replayed from its
// replicated log on its owner shard, where every request for it runs, and one it no
// longer leads is unloaded there (Kafka's onElection / onResignation).
#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/group_log.h"
#include "broker/txn_log.h"
#include "cluster/node.h"

namespace strata::broker {

namespace {

const char* topic_of(CoordinatorKind kind) {
  return kind == CoordinatorKind::kGroups ? group::kOffsetsTopic : txn::kTransactionTopic;
}

}  // namespace

KafkaError Broker::coordinator_status(CoordinatorKind kind, int32_t partition,
                                      const MetadataSnapshot& snapshot) const {
  const CoordinatorLoads* loads = kind == CoordinatorKind::kGroups ? group_loads_.get() : txn_loads_.get();
  if (loads == nullptr) return KafkaError::kNone;  // the single node: everything loaded at start
  // A broker whose etcd session may have expired may no longer lead the partition though
  // its view says so (cut from etcd, it hears of no change): its coordinator state may be
  // stale, so it answers as one that is not the coordinator until the session is renewed.
  if (!view_current()) return KafkaError::kNotCoordinator;
  const PartitionMeta* p = snapshot.partition(topic_of(kind), partition);
  if (p == nullptr) return KafkaError::kNotCoordinator;
  return loads->status(partition, config_.node_id, p->leader, p->leader_epoch);
}

void Broker::follow_coordinators(const MetadataSnapshot& snapshot) {
  if (!coordinators_follow_) return;
  for (CoordinatorKind kind : {CoordinatorKind::kGroups, CoordinatorKind::kTxns}) {
    CoordinatorLoads& loads = kind == CoordinatorKind::kGroups ? *group_loads_ : *txn_loads_;
    for (int32_t p = 0; p < loads.partitions(); ++p) {
      const PartitionMeta* m = snapshot.partition(topic_of(kind), p);
      const bool leads = m != nullptr && m->leader == config_.node_id;
      const int32_t epoch = leads ? m->leader_epoch : CoordinatorLoads::kNone;
      const size_t owner = owner_shard({topic_of(kind), PartitionId(p)});
      switch (loads.want(p, epoch)) {
        case CoordinatorLoads::Step::kNothing:
          break;
        case CoordinatorLoads::Step::kLoad:
          asio::post(shard(owner), [this, kind, p, epoch] { load_coordinator(kind, p, epoch); });
          break;
        case CoordinatorLoads::Step::kUnload:
          asio::post(shard(owner), [this, kind, p] { unload_coordinator(kind, p); });
          break;
      }
    }
  }
}

// On the partition's owner shard. A load superseded by a later snapshot is skipped (the
// later one's step is queued behind it). What an earlier epoch left is dropped first:
// another broker may have led in between.
void Broker::load_coordinator(CoordinatorKind kind, int32_t partition, int32_t epoch) {
  CoordinatorLoads& loads = kind == CoordinatorKind::kGroups ? *group_loads_ : *txn_loads_;
  if (!loads.still_wanted(partition, epoch)) return;
  loads.unloaded(partition);
  const int64_t start = now_ms();
  if (kind == CoordinatorKind::kGroups) {
    groups_->unload(partition);
    load_group_partition(*this, *groups_, partition);
  } else {
    txns_->unload(partition);
    replay_txn_partition(*this, *txns_, partition);
    txns_->finish_load(partition);  // prepared transactions get their markers again
  }
  loads.loaded(partition, epoch);
  spdlog::info("{}-{}: coordinator loaded at leader epoch {} in {} ms", topic_of(kind), partition, epoch,
               now_ms() - start);
}

void Broker::unload_coordinator(CoordinatorKind kind, int32_t partition) {
  CoordinatorLoads& loads = kind == CoordinatorKind::kGroups ? *group_loads_ : *txn_loads_;
  if (!loads.still_wanted(partition, CoordinatorLoads::kNone)) return;
  loads.unloaded(partition);
  if (kind == CoordinatorKind::kGroups) {
    groups_->unload(partition);
  } else {
    txns_->unload(partition);
  }
}

}  // namespace strata::broker

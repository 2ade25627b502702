// The partitions a request names, resolved against the request's metadata snapshot, and
// the one way handlers reach their logs: on the owner shard, looked up there by
// partition and topic id (Broker::owned_log), one hop per shard for the whole request.
#pragma once

#include <string>
#include <vector>

#include "broker/broker.h"
#include "broker/errors.h"
#include "broker/fan_out.h"
#include "storage/checkpoint.h"

namespace strata::broker {

struct PartitionRef {
  storage::TopicPartition tp;
  Uuid topic_id;
  const TopicMeta* meta = nullptr;  // in the request's snapshot (ctx.metadata)
  size_t shard = 0;
  int16_t error = 0;  // UNKNOWN_TOPIC_OR_PARTITION, ...: no hop for this one
};

// `topic`/`partition` in `snapshot`; error UNKNOWN_TOPIC_OR_PARTITION when absent.
PartitionRef resolve_partition(const Broker& broker, const MetadataSnapshot& snapshot,
                               const std::string& topic, int32_t partition);
PartitionRef resolve_partition(const Broker& broker, const TopicMeta* topic, int32_t partition);

// KIP-951: where a client should go instead of here for a partition answered
// NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, from the request's snapshot. Fills the
// response's CurrentLeader (only when the snapshot knows a live leader, as Kafka leaves
// it at its default otherwise) and adds the leader to the NodeEndpoints, once per node.
template <class LeaderIdAndEpoch, class Endpoint>
void add_leader_hint(const MetadataSnapshot& snapshot, const std::string& listener, const PartitionRef& ref,
                     int16_t error, std::optional<LeaderIdAndEpoch>& current_leader,
                     std::vector<Endpoint>& endpoints) {
  if (error != kafka_error::kNotLeaderOrFollower && error != kafka_error::kFencedLeaderEpoch) return;
  if (ref.meta == nullptr) return;
  const PartitionMeta& p = ref.meta->partitions[size_t(ref.tp.partition.value())];
  const BrokerMeta* leader = snapshot.cluster().broker(p.leader);
  if (leader == nullptr) return;
  current_leader.emplace();
  current_leader->leader_id = p.leader;
  current_leader->leader_epoch = p.leader_epoch;
  for (const Endpoint& e : endpoints) {
    if (e.node_id == p.leader) return;
  }
  const auto address = leader->address(listener);
  if (!address) return;
  Endpoint e;
  e.node_id = leader->node_id;
  e.host = address->host;
  e.port = address->port;
  e.rack = leader->rack;
  endpoints.push_back(std::move(e));
}

// Creates `topic` if it does not exist and the broker auto-creates topics (Produce,
// Metadata); INVALID_TOPIC_EXCEPTION for a bad name. On success ctx.metadata is
// refreshed to a snapshot that has it. 0 when the topic exists afterwards.
asio::awaitable<int16_t> auto_create(Broker& broker, RequestContext& ctx, const std::string& topic);

// Runs fn(i, log) on the owner shard of every refs[i] without an error, one hop per
// shard, in index order on each shard. `log` is null when the partition's topic was
// deleted or re-created since the snapshot: answer UNKNOWN_TOPIC_OR_PARTITION. fn
// captures references and pointers only (checked) and writes into caller storage.
template <class Fn>
auto for_each_log(Broker& broker, const std::vector<PartitionRef>& refs, Fn fn) {
  return fan_out(
      broker, refs.size(), [&refs](size_t i) { return refs[i].error != 0 ? kNoHop : refs[i].shard; },
      [&broker, &refs, fn](size_t i) mutable {
        fn(i, broker.owned_log(refs[i].tp, refs[i].topic_id));
      });
}

}  // namespace strata::broker

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

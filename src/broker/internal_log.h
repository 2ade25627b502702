// Writing and replaying the coordinators' internal topics (__consumer_offsets,
// __transaction_state): one v2 batch per write, appended on the partition's owner
// shard and acknowledged once fdatasync covers it; replay reads every batch of a
// partition in order.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "record/batch_builder.h"
#include "record/batch_view.h"
#include "broker/metadata_snapshot.h"
#include "storage/log_manager.h"

namespace strata::broker {

class Broker;

struct InternalRecord {
  std::vector<uint8_t> key;
  std::optional<std::vector<uint8_t>> value;  // nullopt: a tombstone
};

// Before a coordinator's own append as the partition's leader (its records, transaction
// markers), on the owner shard: the partition in the newest metadata (`meta` null when
// the single node's snapshot lacks it) and the error to answer instead of appending:
// NOT_LEADER_OR_FOLLOWER when, in a cluster, this broker does not lead it now (the
// request's own snapshot may be long stale), NOT_ENOUGH_REPLICAS when its ISR is below
// min.insync.replicas. Append with stamped_epoch(meta), the epoch of the snapshot checked.
struct LeaderCheck {
  std::shared_ptr<const MetadataSnapshot> snapshot;  // keeps `meta` alive
  const PartitionMeta* meta = nullptr;
  KafkaError error = KafkaError::kNone;
};
LeaderCheck check_leading(const Broker& broker, const storage::TopicPartition& tp, const storage::Log& log);

// Appends `records` as one batch built with `options` (producer fields for a
// transactional batch) and runs `done` on the partition's owner shard with 0 once
// durable, or the Kafka error code. Must be called on the owner shard.
void append_internal(Broker& broker, const storage::TopicPartition& tp,
                     const std::vector<InternalRecord>& records, const record::BatchOptions& options,
                     std::function<void(KafkaError)> done);

// After this leader's own append to `tp` ending at `end` (coordinator records,
// transaction markers: Kafka writes both with acks=all): runs `done` with kNone once
// `log` is durable and, when `tp` is replicated per `meta`, its high watermark passed
// `end`; else KAFKA_STORAGE_ERROR, NOT_ENOUGH_REPLICAS_AFTER_APPEND or, after
// request.timeout.ms, REQUEST_TIMED_OUT. `done` runs on the sync thread or the owner
// shard. Call on the owner shard.
void await_committed(Broker& broker, const storage::TopicPartition& tp, storage::Log& log,
                     const PartitionMeta* meta, int64_t end, std::function<void(KafkaError)> done);

// Calls `visit` with every batch of the partition's log from its start, in order. A
// read that fails stops the replay with an error in the log: later records are not
// loaded (recovery has already validated the batches).
void replay_internal(Broker& broker, const storage::TopicPartition& tp,
                     const std::function<void(const record::BatchView&)>& visit);

// Calls `visit` with the key and value of every record of a data batch.
void for_each_record(const record::BatchView& batch, std::vector<uint8_t>& scratch,
                     const std::function<void(Bytes key, std::optional<Bytes> value)>& visit);

}  // namespace strata::broker

// The broker's side of the group coordinator: __consumer_offsets as partition logs.
//   - GroupLog writes the coordinator's records as one v2 batch per call, appended on
//     the partition's owner shard, and reports back once fdatasync has covered it;
//   - load_groups replays every __consumer_offsets partition into the coordinator.
#pragma once

#include "group/coordinator.h"

namespace strata::broker {

class Broker;

class GroupLog : public group::OffsetsLog {
 public:
  explicit GroupLog(Broker& broker) : broker_(broker) {}
  void append(int32_t partition, std::vector<Record> records,
              std::function<void(KafkaError)> done) override;
  void append_transactional(int32_t partition, int64_t producer_id, int16_t epoch,
                            std::vector<Record> records,
                            std::function<void(KafkaError)> done) override;

 private:
  Broker& broker_;
};

// Reads every batch of a __consumer_offsets partition and hands its records to the
// coordinator (transactional offset commits as pending, markers ending them, other
// control batches skipped), then finishes its load. On the partition's owner shard, or
// before the shards run.
void load_group_partition(Broker& broker, group::GroupCoordinator& coordinator, int32_t partition);

// Every partition, before the broker serves (the single node).
void load_groups(Broker& broker, group::GroupCoordinator& coordinator);

}  // namespace strata::broker

#include "broker/group_log.h"

#include "broker/broker.h"
#include "broker/internal_log.h"
#include "record/control.h"

namespace strata::broker {

namespace {

storage::TopicPartition offsets_partition(int32_t p) {
  return {group::kOffsetsTopic, PartitionId(p)};
}

std::vector<InternalRecord> internal_records(std::vector<group::OffsetsLog::Record>& records) {
  std::vector<InternalRecord> out;
  out.reserve(records.size());
  for (auto& r : records) out.push_back({std::move(r.key), std::move(r.value)});
  return out;
}

}  // namespace

void GroupLog::append(int32_t partition, std::vector<Record> records,
                      std::function<void(KafkaError)> done) {
  append_internal(broker_, offsets_partition(partition), internal_records(records),
                  record::BatchOptions{}, std::move(done));
}

// Kafka writes transactional offset commits with the producer's id and epoch and
// base sequence 0; the partition takes them without sequence checks (coordinator
// origin).
void GroupLog::append_transactional(int32_t partition, int64_t producer_id, int16_t epoch,
                                    std::vector<Record> records,
                                    std::function<void(KafkaError)> done) {
  record::BatchOptions options;
  options.transactional = true;
  options.producer_id = ProducerId(producer_id);
  options.producer_epoch = ProducerEpoch(epoch);
  options.base_sequence = Sequence(0);
  append_internal(broker_, offsets_partition(partition), internal_records(records), options,
                  std::move(done));
}

void load_group_partition(Broker& broker, group::GroupCoordinator& coordinator, int32_t p) {
  std::vector<uint8_t> scratch;
  replay_internal(broker, offsets_partition(p), [&](const record::BatchView& batch) {
    const int64_t pid = batch.producer_id().value();
    if (batch.is_control()) {
      if (!batch.is_transactional()) return;
      for_each_record(batch, scratch, [&](Bytes key, std::optional<Bytes>) {
        auto k = record::parse_control_key(key);
        if (k && k->is_end_txn()) {
          coordinator.replay_marker(p, pid, k->type == int16_t(record::ControlType::kCommit));
        }
      });
      return;
    }
    const bool txn = batch.is_transactional();
    for_each_record(batch, scratch, [&](Bytes key, std::optional<Bytes> value) {
      if (txn) {
        coordinator.replay_txn(p, pid, key, value);
      } else {
        coordinator.replay(p, key, value);
      }
    });
  });
  coordinator.finish_load(p);
}

void load_groups(Broker& broker, group::GroupCoordinator& coordinator) {
  for (int32_t p = 0; p < coordinator.partitions(); ++p) load_group_partition(broker, coordinator, p);
}

}  // namespace strata::broker

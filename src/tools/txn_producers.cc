// `strata txn describe-producers` and `strata txn abort`: what a partition's leader
// knows of its producers, and the ABORT marker that ends a hanging transaction there.
//   describe-producers: DescribeProducers on the leader (or --broker-id's replica).
//   abort: Kafka's way of aborting a transaction its coordinator no longer drives:
//          DescribeProducers finds the producer whose open transaction starts at
//          --start-offset, then WriteTxnMarkers writes ABORT with its producer id, epoch
//          and coordinator epoch (0 when the partition has none). Brokers before Kafka
//          3.0 lack DescribeProducers: --producer-id, --producer-epoch and
//          --coordinator-epoch name the producer outright. Prints nothing on success.
#include <algorithm>
#include <ostream>

#include "tools/txn_admin.h"

namespace strata::tools {

namespace {

// The producers of one partition on `broker_id`.
Result<std::vector<ProducerRow>, CommandError> producers_of(TxnAdmin& admin, int32_t broker_id,
                                                            const PartitionKey& p) {
  auto answers = admin.producers(broker_id, {p});
  if (!answers) return fail(answers.error());
  ProducersAnswer& a = (*answers)[p];
  if (a.error) return fail(*a.error);
  return std::move(a.producers);
}

// The abort of the transaction starting at `start_offset`, found with DescribeProducers.
Result<AbortSpec, CommandError> spec_at(TxnAdmin& admin, int32_t leader, const PartitionKey& p,
                                        int64_t start_offset) {
  auto producers = producers_of(admin, leader, p);
  if (!producers) {
    return fail(CommandError{"Failed to validate producer state for partition " +
                             partition_text(p) + ": " + producers.error().message});
  }
  for (const ProducerRow& r : *producers) {
    if (r.current_txn_start_offset < 0 || r.current_txn_start_offset != start_offset) continue;
    return AbortSpec{p.first, p.second, r.producer_id, int16_t(r.producer_epoch),
                     r.coordinator_epoch < 0 ? 0 : r.coordinator_epoch};
  }
  return fail(CommandError{"Could not find any open transactions starting at offset " +
                           std::to_string(start_offset) + " on partition " + partition_text(p)});
}

// The abort named outright (brokers before 3.0).
Result<AbortSpec, CommandError> spec_given(const TxnArgs& args, const PartitionKey& p) {
  if (!args.producer_id) {
    return fail(CommandError{
        "The transaction to abort must be identified either with --start-offset (for brokers "
        "on 3.0 or above) or with --producer-id, --producer-epoch, and --coordinator-epoch (for "
        "older brokers)"});
  }
  if (!args.producer_epoch) return fail(CommandError{"Missing required argument --producer-epoch"});
  if (!args.coordinator_epoch) {
    return fail(CommandError{"Missing required argument --coordinator-epoch"});
  }
  // A producer whose transaction hung before its first marker has no coordinator epoch
  // (-1): 0 is at or below any the partition can know.
  return AbortSpec{p.first, p.second, *args.producer_id, *args.producer_epoch,
                   std::max(*args.coordinator_epoch, 0)};
}

}  // namespace

Status describe_producers(TxnAdmin& admin, std::ostream& out) {
  const TxnArgs& args = admin.args();
  const PartitionKey p{*args.topic, *args.partition};
  const std::string where =
      args.broker_id ? "broker " + std::to_string(*args.broker_id) : std::string("leader");
  auto on_error = [&](const CommandError& e) {
    return CommandError{"Failed to describe producers for partition " + partition_text(p) + " on " +
                        where + ": " + e.message};
  };
  Result<int32_t, CommandError> broker_id = args.broker_id
                                                ? Result<int32_t, CommandError>(*args.broker_id)
                                                : admin.leader_of(p.first, p.second);
  if (!broker_id) return fail(on_error(broker_id.error()));
  auto producers = producers_of(admin, *broker_id, p);
  if (!producers) return fail(on_error(producers.error()));
  print_producers(*producers, out);
  return {};
}

Status abort_txn(TxnAdmin& admin) {
  const TxnArgs& args = admin.args();
  const PartitionKey p{*args.topic, *args.partition};
  auto leader = admin.leader_of(p.first, p.second);
  if (args.start_offset && !leader) {
    return fail(CommandError{"Failed to validate producer state for partition " +
                             partition_text(p) + ": " + leader.error().message});
  }
  auto spec =
      args.start_offset ? spec_at(admin, *leader, p, *args.start_offset) : spec_given(args, p);
  if (!spec) return fail(spec.error());
  auto failed = [&spec](const std::string& why) {
    return CommandError{"Failed to abort transaction " +
                        abort_spec_text(spec->topic, spec->partition, spec->producer_id,
                                        spec->producer_epoch, spec->coordinator_epoch) +
                        ": " + why};
  };
  if (!leader) return fail(failed(leader.error().message));
  auto error = admin.write_abort_marker(*leader, *spec);
  if (!error) return fail(failed(error.error().message));
  if (*error != 0) return fail(failed(kafka_error_name(*error)));
  return {};
}

}  // namespace strata::tools

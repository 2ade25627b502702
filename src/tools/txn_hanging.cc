// `strata txn find-hanging (--broker-id N | --topic T [--partition P])
// [--max-transaction-timeout MIN]`: kafka-transactions.sh find-hanging. A transaction is
// open on a partition (DescribeProducers shows a start offset) for longer than the
// largest transaction timeout, and its coordinator does not count that partition in
// it: no transactional id lists the producer, the id is not found, or its current
// transaction does not include the partition. Such a transaction will never get a
// marker and holds back the last stable offset; `strata txn abort` ends it.
#include <algorithm>
#include <ostream>
#include <set>
#include <tuple>

#include "tools/txn_admin.h"

namespace strata::tools {

namespace {

// Kafka asks DescribeProducers for at most this many partitions at a time.
constexpr size_t kPartitionsPerRequestMax = 500;
constexpr int64_t kMsPerMinute = 60 * 1000;

bool has_replica(const protocol::MetadataResponse::Partition& p, int32_t broker_id) {
  return std::find(p.replica_nodes.begin(), p.replica_nodes.end(), broker_id) !=
         p.replica_nodes.end();
}

// The partitions to search, each with the broker to ask (--broker-id, else the leader).
Result<std::map<int32_t, std::vector<PartitionKey>>, CommandError> partitions_to_search(
    TxnAdmin& admin) {
  const TxnArgs& args = admin.args();
  std::map<int32_t, std::vector<PartitionKey>> by_broker;
  if (args.topic && args.partition) {
    auto leader = admin.leader_of(*args.topic, *args.partition);
    if (!args.broker_id && !leader) return fail(leader.error());
    by_broker[args.broker_id.value_or(leader ? *leader : -1)].push_back(
        {*args.topic, *args.partition});
    return by_broker;
  }
  auto m = admin.metadata();
  if (!m) return fail(m.error());
  bool topic_found = false;
  for (const auto& t : (*m)->topics) {
    if (!t.name || (args.topic && *t.name != *args.topic)) continue;
    topic_found = true;
    for (const auto& p : t.partitions) {
      if (args.broker_id && !has_replica(p, *args.broker_id)) continue;
      const int32_t ask = args.broker_id.value_or(p.leader_id);
      if (ask >= 0) by_broker[ask].push_back({*t.name, p.partition_index});
    }
  }
  if (args.topic && !topic_found) {
    return fail(CommandError{"Failed to describe 1 topics: UNKNOWN_TOPIC_OR_PARTITION"});
  }
  for (auto& [broker, partitions] : by_broker) std::sort(partitions.begin(), partitions.end());
  return by_broker;
}

// Open transactions older than the largest timeout, per producer id.
Result<std::map<int64_t, std::vector<HangingTxnRow>>, CommandError> candidates(TxnAdmin& admin,
                                                                               int64_t now_ms) {
  const TxnArgs& args = admin.args();
  const int64_t max_timeout_ms = int64_t(args.max_transaction_timeout_min) * kMsPerMinute;
  auto search = partitions_to_search(admin);
  if (!search) return fail(search.error());
  std::map<int64_t, std::vector<HangingTxnRow>> open;
  for (const auto& [broker, partitions] : *search) {
    for (size_t at = 0; at < partitions.size(); at += kPartitionsPerRequestMax) {
      const size_t end = std::min(partitions.size(), at + kPartitionsPerRequestMax);
      const std::vector<PartitionKey> batch(partitions.begin() + at, partitions.begin() + end);
      auto answers = admin.producers(broker, batch);
      if (!answers) {
        return fail(CommandError{"Failed to describe producers for " +
                                 std::to_string(batch.size()) + " partitions on broker " +
                                 std::to_string(broker) + ": " + answers.error().message});
      }
      for (const auto& [p, a] : *answers) {
        if (a.error) {
          return fail(CommandError{"Failed to describe producers for " + partition_text(p) +
                                   " on broker " + std::to_string(broker) + ": " +
                                   a.error->message});
        }
        for (const ProducerRow& r : a.producers) {
          if (r.current_txn_start_offset < 0) continue;
          if (now_ms - r.last_timestamp <= max_timeout_ms) continue;
          open[r.producer_id].push_back({p.first, p.second, r});
        }
      }
    }
  }
  return open;
}

// Of the open transactions, those their coordinator does not count the partition in.
Result<std::vector<HangingTxnRow>, CommandError> hanging_of(
    TxnAdmin& admin, const std::map<int64_t, std::vector<HangingTxnRow>>& open) {
  TxnListFilter filter;
  for (const auto& [producer_id, rows] : open) filter.producer_ids.push_back(producer_id);
  auto listed = admin.list(filter);
  if (!listed) {
    return fail(CommandError{"Failed to list transactions for " +
                             std::to_string(filter.producer_ids.size()) +
                             " producers: " + listed.error().message});
  }
  std::map<int64_t, std::string> id_of;
  for (const TxnListingRow& l : *listed) {
    if (open.count(l.producer_id)) id_of[l.producer_id] = l.transactional_id;
  }
  std::vector<HangingTxnRow> hanging;
  for (const auto& [producer_id, rows] : open) {
    const auto id = id_of.find(producer_id);
    std::set<std::pair<std::string, int32_t>> in_txn;
    if (id != id_of.end()) {
      auto d = admin.describe(id->second);
      if (!d) return fail(CommandError{"Failed to describe 1 transactions: " + d.error().message});
      if (*d) in_txn.insert((*d)->partitions.begin(), (*d)->partitions.end());
    }
    for (const HangingTxnRow& r : rows) {
      if (in_txn.count({r.topic, r.partition}) == 0) hanging.push_back(r);
    }
  }
  std::sort(hanging.begin(), hanging.end(), [](const auto& a, const auto& b) {
    return std::tie(a.topic, a.partition, a.producer.producer_id) <
           std::tie(b.topic, b.partition, b.producer.producer_id);
  });
  return hanging;
}

}  // namespace

Status find_hanging(TxnAdmin& admin, std::ostream& out) {
  const TxnArgs& args = admin.args();
  if (!args.topic && !args.broker_id) {
    return fail(
        CommandError{"The `find-hanging` command requires either --topic or --broker-id "
                     "to limit the scope of the search"});
  }
  if (args.partition && !args.topic) {
    return fail(CommandError{"The --partition argument requires --topic to be provided"});
  }
  const int64_t now_ms = txn_now_ms();
  auto open = candidates(admin, now_ms);
  if (!open) return fail(open.error());
  std::vector<HangingTxnRow> hanging;
  if (!open->empty()) {
    auto found = hanging_of(admin, *open);
    if (!found) return fail(found.error());
    hanging = std::move(*found);
  }
  print_hanging(hanging, now_ms, out);
  return {};
}

}  // namespace strata::tools

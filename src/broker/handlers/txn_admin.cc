// DescribeTransactions, ListTransactions (the coordinator's view of transactional ids)
// and DescribeProducers (a partition's producer state), for kafka-transactions.sh and
// admin clients.
// Errors: TRANSACTIONAL_ID_NOT_FOUND, NOT_COORDINATOR (in a cluster, another broker
// coordinates the id), COORDINATOR_NOT_AVAILABLE (no
// __transaction_state), INVALID_REGULAR_EXPRESSION (ListTransactions v2 pattern),
// UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER (DescribeProducers off the leader).
// ACLs as Kafka checks them: DescribeTransactions needs DESCRIBE on each transactional id
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED) and leaves out the topics the caller may not
// DESCRIBE; ListTransactions lists only the ids the caller may DESCRIBE; DescribeProducers
// needs READ on each topic (TOPIC_AUTHORIZATION_FAILED).
#include <regex>

#include "broker/handlers/authorize.h"
#include "broker/handlers/txn_common.h"
#include "broker/partitions.h"

namespace strata::broker {

using namespace protocol;

namespace {

// Kafka's state names, from the one table in txn/records.
bool known_state(const std::string& name) {
  for (int8_t b = 0;; ++b) {
    auto state = txn::state_from_byte(b);
    if (!state) return false;
    if (name == txn::state_name(*state)) return true;
  }
}

}  // namespace

asio::awaitable<DescribeTransactionsResponse> handle_describe_transactions(
    Broker& broker, RequestContext& ctx, DescribeTransactionsRequest& request) {
  DescribeTransactionsResponse r;
  const bool ready = broker.topics().get(txn::kTransactionTopic).has_value();
  for (const std::string& id : request.transactional_ids) {
    DescribeTransactionsResponse::TransactionState s;
    s.transactional_id = id;
    if (!authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kTransactionalId, id)) {
      s.error_code = kafka_error::kTransactionalIdAuthorizationFailed;
      r.transaction_states.push_back(std::move(s));
      continue;
    }
    if (!ready) {
      s.error_code = kafka_error::kTransactionalIdNotFound;
      r.transaction_states.push_back(std::move(s));
      continue;
    }
    if (const KafkaError here = txn_coordinator_error(broker, ctx, id); here != KafkaError::kNone) {
      s.error_code = code_of(here);  // the admin client asks FindCoordinator again
      r.transaction_states.push_back(std::move(s));
      continue;
    }
    txn::TxnCoordinator& c = broker.txns();
    txn::TxnDescription d =
        co_await broker.on_shard(broker.txn_shard(id), [&c, &id] { return c.describe(id); });
    s.error_code = code_of(d.error);
    if (d.error == txn::errc::kNone) {
      s.transaction_state = txn::state_name(d.state);
      s.transaction_timeout_ms = d.timeout_ms;
      s.transaction_start_time_ms = d.start_ms;
      s.producer_id = d.producer_id;
      s.producer_epoch = d.producer_epoch;
      for (auto& tp : d.partitions) {
        if (!authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kTopic, tp.topic)) continue;
        s.topics.push_back({tp.topic, std::move(tp.partitions)});
      }
    }
    r.transaction_states.push_back(std::move(s));
  }
  co_return r;
}

asio::awaitable<ListTransactionsResponse> handle_list_transactions(Broker& broker, RequestContext& ctx,
                                                                   ListTransactionsRequest& request) {
  ListTransactionsResponse r;
  std::optional<std::regex> pattern;
  if (request.transactional_id_pattern && !request.transactional_id_pattern->empty()) {
    try {
      pattern.emplace(*request.transactional_id_pattern);
    } catch (const std::regex_error&) {
      r.error_code = kafka_error::kInvalidRegularExpression;
      co_return r;
    }
  }
  txn::TxnFilter filter;
  for (const std::string& s : request.state_filters) {
    if (!known_state(s)) {
      r.unknown_state_filters.push_back(s);
    } else {
      filter.states.push_back(s);
    }
  }
  // Only unknown states asked for: nothing can match.
  if (!request.state_filters.empty() && filter.states.empty()) co_return r;
  filter.producer_ids = request.producer_id_filters;
  filter.min_duration_ms = request.duration_filter;
  if (!broker.topics().get(txn::kTransactionTopic)) co_return r;
  txn::TxnCoordinator& c = broker.txns();
  for (int32_t p = 0; p < c.partitions(); ++p) {
    std::vector<txn::TxnListing> got = co_await broker.on_shard(
        broker.txn_partition_shard(p), [&c, p, &filter] { return c.list(p, filter); });
    for (auto& l : got) {
      if (pattern && !std::regex_match(l.transactional_id, *pattern)) continue;
      if (!authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kTransactionalId, l.transactional_id)) {
        continue;
      }
      r.transaction_states.push_back({std::move(l.transactional_id), l.producer_id,
                                      txn::state_name(l.state)});
    }
  }
  co_return r;
}

asio::awaitable<DescribeProducersResponse> handle_describe_producers(
    Broker& broker, RequestContext& ctx, DescribeProducersRequest& request) {
  // The producer state is the leader's (NOT_LEADER_OR_FOLLOWER elsewhere, as Kafka).
  std::vector<PartitionRef> refs;
  for (const auto& t : request.topics) {
    const bool readable = authorized(broker, ctx, AclOperation::kRead, ResourceType::kTopic, t.name);
    for (int32_t index : t.partition_indexes) {
      refs.push_back(resolve_partition(broker, *ctx.metadata, t.name, index));
      if (!readable) refs.back().error = kafka_error::kTopicAuthorizationFailed;
    }
  }
  using States = std::vector<DescribeProducersResponse::ProducerState>;
  std::vector<States> states(refs.size());
  std::vector<int16_t> gone(refs.size(), 0);
  co_await for_each_log(broker, refs, [&states, &gone](size_t i, storage::Log* log) {
    if (log == nullptr) {
      gone[i] = kafka_error::kUnknownTopicOrPartition;
      return;
    }
    for (const auto& [id, e] : log->producers().sorted()) {
      states[i].push_back({id.value(), e->epoch.value(), e->last_sequence().value(), e->last_timestamp,
                           e->coordinator_epoch, e->current_txn_first_offset.value()});
    }
  });
  DescribeProducersResponse r;
  size_t at = 0;
  for (const auto& t : request.topics) {
    DescribeProducersResponse::Topic rt;
    rt.name = t.name;
    for (int32_t index : t.partition_indexes) {
      DescribeProducersResponse::Partition rp;
      rp.partition_index = index;
      rp.error_code = refs[at].error != 0 ? refs[at].error : gone[at];
      rp.active_producers = std::move(states[at]);
      rt.partitions.push_back(std::move(rp));
      ++at;
    }
    r.topics.push_back(std::move(rt));
  }
  co_return r;
}

}  // namespace strata::broker

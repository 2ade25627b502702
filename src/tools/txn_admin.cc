#include "tools/txn_admin.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <tuple>

#include "protocol/apis/describe_producers.h"
#include "protocol/apis/describe_transactions.h"
#include "protocol/apis/find_coordinator.h"
#include "protocol/apis/list_transactions.h"
#include "protocol/apis/write_txn_markers.h"

namespace strata::tools {

using namespace protocol;

namespace {

constexpr const char* kClientId = "strata-txn";
constexpr int8_t kTransactionKeyType = 1;
constexpr auto kRetryBackoff = std::chrono::milliseconds(100);

using Clock = std::chrono::steady_clock;

// Waits before asking again while the broker answers a retriable coordinator error and
// `deadline` allows; false when the caller should give up.
bool wait_to_retry(int16_t error, Clock::time_point deadline) {
  const bool retriable = error == kafka_error::kCoordinatorLoadInProgress ||
                         error == kafka_error::kCoordinatorNotAvailable ||
                         error == kafka_error::kNotCoordinator;
  if (!retriable || Clock::now() + kRetryBackoff > deadline) return false;
  std::this_thread::sleep_for(kRetryBackoff);
  return true;
}

struct CoordinatorAnswer {
  int16_t error = 0;
  std::optional<std::string> message;
  Node node;
};

// FindCoordinator for a transactional id, in either form (one key before v4, a list
// from v4).
Result<CoordinatorAnswer, CommandError> ask_coordinator(KafkaClient& client,
                                                        const std::string& id) {
  FindCoordinatorRequest request;
  request.key = id;
  request.key_type = kTransactionKeyType;
  request.coordinator_keys = {id};
  const std::optional<int16_t> v = client.version<FindCoordinatorRequest>();
  if (v && *v < 1) {
    return fail(
        CommandError{"the broker serves FindCoordinator v0 only, which cannot find a "
                     "transaction coordinator"});
  }
  auto r = client.call<FindCoordinatorResponse>(request);
  if (!r) return fail(client_error(r.error()));
  if (*v < 4)
    return CoordinatorAnswer{r->error_code, r->error_message, {r->node_id, r->host, r->port}};
  for (const auto& c : r->coordinators) {
    if (c.key == id)
      return CoordinatorAnswer{c.error_code, c.error_message, {c.node_id, c.host, c.port}};
  }
  return fail(CommandError{"FindCoordinator did not answer for transactional id '" + id + "'"});
}

TxnDescriptionRow description_of(const DescribeTransactionsResponse::TransactionState& s,
                                 int32_t coordinator_id) {
  TxnDescriptionRow d;
  d.coordinator_id = coordinator_id;
  d.transactional_id = s.transactional_id;
  d.producer_id = s.producer_id;
  d.producer_epoch = s.producer_epoch;
  d.state = s.transaction_state;
  d.timeout_ms = s.transaction_timeout_ms;
  d.start_ms = s.transaction_start_time_ms;
  for (const auto& t : s.topics) {
    for (int32_t p : t.partitions) d.partitions.emplace_back(t.topic, p);
  }
  return d;
}

ProducerRow producer_of(const DescribeProducersResponse::ProducerState& p) {
  return {p.producer_id,    p.producer_epoch,    p.last_sequence,
          p.last_timestamp, p.coordinator_epoch, p.current_txn_start_offset};
}

}  // namespace

int64_t txn_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<TxnAdmin, CommandError> TxnAdmin::connect(const TxnArgs& args) {
  auto client = connect_bootstrap(args.bootstrap_server, args.timeout_ms, kClientId, args.command_config);
  if (!client) return fail(client.error());
  return TxnAdmin(args, std::move(*client));
}

Result<const MetadataResponse*, CommandError> TxnAdmin::metadata() {
  if (!metadata_) {
    auto m = all_topics(bootstrap_);
    if (!m) return fail(m.error());
    metadata_ = std::move(*m);
  }
  return &*metadata_;
}

Result<int32_t, CommandError> TxnAdmin::leader_of(const std::string& topic, int32_t partition) {
  auto m = metadata();
  if (!m) return fail(m.error());
  for (const auto& t : (*m)->topics) {
    if (!t.name || *t.name != topic) continue;
    for (const auto& p : t.partitions) {
      if (p.partition_index != partition) continue;
      if (p.leader_id < 0) return fail(kafka_error(kafka_error::kLeaderNotAvailable));
      return p.leader_id;
    }
  }
  // Not among the topics we may see: asking for it by name gives the reason (as Kafka's
  // admin client does), TOPIC_AUTHORIZATION_FAILED rather than a plain "unknown".
  MetadataRequest named;
  named.topics.emplace();
  named.topics->emplace_back().name = topic;
  named.allow_auto_topic_creation = false;
  auto answer = bootstrap_.call<MetadataResponse>(named);
  if (answer && answer->topics.size() == 1 && answer->topics[0].error_code != 0) {
    return fail(kafka_error(answer->topics[0].error_code));
  }
  return fail(kafka_error(kafka_error::kUnknownTopicOrPartition));
}

Result<KafkaClient*, CommandError> TxnAdmin::node(const Node& n) {
  auto open = connections_.find(n.id);
  if (open == connections_.end()) {
    auto client = KafkaClient::connect({n.host, uint16_t(n.port)}, bootstrap_.options());
    if (!client) return fail(client_error(client.error()));
    open = connections_.emplace(n.id, std::move(*client)).first;
  }
  return &open->second;
}

Result<KafkaClient*, CommandError> TxnAdmin::broker(int32_t id) {
  if (auto open = connections_.find(id); open != connections_.end()) return &open->second;
  auto m = metadata();
  if (!m) return fail(m.error());
  for (const auto& b : (*m)->brokers) {
    if (b.node_id == id) return node({b.node_id, b.host, b.port});
  }
  return fail(CommandError{"broker " + std::to_string(id) + " is not in the cluster's metadata"});
}

Result<Node, CommandError> TxnAdmin::coordinator(const std::string& transactional_id) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(args_->timeout_ms);
  for (;;) {
    auto a = ask_coordinator(bootstrap_, transactional_id);
    if (!a) return fail(a.error());
    if (a->error == 0) return a->node;
    if (!wait_to_retry(a->error, deadline)) return fail(kafka_error(a->error, a->message));
  }
}

Result<std::vector<TxnListingRow>, CommandError> TxnAdmin::list(const TxnListFilter& filter) {
  auto m = metadata();
  if (!m) return fail(m.error());
  std::vector<TxnListingRow> rows;
  for (const auto& b : (*m)->brokers) {
    auto client = node({b.node_id, b.host, b.port});
    if (!client) return fail(client.error());
    const std::optional<int16_t> v = (*client)->version<ListTransactionsRequest>();
    if (v && *v < 1 && filter.duration_ms >= 0) {
      return fail(
          CommandError{"Duration filter can be set only when using API version 1 or "
                       "higher; broker " +
                       std::to_string(b.node_id) + " serves ListTransactions v0"});
    }
    const auto deadline = Clock::now() + std::chrono::milliseconds(args_->timeout_ms);
    for (;;) {
      ListTransactionsRequest request;
      request.state_filters = filter.states;
      request.producer_id_filters = filter.producer_ids;
      request.duration_filter = filter.duration_ms;
      auto r = (*client)->call<ListTransactionsResponse>(request);
      if (!r) return fail(client_error(r.error()));
      if (r->error_code == kafka_error::kCoordinatorLoadInProgress &&
          wait_to_retry(r->error_code, deadline)) {
        continue;
      }
      if (r->error_code != 0) {
        return fail(CommandError{"ListTransactions request sent to broker " +
                                 std::to_string(b.node_id) +
                                 " failed: " + kafka_error_name(r->error_code)});
      }
      for (const auto& s : r->transaction_states) {
        rows.push_back({s.transactional_id, b.node_id, s.producer_id, s.transaction_state});
      }
      break;
    }
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(a.coordinator_id, a.transactional_id) <
           std::tie(b.coordinator_id, b.transactional_id);
  });
  return rows;
}

Result<std::optional<TxnDescriptionRow>, CommandError> TxnAdmin::describe(
    const std::string& transactional_id) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(args_->timeout_ms);
  for (;;) {
    auto where = coordinator(transactional_id);
    if (!where) return fail(where.error());
    auto client = node(*where);
    if (!client) return fail(client.error());
    DescribeTransactionsRequest request;
    request.transactional_ids = {transactional_id};
    auto r = (*client)->call<DescribeTransactionsResponse>(request);
    if (!r) return fail(client_error(r.error()));
    const auto s =
        std::find_if(r->transaction_states.begin(), r->transaction_states.end(),
                     [&](const auto& t) { return t.transactional_id == transactional_id; });
    if (s == r->transaction_states.end()) {
      return fail(CommandError{"DescribeTransactions did not answer for transactional id '" +
                               transactional_id + "'"});
    }
    if (s->error_code == 0) return std::optional(description_of(*s, where->id));
    if (s->error_code == kafka_error::kTransactionalIdNotFound) {
      return std::optional<TxnDescriptionRow>();
    }
    if (!wait_to_retry(s->error_code, deadline)) return fail(kafka_error(s->error_code));
  }
}

Result<std::map<PartitionKey, ProducersAnswer>, CommandError> TxnAdmin::producers(
    int32_t broker_id, const std::vector<PartitionKey>& partitions) {
  auto client = broker(broker_id);
  if (!client) return fail(client.error());
  DescribeProducersRequest request;
  for (const auto& [topic, p] : partitions) {
    if (request.topics.empty() || request.topics.back().name != topic) {
      request.topics.push_back({topic, {}});
    }
    request.topics.back().partition_indexes.push_back(p);
  }
  auto r = (*client)->call<DescribeProducersResponse>(request);
  if (!r) return fail(client_error(r.error()));
  std::map<PartitionKey, ProducersAnswer> out;
  for (const auto& t : r->topics) {
    for (const auto& p : t.partitions) {
      ProducersAnswer& a = out[{t.name, p.partition_index}];
      if (p.error_code != 0) {
        a.error = kafka_error(p.error_code, p.error_message);
        continue;
      }
      for (const auto& s : p.active_producers) a.producers.push_back(producer_of(s));
    }
  }
  for (const PartitionKey& p : partitions) {
    if (out.count(p) == 0) {
      out[p].error = CommandError{"DescribeProducers did not answer for " + partition_text(p)};
    }
  }
  return out;
}

Result<int16_t, CommandError> TxnAdmin::write_abort_marker(int32_t broker_id,
                                                           const AbortSpec& spec) {
  auto client = broker(broker_id);
  if (!client) return fail(client.error());
  WriteTxnMarkersRequest request;
  WriteTxnMarkersRequest::Marker marker;
  marker.producer_id = spec.producer_id;
  marker.producer_epoch = spec.producer_epoch;
  marker.transaction_result = false;  // ABORT
  marker.coordinator_epoch = spec.coordinator_epoch;
  marker.topics.push_back({spec.topic, {spec.partition}});
  request.markers.push_back(std::move(marker));
  auto r = (*client)->call<WriteTxnMarkersResponse>(request);
  if (!r) return fail(client_error(r.error()));
  // Exactly the one marker, topic and partition asked for, as Kafka's admin client checks.
  if (r->markers.size() != 1 || r->markers[0].producer_id != spec.producer_id ||
      r->markers[0].topics.size() != 1 || r->markers[0].topics[0].name != spec.topic ||
      r->markers[0].topics[0].partitions.size() != 1 ||
      r->markers[0].topics[0].partitions[0].partition_index != spec.partition) {
    return fail(
        CommandError{"WriteTxnMarkers response included unexpected entries (expected "
                     "exactly one for producer " +
                     std::to_string(spec.producer_id) + " and partition " +
                     partition_text({spec.topic, spec.partition}) + ")"});
  }
  return r->markers[0].topics[0].partitions[0].error_code;
}

}  // namespace strata::tools

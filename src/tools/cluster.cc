#include "tools/cluster.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "protocol/apis/find_coordinator.h"
#include "protocol/apis/list_offsets.h"

namespace strata::tools {

using namespace protocol;

namespace {

constexpr int8_t kGroupKeyType = 0;
constexpr auto kCoordinatorRetry = std::chrono::milliseconds(100);

// Asks one leader for `timestamp` of each of its partitions and stores the answers.
void ask_leader(KafkaClient& client, const TopicPartitions& partitions, int64_t timestamp,
                std::map<PartitionKey, OffsetAnswer>& into) {
  ListOffsetsRequest request;
  request.replica_id = -1;
  for (const auto& [topic, ids] : partitions) {
    ListOffsetsRequest::Topic t{topic, {}};
    for (int32_t p : ids) t.partitions.push_back({p, -1, timestamp, 1});
    request.topics.push_back(std::move(t));
  }
  const std::optional<int16_t> v = client.version<ListOffsetsRequest>();
  auto r = client.call<ListOffsetsResponse>(request);
  for (const auto& [topic, ids] : partitions) {
    for (int32_t p : ids) into[{topic, p}].error = r ? "?" : r.error().message;
  }
  if (!r) return;
  for (const auto& t : r->topics) {
    for (const auto& p : t.partitions) {
      OffsetAnswer& a = into[{t.name, p.partition_index}];
      if (p.error_code != 0) {
        a.error = kafka_error_name(p.error_code);
      } else if (*v == 0) {
        a = p.old_style_offsets.empty() ? OffsetAnswer{-1, {}}
                                        : OffsetAnswer{p.old_style_offsets[0], {}};
      } else {
        a = OffsetAnswer{p.offset, {}};
      }
    }
  }
}

// Kafka's FindCoordinator answer in either form (one key before v4, a list after).
struct CoordinatorAnswer {
  int16_t error = 0;
  std::optional<std::string> message;
  Node node;
};

Result<CoordinatorAnswer, CommandError> ask_coordinator(KafkaClient& client,
                                                        const std::string& group) {
  FindCoordinatorRequest request;
  request.key = group;
  request.key_type = kGroupKeyType;
  request.coordinator_keys = {group};
  auto r = client.call<FindCoordinatorResponse>(request);
  if (!r) return fail(client_error(r.error()));
  if (*client.version<FindCoordinatorRequest>() < 4) {
    return CoordinatorAnswer{r->error_code, r->error_message, {r->node_id, r->host, r->port}};
  }
  for (const auto& c : r->coordinators) {
    if (c.key == group)
      return CoordinatorAnswer{c.error_code, c.error_message, {c.node_id, c.host, c.port}};
  }
  return fail(CommandError{"FindCoordinator did not answer for group '" + group + "'"});
}

}  // namespace

CommandError client_error(const ClientError& e) {
  return CommandError{e.message};
}

CommandError kafka_error(int16_t code, const std::optional<std::string>& message) {
  std::string text = kafka_error_name(code);
  if (message && !message->empty()) text += ": " + *message;
  return CommandError{std::move(text)};
}

std::string partition_text(const PartitionKey& p) {
  return p.first + "-" + std::to_string(p.second);
}

Result<KafkaClient, CommandError> connect_bootstrap(const std::string& servers, int timeout_ms,
                                                    const std::string& client_id,
                                                    const std::string& command_config) {
  client::ConnectOptions how{timeout_ms, timeout_ms, client_id, nullptr};
  if (!command_config.empty()) {
    auto security = client::load_client_security(command_config);
    if (!security) return fail(CommandError{"--command-config: " + security.error()});
    how.security = std::move(*security);
  }
  std::string errors;
  std::string_view rest = servers;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view one = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
    auto at = parse_host_port(one);
    if (!at) return fail(CommandError{"--bootstrap-server: " + at.error()});
    auto client = KafkaClient::connect(*at, how);
    if (client) return Result<KafkaClient, CommandError>(std::move(*client));
    // A refusal by TLS or SASL is the same at every broker: say it, do not try the rest.
    if (client.error().kind == ClientError::Kind::kAuthentication) return fail(client_error(client.error()));
    errors += (errors.empty() ? "" : "; ") + client.error().message;
  }
  return fail(CommandError{errors.empty() ? "--bootstrap-server is empty" : errors});
}

Result<MetadataResponse, CommandError> all_topics(KafkaClient& client) {
  MetadataRequest request;
  const std::optional<int16_t> v = client.version<MetadataRequest>();
  if (v && *v >= 1) request.topics.reset();  // v1+: null is all, empty is none
  request.allow_auto_topic_creation = false;
  auto r = client.call<MetadataResponse>(request);
  if (!r) return fail(client_error(r.error()));
  return std::move(*r);
}

std::map<PartitionKey, OffsetAnswer> list_offsets(const MetadataResponse& metadata,
                                                  const TopicPartitions& partitions,
                                                  int64_t timestamp,
                                                  const client::ConnectOptions& how) {
  std::map<int32_t, TopicPartitions> by_leader;
  std::map<PartitionKey, OffsetAnswer> result;
  for (const auto& [topic, ids] : partitions) {
    const auto t = std::find_if(metadata.topics.begin(), metadata.topics.end(),
                                [&](const auto& m) { return m.name && *m.name == topic; });
    for (int32_t id : ids) {
      const MetadataResponse::Partition* p = nullptr;
      if (t != metadata.topics.end()) {
        for (const auto& candidate : t->partitions) {
          if (candidate.partition_index == id) p = &candidate;
        }
      }
      if (p == nullptr) {
        result[{topic, id}].error = kafka_error_name(kafka_error::kUnknownTopicOrPartition);
      } else if (p->leader_id < 0) {
        result[{topic, id}].error = kafka_error_name(kafka_error::kLeaderNotAvailable);
      } else {
        by_leader[p->leader_id][topic].push_back(id);
      }
    }
  }
  for (const auto& [leader, owned] : by_leader) {
    const int32_t node = leader;  // (clang 14 cannot capture a structured binding)
    const auto broker = std::find_if(metadata.brokers.begin(), metadata.brokers.end(),
                                     [node](const auto& b) { return b.node_id == node; });
    std::string error = "BROKER_NOT_AVAILABLE";
    if (broker != metadata.brokers.end()) {
      auto client = KafkaClient::connect({broker->host, uint16_t(broker->port)}, how);
      if (client) {
        ask_leader(*client, owned, timestamp, result);
        continue;
      }
      error = client.error().message;
    }
    for (const auto& [topic, ids] : owned) {
      for (int32_t p : ids) result[{topic, p}].error = error;
    }
  }
  return result;
}

Result<Node, CommandError> find_group_coordinator(KafkaClient& client, const std::string& group,
                                                  int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto a = ask_coordinator(client, group);
    if (!a) return fail(a.error());
    if (a->error == 0) return a->node;
    const bool retriable = a->error == kafka_error::kCoordinatorNotAvailable ||
                           a->error == kafka_error::kCoordinatorLoadInProgress;
    if (!retriable || std::chrono::steady_clock::now() + kCoordinatorRetry > deadline) {
      return fail(kafka_error(a->error, a->message));
    }
    std::this_thread::sleep_for(kCoordinatorRetry);
  }
}

}  // namespace strata::tools

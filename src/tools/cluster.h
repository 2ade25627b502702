// What the admin commands (`strata topic`, `strata group`) ask of a cluster through
// KafkaClient: a bootstrap connection, Metadata, ListOffsets sent to each partition's
// leader, and the coordinator of a consumer group. Errors are CommandError values whose
// message is what the command prints after its error prefix. Single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "protocol/apis/metadata.h"
#include "client/kafka_client.h"

namespace strata::tools {

// The client (src/client) under the names the commands use.
using client::ClientError;
using client::HostPort;
using client::KafkaClient;
using client::api_name;
using client::kafka_error_name;
using client::parse_host_port;

struct CommandError {
  std::string message;
};
using Status = Result<void, CommandError>;

CommandError client_error(const ClientError& e);
// "NAME: message": Kafka's name for the code and the broker's text if it sent one.
CommandError kafka_error(int16_t code, const std::optional<std::string>& message = std::nullopt);

inline constexpr int64_t kEarliestTimestamp = -2;  // ListOffsets' special timestamps
inline constexpr int64_t kLatestTimestamp = -1;

using PartitionKey = std::pair<std::string, int32_t>;  // (topic, partition)
using TopicPartitions = std::map<std::string, std::vector<int32_t>>;

// "topic-partition", as Kafka's TopicPartition prints.
std::string partition_text(const PartitionKey& p);

// Connects to the first of the comma-separated HOST:PORT addresses that answers, with the
// security settings of the properties file `command_config` (--command-config; empty:
// PLAINTEXT). Later connections to other brokers reuse the answer's options().
Result<KafkaClient, CommandError> connect_bootstrap(const std::string& servers, int timeout_ms,
                                                    const std::string& client_id,
                                                    const std::string& command_config);

// Metadata of every topic, creating none.
Result<protocol::MetadataResponse, CommandError> all_topics(KafkaClient& client);

// One partition's ListOffsets answer: the offset (-1 when the log has none for the
// timestamp), or, when `error` is set, why there is no answer.
struct OffsetAnswer {
  int64_t offset = -1;
  std::optional<std::string> error;
};

// ListOffsets for `timestamp` (kEarliestTimestamp, kLatestTimestamp, or wall-clock ms)
// of each partition, asked of its leader, one connection per leader (made as `how`
// says). Every partition asked for has an entry; one Metadata does not name has the
// error UNKNOWN_TOPIC_OR_PARTITION.
std::map<PartitionKey, OffsetAnswer> list_offsets(const protocol::MetadataResponse& metadata,
                                                  const TopicPartitions& partitions,
                                                  int64_t timestamp,
                                                  const client::ConnectOptions& how);

// A broker as Metadata or FindCoordinator names it.
struct Node {
  int32_t id = -1;
  std::string host;
  int32_t port = 0;
};

// The coordinator of consumer group `group`, asked through `client`; retried every
// 100 ms while the broker answers COORDINATOR_NOT_AVAILABLE or
// COORDINATOR_LOAD_IN_PROGRESS, for at most `timeout_ms`.
Result<Node, CommandError> find_group_coordinator(KafkaClient& client, const std::string& group,
                                                  int timeout_ms);

}  // namespace strata::tools

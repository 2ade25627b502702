// What the web console asks of the cluster, as a Kafka client (client/kafka_client.h):
// Metadata from the broker it was given, ListOffsets, DescribeConfigs and Fetch from
// each partition's leader, ListGroups from every broker, DescribeGroups and OffsetFetch
// from a group's coordinator. The console sees exactly what a client with the same
// credentials sees, on whichever broker a partition lives.
//
// Blocking, one ClusterReader per HTTP request (its connections close with it); every
// call is bounded by the connect options' timeouts. Errors are text for the page.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "client/kafka_client.h"
#include "common/result.h"
#include "protocol/apis/describe_configs.h"
#include "protocol/apis/consumer_group_describe.h"
#include "protocol/apis/describe_groups.h"
#include "protocol/apis/fetch.h"
#include "protocol/apis/metadata.h"

namespace strata::console {

struct Watermarks {
  int64_t log_start = -1;
  int64_t high = -1;
  std::optional<std::string> error;  // why the leader gave none
};

// One Fetch answer for one partition: the record batches as the log holds them (from
// the batch holding the offset asked for), plus the partition's figures.
struct FetchedPartition {
  int64_t high_watermark = -1;
  int64_t last_stable_offset = -1;
  int64_t log_start_offset = -1;
  std::vector<protocol::FetchResponse::AbortedTransaction> aborted;
  std::vector<uint8_t> records;  // a copy of the RECORDS bytes (whole batches, maybe a cut tail)
};

// Kafka's name for `code`, then the broker's message if it sent one: "TOPIC_ALREADY_EXISTS:
// Topic 'x' already exists." (api.cc maps the name to an HTTP status).
std::string kafka_text(int16_t code, const std::optional<std::string>& message = std::nullopt);

struct GroupListing {
  std::string group;
  std::string protocol_type;
  std::string state;
};

struct GroupOffset {
  std::string topic;
  int32_t partition = 0;
  int64_t committed = -1;
};

class ClusterReader {
 public:
  // Connects to `bootstrap` ("host:port") as `options` says.
  // ClientError::Kind::kAuthentication when the cluster refused the login.
  static Result<ClusterReader, client::ClientError> connect(const std::string& bootstrap,
                                                            const client::ConnectOptions& options);

  // The brokers and the named topics (none: the brokers only); never creates a topic.
  Result<protocol::MetadataResponse, std::string> metadata(const std::vector<std::string>& topics);
  // The brokers and every topic.
  Result<protocol::MetadataResponse, std::string> all_topics();
  // Earliest and latest offsets of each partition Metadata named, asked of its leader:
  // two ListOffsets per leader. A partition without an answer has `error` set (a broker
  // that could not be reached is not tried again within this reader).
  // `only`: that partition alone (of the first topic Metadata named).
  std::map<std::pair<std::string, int32_t>, Watermarks> watermarks(const protocol::MetadataResponse& metadata,
                                                                    std::optional<int32_t> only = std::nullopt);
  // The first offset with a timestamp at or after `timestamp_ms` (-1: none).
  Result<int64_t, std::string> offset_for_time(const protocol::MetadataResponse& metadata, const std::string& topic,
                                               int32_t partition, int64_t timestamp_ms);
  // The bytes of each replica of the topics Metadata named, by (topic, partition,
  // broker), from DescribeLogDirs sent to every broker (one that does not answer leaves
  // its replicas out).
  std::map<std::tuple<std::string, int32_t, int32_t>, int64_t> replica_sizes(const protocol::MetadataResponse& metadata);
  // A topic's configs as DescribeConfigs gives them.
  Result<std::vector<protocol::DescribeConfigsResponse::Config>, std::string> topic_configs(const std::string& topic);
  // Fetch (read_uncommitted: every batch, aborted ones and markers too) of at most
  // `max_bytes` from `offset`, asked of the partition's leader.
  Result<FetchedPartition, std::string> fetch(const protocol::MetadataResponse& metadata, const std::string& topic,
                                              int32_t partition, int64_t offset, int32_t max_bytes);
  // Every group every broker lists (a broker that cannot be reached fails the list).
  Result<std::vector<GroupListing>, std::string> groups(const protocol::MetadataResponse& metadata);
  // DescribeGroups and OffsetFetch of `group`, at its coordinator.
  Result<protocol::DescribeGroupsResponse::Group, std::string> describe_group(const std::string& group);
  // ConsumerGroupDescribe of `group` at its coordinator: nullopt when it is not a
  // consumer-protocol group (KIP-848; GROUP_ID_NOT_FOUND) or the broker lacks the API,
  // which leaves DescribeGroups to describe it.
  Result<std::optional<protocol::ConsumerGroupDescribeResponse::Group>, std::string> describe_consumer_group(
      const std::string& group);
  Result<std::vector<GroupOffset>, std::string> group_offsets(const std::string& group);

  // The connection to the broker it was given, and one to a group's coordinator (for
  // cluster_admin.h's writes). The coordinator is asked once per group and reader: a
  // group page's describe and offset reads share the answer.
  client::KafkaClient& bootstrap() { return bootstrap_; }
  Result<client::KafkaClient*, std::string> coordinator(const std::string& group);

 private:
  explicit ClusterReader(client::KafkaClient bootstrap) : bootstrap_(std::move(bootstrap)) {}
  // A connection to broker `node` (as Metadata names it), made once per reader.
  Result<client::KafkaClient*, std::string> broker(const protocol::MetadataResponse& metadata, int32_t node);
  Result<client::KafkaClient*, std::string> at(const std::string& host, int32_t port);
  Result<client::KafkaClient*, std::string> find_coordinator(const std::string& group);  // FindCoordinator
  Result<client::KafkaClient*, std::string> leader_of(const protocol::MetadataResponse& metadata,
                                                      const std::string& topic, int32_t partition);

  client::KafkaClient bootstrap_;
  std::map<std::pair<std::string, int32_t>, client::KafkaClient> by_address_;  // (host, port)
  std::map<std::pair<std::string, int32_t>, std::string> unreachable_;        // why not, once failed
  std::map<std::string, client::KafkaClient*> coordinators_;                  // group -> in by_address_
};

}  // namespace strata::console

// DescribeConfigs: the effective configs of topics (every topic config Strata knows,
// with its source: a topic override, a static broker setting, or Kafka's default), of
// this broker (its settings under Kafka's names, read-only but for the dynamic ones,
// which show a dynamic override's value and source), and of the default entity "" (its
// dynamic overrides only, as Kafka's). Synonyms and documentation when asked for.
// Errors: INVALID_TOPIC_EXCEPTION, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST (a broker
// name that is not this node, or an unsupported resource type).
#include <algorithm>
#include <cassert>
#include <charconv>

#include "broker/handlers/authorize.h"
#include "broker/config_admin.h"
#include "broker/dynamic_configs.h"
#include "cluster/keys.h"
#include "broker/errors.h"
#include "broker/handlers/handlers.h"
#include "storage/checkpoint.h"

namespace strata::broker {

using protocol::DescribeConfigsRequest;
using protocol::DescribeConfigsResponse;

namespace {

using Config = DescribeConfigsResponse::Config;
using Synonym = DescribeConfigsResponse::Synonym;

struct Options {
  bool synonyms = false;
  bool documentation = false;
};

// One config: its source is that of its first synonym (the one in force), as Kafka's.
Config make_config(const std::string& name, std::optional<std::string> value, int8_t type,
                   std::vector<Synonym> synonyms, bool read_only, const char* doc,
                   const Options& opts) {
  Config c;
  c.name = name;
  c.value = std::move(value);
  c.config_source = synonyms.empty() ? config_source::kDefault : synonyms.front().source;
  c.is_default = c.config_source == config_source::kDefault;  // v0's view of the source
  c.read_only = read_only;
  c.is_sensitive = false;
  if (opts.synonyms) c.synonyms = std::move(synonyms);
  c.config_type = type;
  if (opts.documentation) {
    c.documentation = doc;
  } else {
    c.documentation.reset();
  }
  return c;
}

// A null or empty key list means every config.
bool wanted(const DescribeConfigsRequest::Resource& r, const std::string& name) {
  if (!r.configuration_keys || r.configuration_keys->empty()) return true;
  const auto& keys = *r.configuration_keys;
  return std::find(keys.begin(), keys.end(), name) != keys.end();
}

DescribeConfigsResponse::Result failed(int16_t code, std::optional<std::string> message) {
  DescribeConfigsResponse::Result out;
  out.error_code = code;
  out.error_message = std::move(message);
  return out;
}

DescribeConfigsResponse::Result describe_topic(Broker& broker,
                                               const DescribeConfigsRequest::Resource& r,
                                               const Options& opts) {
  const std::string& topic = r.resource_name;
  if (!storage::valid_topic_name(topic)) {
    return failed(kafka_error::kInvalidTopic, "Topic name \"" + topic + "\" is illegal");
  }
  const std::optional<TopicInfo> info = broker.topics().get(topic);
  if (!info) return failed(kafka_error::kUnknownTopicOrPartition, "");
  static const storage::LogConfig kKafkaDefaults;
  const storage::LogConfig& broker_defaults = broker.config().log_defaults;
  const storage::LogConfig effective = broker.log_config_for(topic);
  DescribeConfigsResponse::Result out;
  for (const TopicConfigKey& key : topic_config_keys()) {
    if (!wanted(r, key.name)) continue;
    const std::string value = key.value(effective);
    std::vector<Synonym> synonyms;
    if (info->configs.count(key.name)) synonyms.push_back({key.name, value, config_source::kTopic});
    const std::string static_value = key.value(broker_defaults);
    const std::string default_value = key.value(kKafkaDefaults);
    if (static_value != default_value) {
      synonyms.push_back({key.broker_name, static_value, config_source::kStaticBroker});
    }
    if (key.broker_default_listed) {
      synonyms.push_back({key.broker_name, default_value, config_source::kDefault});
    }
    out.configs.push_back(
        make_config(key.name, value, key.type, std::move(synonyms), false, key.doc, opts));
  }
  return out;
}

struct BrokerEntry {
  const char* name;
  std::optional<std::string> value;
  int8_t type;
  const char* doc;
};

std::string listener(const std::string& host, uint16_t port) {
  return "PLAINTEXT://" + host + ":" + std::to_string(port);
}

// The broker's settings under Kafka's names, in name order.
std::vector<BrokerEntry> broker_entries(const BrokerConfig& c) {
  using namespace config_type;
  const storage::LogConfig& l = c.log_defaults;
  auto s = [](int64_t v) { return std::optional<std::string>(std::to_string(v)); };
  std::optional<std::string> advertised;
  if (!c.advertised_host.empty() || c.advertised_port != 0) {
    advertised = listener(c.advertised_host_or_listener(), c.advertised_port_or_listener());
  }
  return {
      {"advertised.listeners", advertised, kString, "Listeners to publish to clients."},
      {"auto.create.topics.enable", c.auto_create_topics_enable ? "true" : "false", kBoolean,
       "Enable auto creation of topics on the server."},
      {"auto.leader.rebalance.enable", c.auto_leader_rebalance_enable ? "true" : "false", kBoolean,
       "The controller moves leaderships back to preferred replicas when imbalanced."},
      {"broker.id", s(c.node_id), kInt, "The broker id (the same as node.id)."},
      {"broker.rack", c.broker_rack.empty() ? std::nullopt : std::optional<std::string>(c.broker_rack),
       kString, "Rack of the broker, used in rack-aware replica placement."},
      {"compression.type", l.compression_type, kString,
       "The default final compression of topics; producer keeps the producer's codec."},
      {"controlled.shutdown.enable", c.controlled_shutdown_enable ? "true" : "false", kBoolean,
       "A clean shutdown in a cluster first moves its leaderships to other ISR members."},
      {"default.replication.factor", s(c.default_replication_factor), kInt,
       "The default replication factor for automatically created topics."},
      {"etcd.connect", c.etcd_connect.empty() ? std::nullopt : std::optional<std::string>(c.etcd_connect),
       kString, "Strata: the cluster's etcd (host:port[,host:port...][/chroot]); none: one node."},
      {"etcd.connection.timeout.ms", s(c.etcd_connection_timeout_ms), kInt,
       "Strata: the longest one etcd request may take, connect included."},
      {"etcd.session.timeout.ms", s(c.etcd_session_timeout_ms), kInt,
       "Strata: the registration lease's TTL; a broker silent for longer leaves the cluster."},
      {"follower.replication.throttled.rate", s(c.follower_replication_throttled_rate), kLong,
       "The bytes per second a reassignment's new replicas on this broker may fetch."},
      {"leader.imbalance.check.interval.seconds", s(c.leader_imbalance_check_interval_seconds), kInt,
       "How often the controller checks the leader imbalance."},
      {"leader.imbalance.per.broker.percentage", s(c.leader_imbalance_per_broker_percentage), kInt,
       "The share of a broker's preferred partitions led elsewhere that triggers a rebalance."},
      {"leader.replication.throttled.rate", s(c.leader_replication_throttled_rate), kLong,
       "The bytes per second this broker, leading, may send to a reassignment's new replicas."},
      {"listeners", listener(c.listener_host, c.listener_port), kString,
       "The listener the broker serves on."},
      {"log.cleanup.policy", l.cleanup_policy, kList, "The default cleanup policy of topics."},
      {"log.dirs", c.log_dir, kString, "The directory in which the log data is kept."},
      {"log.flush.interval.messages", s(l.flush_messages), kLong,
       "The number of messages accumulated on a partition before they are flushed to disk."},
      {"log.flush.interval.ms", s(l.flush_ms), kLong,
       "The maximum time a message stays in memory before it is flushed to disk."},
      {"log.index.interval.bytes", s(l.index_interval_bytes), kInt,
       "The interval with which an entry is added to the offset index."},
      {"log.index.size.max.bytes", s(l.segment_index_bytes), kInt,
       "The maximum size in bytes of the offset index."},
      {"log.message.timestamp.type", l.message_timestamp_type, kString,
       "Whether record timestamps are CreateTime or LogAppendTime."},
      {"log.retention.bytes", s(l.retention_bytes), kLong,
       "The maximum size of a partition before old segments are deleted."},
      {"log.retention.check.interval.ms", s(c.log_retention_check_interval_ms), kLong,
       "How often the log cleaner checks for logs eligible for deletion."},
      {"log.retention.ms", s(l.retention_ms), kLong,
       "How long a log file is kept before it is deleted."},
      {"log.roll.ms", s(l.segment_ms), kLong,
       "The maximum time before a new log segment is rolled out."},
      {"log.segment.bytes", s(l.segment_bytes), kInt, "The maximum size of a single log file."},
      {"log.segment.delete.delay.ms", s(l.file_delete_delay_ms), kLong,
       "How long to wait before deleting a file from the filesystem."},
      {"max.connections", s(c.max_connections), kInt,
       "The maximum number of connections the broker allows."},
      {"message.max.bytes", s(c.message_max_bytes), kInt, "The largest record batch size allowed."},
      {"min.insync.replicas", s(l.min_insync_replicas), kInt,
       "The in-sync replicas an acks=all produce needs."},
      {"node.id", s(c.node_id), kInt, "The node id of this server."},
      {"num.partitions", s(c.num_partitions), kInt, "The default number of partitions per topic."},
      {"num.replica.fetchers", s(c.num_replica_fetchers), kInt,
       "Fetcher threads per leader broker a follower fetches from."},
      {"replica.lag.time.max.ms", s(c.replica_lag_time_max_ms), kLong,
       "A follower not caught up with the leader for this long leaves the ISR."},
      {"request.timeout.ms", s(c.request_timeout_ms), kInt,
       "How long a request to another broker may wait for each read and write."},
      {"socket.connection.setup.timeout.ms", s(c.socket_connection_setup_timeout_ms), kLong,
       "How long a connection to another broker may take to set up."},
      {"socket.request.max.bytes", s(c.socket_request_max_bytes), kInt,
       "The maximum number of bytes in a socket request."},
      {"strata.replica.fsync", c.replica_fsync ? "true" : "false", kBoolean,
       "Strata: a follower fdatasyncs what it appended before its next fetch counts it."},
      {"strata.shards", s(c.shards), kInt,
       "Strata: the number of shards (threads); 0 means one per core."},
      {"unclean.leader.election.enable", l.unclean_leader_election_enable ? "true" : "false", kBoolean,
       "Whether a replica outside the ISR may be elected leader when no in-sync one is alive, losing data."},
  };
}

DescribeConfigsResponse::Result describe_broker(const Broker& broker,
                                                const DescribeConfigsRequest::Resource& r,
                                                const Options& opts) {
  const std::string& name = r.resource_name;
  const int32_t node = broker.config().node_id;
  // "" names the cluster-wide dynamic defaults: those set, and nothing else.
  if (name.empty()) {
    DescribeConfigsResponse::Result out;
    for (const auto& [key, value] : broker.dynamic_configs().entry(std::string(cluster::Keys::kDefaultEntity)).values) {
      if (!is_dynamic_broker_key(key) || !parse_dynamic_value(key, value) || !wanted(r, key)) continue;
      out.configs.push_back(make_config(key, value, config_type::kLong,
                                        {{key, value, config_source::kDynamicDefault}}, false, "", opts));
    }
    return out;
  }
  int32_t id = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
  if (ec != std::errc() || end != name.data() + name.size()) {
    return failed(kafka_error::kInvalidRequest, "Broker id must be an integer, but it is: " + name);
  }
  if (id != node) {
    return failed(kafka_error::kInvalidRequest, "Unexpected broker id, expected " +
                                                    std::to_string(node) +
                                                    " or empty string, but received " + name);
  }
  const std::vector<BrokerEntry> current = broker_entries(broker.config());
  const std::vector<BrokerEntry> defaults = broker_entries(BrokerConfig{});
  assert(current.size() == defaults.size());
  DescribeConfigsResponse::Result out;
  for (size_t i = 0; i < current.size(); ++i) {
    const BrokerEntry& e = current[i];
    if (!wanted(r, e.name)) continue;
    std::vector<Synonym> synonyms;
    const bool dynamic = is_dynamic_broker_key(e.name);
    std::optional<std::string> value = e.value;
    if (dynamic && broker.in_cluster()) {  // Kafka's order: per broker, default entity, static, default
      const auto& d = broker.dynamic_configs();
      for (const auto& [entity, source] : {std::pair{std::to_string(node), config_source::kDynamicBroker},
                                           std::pair{std::string(cluster::Keys::kDefaultEntity),
                                                     config_source::kDynamicDefault}}) {
        const auto values = d.entry(entity).values;
        auto it = values.find(e.name);
        if (it != values.end() && parse_dynamic_value(e.name, it->second)) synonyms.push_back({e.name, it->second, source});
      }
      if (!synonyms.empty()) value = synonyms.front().value;
    }
    if (e.value != defaults[i].value) {
      synonyms.push_back({e.name, e.value, config_source::kStaticBroker});
    }
    if (defaults[i].value) synonyms.push_back({e.name, defaults[i].value, config_source::kDefault});
    out.configs.push_back(make_config(e.name, std::move(value), e.type, std::move(synonyms),
                                      !(dynamic && broker.in_cluster()), e.doc, opts));
  }
  return out;
}

}  // namespace

asio::awaitable<DescribeConfigsResponse> handle_describe_configs(Broker& broker,
                                                                 RequestContext& ctx,
                                                                 DescribeConfigsRequest& request) {
  DescribeConfigsResponse response;
  const int16_t version = ctx.header.api_version;
  // v0 has no include_synonyms and answers without them.
  const Options opts{version >= 1 && request.include_synonyms,
                     version >= 3 && request.include_documentation};
  for (const auto& r : request.resources) {
    DescribeConfigsResponse::Result out;
    // Kafka's check: DESCRIBE_CONFIGS on the topic or the cluster.
    if (auto code = config_denied(broker, ctx, AclOperation::kDescribeConfigs, r.resource_type, r.resource_name)) {
      out = failed(*code, std::nullopt);
    } else if (r.resource_type == config_resource::kTopic) {
      out = describe_topic(broker, r, opts);
    } else if (r.resource_type == config_resource::kBroker) {
      out = describe_broker(broker, r, opts);
    } else {
      out = failed(kafka_error::kInvalidRequest,
                   "Unsupported resource type: " + std::to_string(int(r.resource_type)));
    }
    out.resource_type = r.resource_type;
    out.resource_name = r.resource_name;
    response.results.push_back(std::move(out));
  }
  co_return response;
}

}  // namespace strata::broker

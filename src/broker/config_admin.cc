#include "broker/config_admin.h"

#include "broker/fan_out.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <mutex>

#include "broker/dynamic_configs.h"
#include "cluster/keys.h"
#include "storage/checkpoint.h"

namespace strata::broker {

namespace {

using storage::LogConfig;

std::string str(int64_t v) {
  return std::to_string(v);
}

// Shortest round-trip text, as Java prints a double ("0.5", "0.01").
std::string str_double(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  std::string out(buf, ec == std::errc() ? end : buf);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string joined(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

}  // namespace

const std::vector<TopicConfigKey>& topic_config_keys() {
  using namespace config_type;
  // Types, synonyms and defaults as Kafka's LogConfig and ServerTopicConfigSynonyms.
  static const std::vector<TopicConfigKey> keys = {
      {"cleanup.policy", kList, "log.cleanup.policy", true,
       [](const LogConfig& c) { return c.cleanup_policy; },
       "The retention policy of old log segments: delete, compact, or both."},
      {"compression.type", kString, "compression.type", true,
       [](const LogConfig& c) { return c.compression_type; },
       "The final compression of the topic's batches; producer keeps the producer's codec."},
      {"delete.retention.ms", kLong, "log.cleaner.delete.retention.ms", true,
       [](const LogConfig& c) { return str(c.delete_retention_ms); },
       "How long tombstones and transaction markers are kept after a compaction first sees them."},
      {"file.delete.delay.ms", kLong, "log.segment.delete.delay.ms", true,
       [](const LogConfig& c) { return str(c.file_delete_delay_ms); },
       "How long to wait before deleting a file from the filesystem."},
      {"flush.messages", kLong, "log.flush.interval.messages", true,
       [](const LogConfig& c) { return str(c.flush_messages); },
       "Force an fsync of the log after this many messages."},
      {"flush.ms", kLong, "log.flush.interval.ms", false,
       [](const LogConfig& c) { return str(c.flush_ms); },
       "Force an fsync of the log after this much time."},
      {"index.interval.bytes", kInt, "log.index.interval.bytes", true,
       [](const LogConfig& c) { return str(c.index_interval_bytes); },
       "How often (in log bytes) an offset index entry is added."},
      {"max.compaction.lag.ms", kLong, "log.cleaner.max.compaction.lag.ms", true,
       [](const LogConfig& c) { return str(c.max_compaction_lag_ms); },
       "The longest a record may stay uncompacted."},
      {"max.message.bytes", kInt, "message.max.bytes", true,
       [](const LogConfig& c) { return str(c.max_message_bytes); },
       "The largest record batch size allowed."},
      {"message.timestamp.type", kString, "log.message.timestamp.type", true,
       [](const LogConfig& c) { return c.message_timestamp_type; },
       "Whether record timestamps are CreateTime or LogAppendTime."},
      {"min.cleanable.dirty.ratio", kDouble, "log.cleaner.min.cleanable.ratio", true,
       [](const LogConfig& c) { return str_double(c.min_cleanable_dirty_ratio); },
       "The dirty share of the log above which the cleaner compacts it."},
      {"min.compaction.lag.ms", kLong, "log.cleaner.min.compaction.lag.ms", true,
       [](const LogConfig& c) { return str(c.min_compaction_lag_ms); },
       "The least time a record stays uncompacted."},
      {"min.insync.replicas", kInt, "min.insync.replicas", true,
       [](const LogConfig& c) { return str(c.min_insync_replicas); },
       "The in-sync replicas an acks=all produce needs."},
      {"retention.bytes", kLong, "log.retention.bytes", true,
       [](const LogConfig& c) { return str(c.retention_bytes); },
       "The maximum size a partition can grow to before old segments are deleted (-1: no limit)."},
      {"retention.ms", kLong, "log.retention.ms", false,
       [](const LogConfig& c) { return str(c.retention_ms); },
       "How long a segment is retained before it is deleted (-1: no limit)."},
      {"segment.bytes", kInt, "log.segment.bytes", true,
       [](const LogConfig& c) { return str(c.segment_bytes); },
       "The segment file size of the log."},
      {"segment.index.bytes", kInt, "log.index.size.max.bytes", true,
       [](const LogConfig& c) { return str(c.segment_index_bytes); },
       "The size of the index that maps offsets to file positions."},
      {"segment.ms", kLong, "log.roll.ms", false,
       [](const LogConfig& c) { return str(c.segment_ms); },
       "The time after which a new segment is rolled even if the current one is not full."},
      {"unclean.leader.election.enable", kBoolean, "unclean.leader.election.enable", true,
       [](const LogConfig& c) { return std::string(c.unclean_leader_election_enable ? "true" : "false"); },
       "Whether a replica outside the ISR may be elected leader when no in-sync one is alive, losing data."},
  };
  return keys;
}

const TopicConfigKey* find_topic_config_key(const std::string& name) {
  for (const TopicConfigKey& k : topic_config_keys()) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    std::string part = s.substr(start, comma - start);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    if (!part.empty()) parts.push_back(std::move(part));
    start = comma + 1;
  }
  return parts;
}

std::string join_list(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::optional<ApiError> null_values_error(const std::vector<std::string>& names) {
  if (names.empty()) return std::nullopt;
  return ApiError{kafka_error::kInvalidRequest, "Null value not supported for : " + joined(names)};
}

asio::awaitable<ApiError> alter_broker_configs(Broker& broker, const std::string& name,
                                               const std::vector<std::string>& keys, const OverridesEdit& edit,
                                               bool validate_only) {
  // As Kafka's ConfigAdminManager.validateResourceNameIsCurrentNodeId.
  if (!name.empty()) {
    int32_t id = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (ec != std::errc() || end != name.data() + name.size()) {
      co_return ApiError{kafka_error::kInvalidRequest, "Node id must be an integer, but it is: " + name};
    }
    if (id != broker.config().node_id) {
      co_return ApiError{kafka_error::kInvalidRequest, "Unexpected broker id, expected " +
                                                           std::to_string(broker.config().node_id) +
                                                           ", but received " + name};
    }
  }
  std::vector<std::string> fixed;
  for (const std::string& k : keys) {
    if (!is_dynamic_broker_key(k)) fixed.push_back(k);
  }
  auto refuse = [](const std::vector<std::string>& names, const std::string& why) {
    return ApiError{kafka_error::kInvalidRequest, "Cannot update these configs dynamically: Set(" + joined(names) +
                                                      ")" + why};
  };
  if (!fixed.empty()) co_return refuse(fixed, "");
  // The entity as its key names it ("03" is broker 3); the overrides and the revision
  // to compare with come from one view.
  const std::string entity = name.empty() ? std::string(cluster::Keys::kDefaultEntity)
                                          : std::to_string(broker.config().node_id);
  const DynamicBrokerConfigs::Entry current = broker.dynamic_configs().entry(entity);
  std::map<std::string, std::string> overrides = current.values;
  if (auto bad = edit(overrides)) co_return *bad;
  for (const auto& [k, v] : overrides) {
    if (!is_dynamic_broker_key(k)) continue;  // another Strata's key: left as it is
    if (auto bad = parse_dynamic_value(k, v); !bad) co_return ApiError{kafka_error::kInvalidConfig, bad.error()};
  }
  if (overrides == current.values) co_return ApiError{};  // nothing to write (a removal of none, say)
  if (!broker.in_cluster()) {
    co_return refuse(keys, " (no etcd.connect: dynamic broker configs live in a cluster's etcd)");
  }
  if (validate_only) co_return ApiError{};
  auto written = co_await broker.alter_broker_configs_in_cluster(entity, current.revision, overrides);
  if (!written) co_return ApiError{written.error().first, written.error().second};
  spdlog::info("altered dynamic configs of broker entity {}", entity);
  co_return ApiError{};
}

asio::awaitable<ApiError> alter_topic_configs(Broker& broker, const std::string& topic,
                                              const OverridesEdit& edit, bool validate_only) {
  if (topic.empty()) {
    co_return ApiError{kafka_error::kInvalidRequest, "Default topic resources are not allowed."};
  }
  if (!storage::valid_topic_name(topic)) {
    co_return ApiError{kafka_error::kInvalidTopic, "Topic name \"" + topic + "\" is illegal"};
  }
  auto guard = co_await broker.admin_lock().lock();
  const std::optional<TopicInfo> info = broker.topics().get(topic);
  std::map<std::string, std::string> overrides;
  if (info) overrides = info->configs;
  if (auto bad = edit(overrides)) co_return *bad;
  // Kafka validates the configs before it checks that the topic exists.
  storage::LogConfig config = broker.config().log_defaults;
  if (auto r = config.apply(overrides); !r) {
    co_return ApiError{kafka_error::kInvalidConfig, r.error()};
  }
  if (!info) {
    co_return ApiError{kafka_error::kUnknownTopicOrPartition,
                       "The topic '" + topic + "' does not exist."};
  }
  if (validate_only) co_return ApiError{};
  if (broker.in_cluster()) {
    { auto released = std::move(guard); }  // applying the view takes the lock
    auto written = co_await broker.alter_configs_in_cluster(topic, overrides);
    if (!written) co_return ApiError{written.error().first, written.error().second};
    co_return ApiError{};
  }
  auto set = co_await broker.blocking([&broker, &topic, &overrides] {
    return broker.topics().set_configs(topic, overrides);
  });
  if (!set) co_return ApiError{kafka_error::kKafkaStorageError, set.error()};
  broker.publish_metadata();
  co_await apply_log_config(broker, *info, config);
  spdlog::info("altered configs of topic {}", topic);
  co_return ApiError{};
}

// Each log takes the new settings on its own shard; requests validate with the
// snapshot's copy, published before.
asio::awaitable<void> apply_log_config(Broker& broker, const TopicInfo& info, const storage::LogConfig& config) {
  std::vector<storage::TopicPartition> tps;
  for (int32_t p = 0; p < info.partitions; ++p) tps.push_back({info.name, PartitionId(p)});
  co_await fan_out(
      broker, tps.size(), [&](size_t i) { return broker.owner_shard(tps[i]); },
      [&broker, &tps, &config, id = info.id](size_t i) {
        storage::Log* log = broker.owned_log(tps[i], id);
        if (log != nullptr) log->set_config(config);
      });
}

}  // namespace strata::broker

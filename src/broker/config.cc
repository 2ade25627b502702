#include "broker/config.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "broker/config_values.h"
#include "broker/metrics.h"
#include "common/ascii.h"

namespace strata::broker {
namespace {

// Kafka's "hostName:100,127.0.0.1:200" (the last ':' splits, so IPv6 addresses work).
Result<void, std::string> parse_per_ip_overrides(
    const std::string& key, const std::string& v,
    std::vector<std::pair<std::string, int32_t>>& out) {
  out.clear();
  size_t at = 0;
  while (at <= v.size()) {
    const size_t comma = std::min(v.find(',', at), v.size());
    const std::string entry = trim_blanks(v.substr(at, comma - at));
    at = comma + 1;
    if (entry.empty()) continue;
    const auto colon = entry.rfind(':');
    if (colon == std::string::npos || colon == 0) return fail(key + ": expected host:count: " + entry);
    int32_t count = 0;
    if (auto r = to_non_negative(key, trim_blanks(entry.substr(colon + 1)), count); !r) return r;
    std::string host = trim_blanks(entry.substr(0, colon));
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    out.emplace_back(std::move(host), count);
  }
  return {};
}

// Kafka's GroupCoordinatorConfig requirements on the consumer protocol's timeouts.
Result<void, std::string> check_consumer_group_settings(const group::GroupConfig& g) {
  auto within = [](const char* name, int32_t v, int32_t lo, int32_t hi) -> Result<void, std::string> {
    if (v < lo || v > hi) {
      return fail(std::string(name) + " must be within its min and max (" + std::to_string(lo) + ".." +
                  std::to_string(hi) + "): " + std::to_string(v));
    }
    return {};
  };
  if (g.consumer_min_session_timeout_ms > g.consumer_max_session_timeout_ms ||
      g.consumer_min_heartbeat_interval_ms > g.consumer_max_heartbeat_interval_ms) {
    return fail(std::string("group.consumer min settings must not exceed their max"));
  }
  if (auto r = within("group.consumer.session.timeout.ms", g.consumer_session_timeout_ms,
                      g.consumer_min_session_timeout_ms, g.consumer_max_session_timeout_ms); !r) {
    return r;
  }
  if (auto r = within("group.consumer.heartbeat.interval.ms", g.consumer_heartbeat_interval_ms,
                      g.consumer_min_heartbeat_interval_ms, g.consumer_max_heartbeat_interval_ms); !r) {
    return r;
  }
  if (g.consumer_heartbeat_interval_ms >= g.consumer_session_timeout_ms) {
    return fail(std::string("group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms"));
  }
  return {};
}

// "a, b,c" -> {"a", "b", "c"}; blanks dropped.
std::vector<std::string> comma_list(const std::string& v) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= v.size()) {
    const size_t comma = std::min(v.find(',', at), v.size());
    std::string item = trim_blanks(v.substr(at, comma - at));
    if (!item.empty()) out.push_back(std::move(item));
    at = comma + 1;
  }
  return out;
}

}  // namespace

Result<void, std::string> BrokerConfig::apply(const std::map<std::string, std::string>& props) {
  using Setter = std::function<Result<void, std::string>(const std::string&, const std::string&)>;
  auto bool_of = [](bool& out) {
    return [&out](const std::string& k, const std::string& v) -> Result<void, std::string> {
      if (v != "true" && v != "false") return fail(k + ": expected true or false: " + v);
      out = v == "true";
      return {};
    };
  };
  // Broker log.* settings map onto topic-config defaults.
  auto topic = [this](const char* name) {
    return [this, name](const std::string&, const std::string& v) {
      return log_defaults.apply({{name, v}});
    };
  };
  auto scaled = [this](const char* name, int64_t factor) {
    return [this, name, factor](const std::string& k, const std::string& v) -> Result<void, std::string> {
      int64_t x = 0;
      if (auto r = to_int(k, v, x); !r) return r;
      return log_defaults.apply({{name, std::to_string(x < 0 ? x : x * factor)}});
    };
  };
  const std::map<std::string, Setter> setters = {
      {"log.dirs", [this](auto&, auto& v) { log_dir = v.substr(0, v.find(',')); return Result<void, std::string>{}; }},
      {"log.dir", [this](auto&, auto& v) { log_dir = v; return Result<void, std::string>{}; }},
      {"node.id", [this](auto& k, auto& v) { return to_int(k, v, node_id); }},
      {"broker.id", [this](auto& k, auto& v) { return to_int(k, v, node_id); }},
      {"broker.rack", [this](auto&, auto& v) { broker_rack = v; return Result<void, std::string>{}; }},
      {"etcd.connect", [this](auto&, auto& v) { etcd_connect = v; return Result<void, std::string>{}; }},
      {"etcd.session.timeout.ms", [this](auto& k, auto& v) {
         return to_at_least(k, v, etcd_session_timeout_ms, 2000, " (etcd's shortest lease)");
       }},
      {"etcd.connection.timeout.ms", [this](auto& k, auto& v) { return to_at_least(k, v, etcd_connection_timeout_ms, 100); }},
      {"request.timeout.ms", [this](auto& k, auto& v) { return to_at_least(k, v, request_timeout_ms, 1); }},
      {"socket.connection.setup.timeout.ms", [this](auto& k, auto& v) {
         return to_at_least(k, v, socket_connection_setup_timeout_ms, 1);
       }},
      {"num.partitions", [this](auto& k, auto& v) { return to_int(k, v, num_partitions); }},
      {"default.replication.factor", [this](auto& k, auto& v) { return to_int(k, v, default_replication_factor); }},
      {"auto.create.topics.enable", bool_of(auto_create_topics_enable)},
      {"min.insync.replicas", [this](auto& k, auto& v) { return log_defaults.apply({{k, v}}); }},
      {"unclean.leader.election.enable", [this](auto& k, auto& v) { return log_defaults.apply({{k, v}}); }},
      {"replica.lag.time.max.ms", [this](auto& k, auto& v) { return to_at_least(k, v, replica_lag_time_max_ms, 1); }},
      {"num.replica.fetchers", [this](auto& k, auto& v) { return to_at_least(k, v, num_replica_fetchers, 1); }},
      {"strata.replica.fsync", bool_of(replica_fsync)},
      {"controlled.shutdown.enable", bool_of(controlled_shutdown_enable)},
      {"auto.leader.rebalance.enable", bool_of(auto_leader_rebalance_enable)},
      {"leader.imbalance.per.broker.percentage", [this](auto& k, auto& v) {
         return to_at_least(k, v, leader_imbalance_per_broker_percentage, 0);
       }},
      {"leader.imbalance.check.interval.seconds", [this](auto& k, auto& v) {
         return to_at_least(k, v, leader_imbalance_check_interval_seconds, 1);
       }},
      {"follower.replication.throttled.rate", [this](auto& k, auto& v) {
         return to_at_least(k, v, follower_replication_throttled_rate, int64_t(0));
       }},
      {"leader.replication.throttled.rate", [this](auto& k, auto& v) {
         return to_at_least(k, v, leader_replication_throttled_rate, int64_t(0));
       }},
      {"message.max.bytes", [this](auto& k, auto& v) -> Result<void, std::string> {
         if (auto r = to_int(k, v, message_max_bytes); !r) return r;
         return log_defaults.apply({{"max.message.bytes", v}});
       }},
      {"socket.request.max.bytes", [this](auto& k, auto& v) { return to_int(k, v, socket_request_max_bytes); }},
      {"max.connections", [this](auto& k, auto& v) { return to_non_negative(k, v, max_connections); }},
      {"max.connections.per.ip", [this](auto& k, auto& v) { return to_non_negative(k, v, max_connections_per_ip); }},
      {"max.connections.per.ip.overrides", [this](auto& k, auto& v) {
         return parse_per_ip_overrides(k, v, max_connections_per_ip_overrides);
       }},
      {"connections.max.idle.ms", [this](auto& k, auto& v) { return to_int(k, v, connections_max_idle_ms); }},
      {"queued.max.request.bytes", [this](auto& k, auto& v) { return to_int(k, v, queued_max_request_bytes); }},
      {"max.incremental.fetch.session.cache.slots",
       [this](auto& k, auto& v) { return to_int(k, v, max_incremental_fetch_session_cache_slots); }},
      {"log.retention.check.interval.ms", [this](auto& k, auto& v) { return to_int(k, v, log_retention_check_interval_ms); }},
      {"strata.shards", [this](auto& k, auto& v) { return to_int(k, v, shards); }},
      {"background.threads", [this](auto& k, auto& v) { return to_int(k, v, blocking_threads); }},
      {"strata.produce.offload.bytes", [this](auto& k, auto& v) { return to_int(k, v, produce_offload_bytes); }},
      {"strata.fetch.sendfile", bool_of(fetch_sendfile)},
      {"strata.metrics.traffic.enable", bool_of(traffic_metrics)},
      {"strata.console.enable", bool_of(console_enabled)},
      {"strata.console.read.only", bool_of(console_read_only)},
      {"strata.max.inflight.requests.per.connection", [this](auto& k, auto& v) -> Result<void, std::string> {
         if (auto r = to_int(k, v, max_inflight_per_connection); !r) return r;
         if (max_inflight_per_connection < 1) return fail(k + " must be at least 1");
         return {};
       }},
      {"metrics.listener", [this](auto&, auto& v) -> Result<void, std::string> {
         metrics_enabled = !v.empty();
         if (!metrics_enabled) return {};
         auto at = parse_metrics_listener(v);
         if (!at) return fail(at.error());
         metrics_host = at->first;
         metrics_port = at->second;
         return {};
       }},
      {"offsets.topic.num.partitions", [this](auto& k, auto& v) { return to_int(k, v, groups.offsets_topic_num_partitions); }},
      {"offsets.topic.replication.factor", [this](auto& k, auto& v) {
         return to_at_least(k, v, groups.offsets_topic_replication_factor, 1);
       }},
      {"offsets.topic.segment.bytes", [this](auto& k, auto& v) { return to_int(k, v, groups.offsets_topic_segment_bytes); }},
      {"offsets.retention.minutes", [this](auto& k, auto& v) { return to_int(k, v, groups.offsets_retention_minutes); }},
      {"offsets.retention.check.interval.ms", [this](auto& k, auto& v) { return to_int(k, v, groups.offsets_retention_check_interval_ms); }},
      {"offset.metadata.max.bytes", [this](auto& k, auto& v) { return to_int(k, v, groups.offset_metadata_max_bytes); }},
      {"group.initial.rebalance.delay.ms", [this](auto& k, auto& v) { return to_int(k, v, groups.group_initial_rebalance_delay_ms); }},
      {"group.min.session.timeout.ms", [this](auto& k, auto& v) { return to_int(k, v, groups.group_min_session_timeout_ms); }},
      {"group.max.session.timeout.ms", [this](auto& k, auto& v) { return to_int(k, v, groups.group_max_session_timeout_ms); }},
      {"group.max.size", [this](auto& k, auto& v) { return to_int(k, v, groups.group_max_size); }},
      {"group.coordinator.rebalance.protocols", [this](auto& k, auto& v) -> Result<void, std::string> {
         groups.rebalance_protocols = comma_list(v);
         for (auto& p : groups.rebalance_protocols) {
           p = ascii_lower(p);
           if (p != "classic" && p != "consumer") {
             return fail(k + ": " + p + " is not a rebalance protocol this broker has (classic, consumer)");
           }
         }
         return {};
       }},
      {"group.consumer.session.timeout.ms", [this](auto& k, auto& v) { return to_int(k, v, groups.consumer_session_timeout_ms); }},
      {"group.consumer.min.session.timeout.ms", [this](auto& k, auto& v) { return to_int(k, v, groups.consumer_min_session_timeout_ms); }},
      {"group.consumer.max.session.timeout.ms", [this](auto& k, auto& v) { return to_int(k, v, groups.consumer_max_session_timeout_ms); }},
      {"group.consumer.heartbeat.interval.ms", [this](auto& k, auto& v) { return to_int(k, v, groups.consumer_heartbeat_interval_ms); }},
      {"group.consumer.min.heartbeat.interval.ms", [this](auto& k, auto& v) { return to_int(k, v, groups.consumer_min_heartbeat_interval_ms); }},
      {"group.consumer.max.heartbeat.interval.ms", [this](auto& k, auto& v) { return to_int(k, v, groups.consumer_max_heartbeat_interval_ms); }},
      {"group.consumer.max.size", [this](auto& k, auto& v) { return to_at_least(k, v, groups.consumer_max_size, 1); }},
      {"group.consumer.assignors", [this](auto& k, auto& v) -> Result<void, std::string> {
         groups.consumer_assignors = comma_list(v);
         if (groups.consumer_assignors.empty()) return fail(k + " must name at least one assignor");
         for (const auto& a : groups.consumer_assignors) {
           if (a != "uniform" && a != "range") {
             return fail(k + ": unknown assignor " + a + " (this broker has uniform and range)");
           }
         }
         return {};
       }},
      {"group.consumer.migration.policy", [this](auto& k, auto& v) -> Result<void, std::string> {
         const std::string p = ascii_lower(v);
         if (p != "bidirectional" && p != "upgrade" && p != "downgrade" && p != "disabled") {
           return fail(k + ": expected bidirectional, upgrade, downgrade or disabled: " + v);
         }
         groups.consumer_migration_policy = p;
         return {};
       }},
      {"log.cleaner.enable", bool_of(cleaner.enable)},
      {"log.cleaner.threads", [this](auto& k, auto& v) { return to_int(k, v, cleaner.threads); }},
      {"log.cleaner.dedupe.buffer.size", [this](auto& k, auto& v) { return to_int(k, v, cleaner.dedupe_buffer_size); }},
      {"log.cleaner.io.buffer.size", [this](auto& k, auto& v) { return to_int(k, v, cleaner.io_buffer_size); }},
      {"log.cleaner.io.buffer.load.factor", [this](auto& k, auto& v) -> Result<void, std::string> {
         char* end = nullptr;
         const double x = std::strtod(v.c_str(), &end);
         if (end != v.c_str() + v.size() || !(x > 0 && x <= 1)) return fail(k + ": expected a ratio in (0, 1]: " + v);
         cleaner.dedupe_buffer_load_factor = x;
         return {};
       }},
      {"log.cleaner.min.cleanable.ratio", topic("min.cleanable.dirty.ratio")},
      {"log.cleaner.delete.retention.ms", topic("delete.retention.ms")},
      {"log.cleaner.min.compaction.lag.ms", topic("min.compaction.lag.ms")},
      {"log.cleaner.max.compaction.lag.ms", topic("max.compaction.lag.ms")},
      {"log.cleaner.backoff.ms", [this](auto& k, auto& v) { return to_int(k, v, cleaner.backoff_ms); }},
      {"transaction.state.log.num.partitions", [this](auto& k, auto& v) { return to_int(k, v, txns.state_log_num_partitions); }},
      {"transaction.state.log.segment.bytes", [this](auto& k, auto& v) { return to_int(k, v, txns.state_log_segment_bytes); }},
      {"transaction.state.log.replication.factor", [this](auto& k, auto& v) {
         return to_at_least(k, v, txns.state_log_replication_factor, 1);
       }},
      {"transaction.state.log.min.isr", [this](auto& k, auto& v) { return to_at_least(k, v, txns.state_log_min_isr, 1); }},
      {"transaction.max.timeout.ms", [this](auto& k, auto& v) { return to_int(k, v, txns.max_timeout_ms); }},
      {"transactional.id.expiration.ms", [this](auto& k, auto& v) { return to_int(k, v, txns.id_expiration_ms); }},
      {"transaction.abort.timed.out.transaction.cleanup.interval.ms", [this](auto& k, auto& v) { return to_int(k, v, txns.abort_timed_out_interval_ms); }},
      {"transaction.remove.expired.transaction.cleanup.interval.ms", [this](auto& k, auto& v) { return to_int(k, v, txns.remove_expired_interval_ms); }},
      {"producer.id.expiration.ms", [this](auto& k, auto& v) { return to_int(k, v, log_defaults.producer_id_expiration_ms); }},
      {"log.segment.bytes", topic("segment.bytes")},
      {"log.roll.ms", topic("segment.ms")},
      {"log.roll.hours", scaled("segment.ms", 3600000)},
      {"log.index.size.max.bytes", topic("segment.index.bytes")},
      {"log.index.interval.bytes", topic("index.interval.bytes")},
      {"log.retention.ms", topic("retention.ms")},
      {"log.retention.minutes", scaled("retention.ms", 60000)},
      {"log.retention.hours", scaled("retention.ms", 3600000)},
      {"log.retention.bytes", topic("retention.bytes")},
      {"log.flush.interval.messages", topic("flush.messages")},
      {"log.flush.interval.ms", topic("flush.ms")},
      {"log.segment.delete.delay.ms", topic("file.delete.delay.ms")},
      {"log.cleanup.policy", topic("cleanup.policy")},
      {"log.message.timestamp.type", topic("message.timestamp.type")},
      {"compression.type", topic("compression.type")},
  };
  // Kafka gives ms precedence over minutes over hours; apply in that order of weakness.
  static const char* const kWeakestFirst[] = {"log.retention.hours", "log.retention.minutes",
                                              "log.retention.ms", "log.roll.hours", "log.roll.ms"};
  std::map<std::string, std::string> rest;
  std::map<std::string, std::string> secure;
  for (const auto& [key, value] : props) (is_security_setting(key) ? secure : rest)[key] = value;
  if (auto r = apply_security_settings(secure, security); !r) return r;
  const ListenerSpec& inter = security.inter_broker();
  listener_host = inter.host;
  listener_port = inter.port;
  for (const ListenerSpec& a : security.advertised) {
    if (a.name == inter.name) {
      advertised_host = a.host;
      advertised_port = a.port;
    }
  }
  for (const char* key : kWeakestFirst) {
    if (auto it = rest.find(key); it != rest.end()) {
      if (auto r = setters.at(key)(it->first, it->second); !r) return r;
      rest.erase(it);
    }
  }
  for (const auto& [key, value] : rest) {
    auto it = setters.find(key);
    if (it == setters.end()) {
      spdlog::info("ignoring unknown or unsupported broker setting {}", key);
      continue;
    }
    if (auto r = it->second(key, value); !r) return r;
  }
  return check_consumer_group_settings(groups);
}

}  // namespace strata::broker

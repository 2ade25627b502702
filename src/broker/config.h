// Broker configuration in Kafka's server.properties names, with Kafka's defaults where
// Kafka has one and the embedded default (one node on 127.0.0.1:9092, ./strata-data)
// where Kafka would need an operator's choice.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "broker/security_config.h"
#include "common/result.h"
#include "group/config.h"
#include "txn/config.h"
#include "storage/log_config.h"

namespace strata::broker {

struct BrokerConfig {
  // Listeners and their security (broker/security_config.h).
  SecurityConfig security;
  // The inter-broker listener (security.inter_broker()) and what it advertises: what
  // other brokers connect to and what the cluster registration leads with.
  std::string listener_host = "127.0.0.1";    // listeners=PLAINTEXT://127.0.0.1:9092
  uint16_t listener_port = 9092;
  std::string advertised_host;                // advertised.listeners (default: the listener)
  uint16_t advertised_port = 0;
  std::string log_dir = "strata-data";        // log.dirs / log.dir
  int32_t node_id = 1;                        // node.id / broker.id
  std::string broker_rack;                    // broker.rack ("": none)
  // etcd.connect=host:port[,host:port...][/chroot] (as zookeeper.connect): the cluster's
  // etcd (docs/formats/etcd.md). Empty, the default: the embedded single node.
  std::string etcd_connect;
  // etcd.session.timeout.ms (as zookeeper.session.timeout.ms, Kafka's default 18000): the
  // registration lease's TTL; a broker silent for longer leaves the cluster.
  int32_t etcd_session_timeout_ms = 18000;
  // etcd.connection.timeout.ms: the longest one etcd request may take, connect included.
  int32_t etcd_connection_timeout_ms = 5000;
  // The inter-broker channel (client/peer_pool.h), with Kafka's broker defaults:
  // request.timeout.ms bounds each read and write of a request to another broker,
  // socket.connection.setup.timeout.ms each connection attempt.
  int32_t request_timeout_ms = 30000;
  int32_t socket_connection_setup_timeout_ms = 10000;
  // Replication (issue 15; broker/replication.h). replica.lag.time.max.ms: a follower
  // that has not caught up with the leader's log end for this long leaves the ISR.
  // num.replica.fetchers: fetcher threads per leader broker. strata.replica.fsync
  // (Strata's own; Kafka's followers never fsync): a follower makes what it appended
  // durable before its next fetch reports it, so an acknowledged acks=all record is on
  // the disk of every in-sync replica, not only in its page cache; false trades that
  // for Kafka's behaviour (durability by replication alone).
  // controlled.shutdown.enable: a clean shutdown in a cluster first hands its
  // leaderships to other ISR members (broker.cc), at most one session timeout.
  bool controlled_shutdown_enable = true;
  int32_t replica_lag_time_max_ms = 30000;
  int32_t num_replica_fetchers = 1;
  bool replica_fsync = true;
  // Kafka's automatic leader rebalance (the controller, every
  // leader.imbalance.check.interval.seconds): auto.leader.rebalance.enable, and the share
  // of a broker's preferred partitions it may not lead (percent) before they move back.
  bool auto_leader_rebalance_enable = true;
  int32_t leader_imbalance_per_broker_percentage = 10;
  int32_t leader_imbalance_check_interval_seconds = 300;
  // follower.replication.throttled.rate and leader.replication.throttled.rate (bytes/s;
  // Kafka's default Long.MAX_VALUE: none): the most a reassignment's new replicas on this
  // broker fetch per second, together (one budget shared by all its replica fetchers),
  // and the most this broker, leading, sends to other brokers' new replicas per second.
  // Kafka applies them to the replicas named by the topics' throttled-replicas configs,
  // which its reassignment tool sets to the moving replicas; Strata throttles exactly
  // the adding replicas not yet in sync, so the throttle ends with the move.
  int64_t follower_replication_throttled_rate = INT64_MAX;
  int64_t leader_replication_throttled_rate = INT64_MAX;
  int32_t num_partitions = 1;                 // num.partitions
  int16_t default_replication_factor = 1;     // default.replication.factor
  bool auto_create_topics_enable = true;      // auto.create.topics.enable
  int32_t message_max_bytes = 1048588;        // message.max.bytes
  int32_t socket_request_max_bytes = 104857600;  // socket.request.max.bytes
  // Connection limits, enforced by net::Server (net/README.md "Limits"). At most
  // max.connections at once (the listener stops accepting until one closes), at most
  // max.connections.per.ip from one address (closed right after accept), whose
  // max.connections.per.ip.overrides ("host:count,...") are per host.
  int32_t max_connections = 2147483647;       // max.connections
  int32_t max_connections_per_ip = 2147483647;  // max.connections.per.ip
  std::vector<std::pair<std::string, int32_t>> max_connections_per_ip_overrides;
  int64_t connections_max_idle_ms = 600000;   // connections.max.idle.ms (< 0: never)
  // queued.max.request.bytes: memory request frames may hold while read and handled; a
  // connection that would exceed it stops reading until requests finish. <= 0:
  // unbounded. Kafka's default is -1 (unbounded), which is what lets a few clients make a
  // broker allocate gigabytes; Strata's is 256 MiB: two and a half of the largest frame
  // (socket.request.max.bytes, 100 MiB), 256 pipelined 1 MiB produce requests, and a
  // bound an operator can plan RSS by. It only delays reading, so a bound too low costs
  // throughput, never correctness.
  int64_t queued_max_request_bytes = 268435456;
  // strata.max.inflight.requests.per.connection: pipelined requests of one connection
  // handled at once (Kafka handles one per connection at a time and has no such setting);
  // the connection stops reading past it. At least 1.
  int32_t max_inflight_per_connection = 64;
  int32_t max_incremental_fetch_session_cache_slots = 1000;  // max.incremental.fetch.session.cache.slots
  int64_t log_retention_check_interval_ms = 300000;  // log.retention.check.interval.ms
  int32_t shards = 0;                         // strata.shards (0: one per usable core)
  // background.threads: the blocking-work pool (fsynced metadata and checkpoint writes,
  // directory removal), so no event loop waits for the disk.
  int32_t blocking_threads = 10;
  // strata.produce.offload.bytes (Strata's own): a Produce request carrying more than
  // this many bytes of batches that validation must decompress or rebuild is validated
  // on the blocking pool, not on the connection's event loop. 256 KiB: a gzip batch of
  // that size takes milliseconds to inflate; a hop to the pool and back costs tens of
  // microseconds. -1: never.
  int64_t produce_offload_bytes = 262144;
  bool fetch_sendfile = true;                 // strata.fetch.sendfile (net/server.h)
  // strata.metrics.traffic.enable (Strata's own): count BrokerTopicMetrics and the
  // request-time histograms (broker/traffic_metrics.h). Off only to measure what they
  // cost (bench/metrics_cost.sh); their metrics then stay at 0.
  bool traffic_metrics = true;
  std::string topic_creation_policy;          // none yet
  // metrics.listener (Strata's own, not Kafka's): http://HOST:PORT of the Prometheus
  // endpoint (broker/metrics.h); empty, the default: no endpoint.
  bool metrics_enabled = false;
  std::string metrics_host;
  uint16_t metrics_port = 0;
  // The web console on the same listener (src/console): strata.console.enable (default
  // true) and strata.console.read.only (default true: the page may create, alter and
  // delete only when set to false). Strata's own settings.
  bool console_enabled = true;
  bool console_read_only = true;
  // offsets.*, group.* and offset.metadata.max.bytes: the group coordinator's.
  group::GroupConfig groups;
  txn::TxnConfig txns;
  storage::CleanerConfig cleaner;
  // Topic-config defaults derived from the log.* broker settings.
  storage::LogConfig log_defaults;

  // Applies "key=value" settings (a server.properties file, then --override).
  // Unknown keys are logged and ignored, as Kafka does; bad values are errors.
  Result<void, std::string> apply(const std::map<std::string, std::string>& props);
  std::string advertised_host_or_listener() const {
    return advertised_host.empty() ? listener_host : advertised_host;
  }
  uint16_t advertised_port_or_listener() const {
    return advertised_port == 0 ? listener_port : advertised_port;
  }
};


}  // namespace strata::broker

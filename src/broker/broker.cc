#include "broker/broker.h"

#include <sched.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "broker/dispatch.h"
#include "broker/errors.h"
#include "broker/fan_out.h"
#include "broker/group_log.h"
#include "broker/kafka_metrics.h"
#include "broker/remote_watermarks.h"
#include "broker/admin_server.h"
#include "broker/inter_broker_security.h"
#include "broker/metrics.h"
#include "broker/replica_fetcher.h"
#include "broker/txn_log.h"
#include "broker/handlers/handlers.h"
#include "broker/authorizer.h"
#include "broker/sasl.h"
#include "broker/scram_store.h"
#include "broker/tls_context.h"
#include "client/peer_pool.h"
#include "cluster/node.h"
#include "cluster/view.h"
#include "common/log_limit.h"
#include "protocol/apis/api_versions.h"
#include "storage/checkpoint.h"

namespace strata::broker {

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

namespace {

// The cores this process may run on (its affinity mask: taskset, a container's cpuset),
// not every core of the machine: one shard per usable core.
size_t usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    return std::max<size_t>(1, size_t(CPU_COUNT(&set)));
  }
  return std::max<size_t>(1, std::thread::hardware_concurrency());
}

}  // namespace

Broker::Broker(BrokerConfig config)
    : config_(std::move(config)),
      dynamic_(config_),
      fetch_sessions_(config_.max_incremental_fetch_session_cache_slots),
      replication_(std::make_unique<Replication>(config_.node_id, config_.replica_lag_time_max_ms)) {}

Broker::~Broker() { stop(); }

storage::LogConfig Broker::log_config_for(const std::string& topic) const {
  storage::LogConfig c = config_.log_defaults;
  if (auto t = topics_.get(topic)) {
    if (auto r = c.apply(t->configs); !r) spdlog::warn("topic {}: {}", topic, r.error());
  }
  return c;
}

Result<void, std::string> Broker::start() {
  const auto started = std::chrono::steady_clock::now();
  if (auto r = topics_.load(config_.log_dir + "/strata-topics.json"); !r) return r;
  if (auto r = producer_ids_.load(config_.log_dir + "/strata-producer-ids"); !r) return r;
  publish_metadata();
  blocking_ = std::make_unique<asio::thread_pool>(size_t(std::max(1, config_.blocking_threads)));
  sync_ = std::make_unique<storage::SyncService>();
  storage::LogManagerOptions o;
  o.log_dir = config_.log_dir;
  o.node_id = NodeId(config_.node_id);
  o.now_ms = now_ms();
  o.sync = sync_.get();
  o.config_for = [this](const std::string& topic) { return log_config_for(topic); };
  if (!config_.etcd_connect.empty()) {
    auto id = cluster_id_from_etcd(config_);
    if (!id) return fail(id.error());
    o.cluster_id = *id;
  }
  o.offload = [this](std::function<void()> work) {
    asio::post(*blocking_, [work = std::move(work)] {
      name_thread_once("background");
      work();
    });
  };
  auto logs = storage::LogManager::open(o);
  if (!logs) return fail(logs.error().message());
  logs_ = std::move(*logs);
  net::NetConfig n;
  auto listeners = make_listeners();
  if (!listeners) return fail(listeners.error());
  auto authorizer = Authorizer::create(config_);
  if (!authorizer) return fail(authorizer.error());
  authorizer_ = std::move(*authorizer);
  n.listeners = std::move(*listeners);
  n.sasl_server_max_receive_size = config_.security.sasl_server_max_receive_size;
  n.shards = config_.shards > 0 ? size_t(config_.shards)
                                : usable_cores();
  n.socket_request_max_bytes = config_.socket_request_max_bytes;
  n.max_connections = config_.max_connections;
  n.max_connections_per_ip = config_.max_connections_per_ip;
  n.max_connections_per_ip_overrides = config_.max_connections_per_ip_overrides;
  n.connections_max_idle_ms = config_.connections_max_idle_ms;
  n.queued_max_request_bytes = config_.queued_max_request_bytes;
  n.sendfile = config_.fetch_sendfile;
  n.max_inflight_per_connection = size_t(config_.max_inflight_per_connection);
  server_ = std::make_unique<net::Server>(n, *this);
  std::string error;
  if (!server_->listen(error)) return fail(error);
  // Each log is checked against the topics it should belong to and bound to its shard.
  auto snapshot = metadata();
  auto reconciled = logs_->reconcile(
      [&snapshot](const storage::TopicPartition& tp) -> std::optional<Uuid> {
        const TopicMeta* t = snapshot->topic(tp.topic);
        if (t == nullptr || tp.partition.value() >= t->partition_count()) return std::nullopt;
        return t->id;
      },
      [this](const storage::TopicPartition& tp) { return int(owner_shard(tp)); });
  if (!reconciled) return fail(reconciled.error().message());
  if (config_.etcd_connect.empty()) {
    publish_single_node_meta();
  } else if (auto joined = join_cluster(); !joined) {
    return fail(joined.error());
  }
  if (config_.metrics_enabled) {
    metrics_ = std::make_unique<AdminServer>([this, remote = std::make_shared<RemoteWatermarks>()] {
      std::vector<MetricFamily> families = broker_metric_families(collect_broker_figures(*this));
      KafkaFigures figures = collect_kafka_figures(*this);
      figures.remote_high_watermarks = remote->get(committed_elsewhere(figures), *this);
      for (MetricFamily& f : kafka_metric_families(figures)) families.push_back(std::move(f));
      return render_prometheus(families);
    });
    if (!metrics_->listen(config_.metrics_host, config_.metrics_port, error)) {
      return fail("metrics.listener: " + error);
    }
    if (admin_routes_) {
      const cluster::Endpoint self = advertised_endpoints().front();  // the inter-broker listener
      auto security = inter_broker_security_;
      if (!in_cluster()) {  // a single node has no peers, but the console is a client of it
        auto inter = inter_broker_client_security(config_.security);
        if (inter) security = std::move(*inter);
        else spdlog::warn("web console: cannot be a client of listener {}: {}", self.listener, inter.error());
      }
      admin_routes_(metrics_->http(), AdminTarget{fmt::format("{}:{}", self.host, self.port), std::move(security)});
    }
  }
  if (auto secured = start_security(); !secured) return fail(secured.error());
  start_groups();
  start_txns();
  if (in_cluster()) {
    std::lock_guard lock(publish_mu_);
    coordinators_follow_ = true;
    follow_coordinators(*metadata_.current());
  }
  server_->start();
  start_maintenance();
  if (metrics_) {
    metrics_->start();
    spdlog::info("metrics on http://{}:{}/metrics", config_.metrics_host, metrics_->bound_port());
  }
  cleaner_ = std::make_unique<BrokerCleaner>(*this, config_.cleaner);
  cleaner_->start();
  const auto ms = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - started).count() / 1000.0;
  std::string others;
  for (size_t i = 0; i < n.listeners.size(); ++i) {
    others += fmt::format("{}{}://{}:{}", i == 0 ? "" : ",", n.listeners[i].name, n.listeners[i].host,
                          server_->bound_port(i));
  }
  spdlog::info("strata broker {} ready on {}:{} ({} shards, log dir {}, cluster {}, listeners {}) in {:.1f} ms",
               config_.node_id, config_.listener_host, port(), n.shards,
               config_.log_dir, logs_->cluster_id(), others, ms);
  return {};
}

// The coordinator uses the existing __consumer_offsets partition count (Kafka's
// offsets.topic.num.partitions applies only when the topic is created), and replays the
// topic before the first request is served.
void Broker::start_groups() {
  int32_t partitions = config_.groups.offsets_topic_num_partitions;
  auto existing = topics_.get(group::kOffsetsTopic);
  if (existing) partitions = existing->partitions;
  group_log_ = std::make_unique<GroupLog>(*this);
  groups_ = std::make_unique<group::GroupCoordinator>(
      config_.groups, partitions, *group_log_,
      [this](int32_t p) { return asio::any_io_executor(shard(offsets_partition_shard(p)).get_executor()); });
  if (in_cluster()) {
    group_loads_ = std::make_unique<CoordinatorLoads>(groups_->partitions());  // loaded as led
  } else if (existing) {
    load_groups(*this, *groups_);
  }
}

// As start_groups, for __transaction_state. Transactions left between prepare and
// complete by a crash are completed (markers rewritten) once the shards run.
void Broker::start_txns() {
  txn::TxnConfig c = config_.txns;
  if (auto existing = topics_.get(txn::kTransactionTopic)) c.state_log_num_partitions = existing->partitions;
  txn_log_ = std::make_unique<TxnStateLog>(*this);
  txn_markers_ = std::make_unique<BrokerMarkers>(*this);
  txns_ = std::make_unique<txn::TxnCoordinator>(
      c, *txn_log_, *txn_markers_,
      [this](int32_t p) { return asio::any_io_executor(shard(txn_partition_shard(p)).get_executor()); },
      [this]() -> Result<int64_t, std::string> {
        auto id = producer_ids_.next();
        if (!id) return fail(id.error());
        return id->value();
      },
      [] { return group::wall_ms(); });
  if (topics_.get(txn::kTransactionTopic)) txn_topic_ready_ = true;
  if (in_cluster()) {
    txn_loads_ = std::make_unique<CoordinatorLoads>(txns_->partitions());  // loaded as led
    return;
  }
  if (txn_topic_ready_) load_txns(*this, *txns_);
  for (int32_t p = 0; p < txns_->partitions(); ++p) {
    asio::post(shard(txn_partition_shard(p)), [this, p] { txns_->finish_load(p); });
  }
}

// Kafka's settings for an internal topic: compacted, its own segment size, uncompressed
// as its coordinator wrote it. Created on first use; once it exists, one atomic load
// (every group and transaction request asks). In a cluster its replication factor is
// `replication_factor` at most the live brokers (Kafka refuses instead; a dev cluster of
// fewer brokers needs the clamp, said in a warning) and its min.insync.replicas
// `min_isr` at most that.
asio::awaitable<bool> Broker::ensure_internal_topic(const InternalTopic& topic, std::atomic<bool>& ready) {
  if (ready.load(std::memory_order_acquire)) co_return true;
  if (!topics_.get(topic.name)) {
    std::map<std::string, std::string> configs = {
        {"cleanup.policy", "compact"},
        {"compression.type", "producer"},
        {"segment.bytes", std::to_string(topic.segment_bytes)}};
    int16_t rf = -1;
    if (in_cluster()) {
      const int32_t live = int32_t(metadata()->cluster().brokers.size());
      const int32_t factor = std::max(1, std::min(topic.replication_factor, live));
      if (factor < topic.replication_factor) {
        spdlog::warn("{}: replication factor {} ({}) is more than the {} live brokers: created with {}", topic.name,
                     topic.replication_factor, topic.replication_setting, live, factor);
      }
      rf = int16_t(factor);
      if (topic.min_isr > 1) configs["min.insync.replicas"] = std::to_string(std::min(topic.min_isr, factor));
    }
    auto created = co_await create_topic(topic.name, topic.partitions, configs, false, rf);
    if (!created && created.error().first != kafka_error::kTopicAlreadyExists) {
      spdlog::error("cannot create {}: {}", topic.name, created.error().second);
    }
  }
  const bool exists = topics_.get(topic.name).has_value();
  if (exists) ready.store(true, std::memory_order_release);
  co_return exists;
}

asio::awaitable<bool> Broker::ensure_txn_topic() {
  co_return co_await ensure_internal_topic(
      {txn::kTransactionTopic, txns_->partitions(), int32_t(config_.txns.state_log_segment_bytes),
       config_.txns.state_log_replication_factor, "transaction.state.log.replication.factor",
       config_.txns.state_log_min_isr},
      txn_topic_ready_);
}

size_t Broker::txn_partition_shard(int32_t partition) const {
  return owner_shard({txn::kTransactionTopic, PartitionId(partition)});
}

size_t Broker::txn_shard(const std::string& transactional_id) const {
  return txn_partition_shard(txns_->partition_for(transactional_id));
}

asio::awaitable<bool> Broker::ensure_offsets_topic() {
  co_return co_await ensure_internal_topic(
      {group::kOffsetsTopic, groups_->partitions(), int32_t(config_.groups.offsets_topic_segment_bytes),
       config_.groups.offsets_topic_replication_factor, "offsets.topic.replication.factor", 1},
      offsets_topic_ready_);
}

size_t Broker::offsets_partition_shard(int32_t partition) const {
  return owner_shard({group::kOffsetsTopic, PartitionId(partition)});
}

size_t Broker::group_shard(const std::string& group_id) const {
  return offsets_partition_shard(groups_->partition_for(group_id));
}

void Broker::start_maintenance() {
  loop_watch_ = std::make_unique<LoopWatch>(shard_count());
  for (size_t s = 0; s < shard_count(); ++s) loop_watch_->start(s, shard(s), stopped_);
  maintenance_ = std::make_unique<asio::steady_timer>(shard(0));
  asio::co_spawn(shard(0), maintenance_loop(), asio::detached);
}

// Retention, delayed deletes and flush.ms run on each partition's owning shard;
// checkpoints are written from shard 0. Once a second, cheap when idle.
asio::awaitable<void> Broker::maintenance_loop() {
  int64_t last_retention = now_ms(), last_checkpoint = now_ms(), last_group_expiry = now_ms();
  int64_t last_rebalance = now_ms();
  while (!stopped_) {
    maintenance_->expires_after(std::chrono::seconds(1));
    asio::error_code ec;
    co_await maintenance_->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec || stopped_) co_return;
    const int64_t now = now_ms();
    const bool retention = now - last_retention >= config_.log_retention_check_interval_ms;
    if (retention) last_retention = now;
    for (const auto& tp : logs_->partitions()) {
      asio::post(shard(owner_shard(tp)), [this, tp, now, retention] {
        storage::Log* log = logs_->get(tp);
        if (log == nullptr) return;
        log->tick(now);
        if (log->config().compact()) {
          logs_->refresh_cleanable(tp, *log, now);
        }
        if (!retention) return;
        if (auto r = log->apply_retention(now); r && *r > 0) {
          spdlog::info("retention deleted {} segments of {}-{}", *r, tp.topic, tp.partition.value());
        }
      });
    }
    if (now - last_group_expiry >= config_.groups.offsets_retention_check_interval_ms) {
      last_group_expiry = now;
      for (int32_t p = 0; p < groups_->partitions(); ++p) {
        asio::post(shard(offsets_partition_shard(p)), [this, p, now] { groups_->expire(p, now); });
      }
    }
    // acks=all waits past their request's timeout fail; in a cluster, the ISR changes
    // the followers' progress calls for (replica.lag.time.max.ms) go to etcd.
    replication_->expire(now);
    if (cluster_) {
      // The controller's leader rebalance (Kafka's checkLeaderImbalance).
      if (config_.auto_leader_rebalance_enable &&
          now - last_rebalance >= int64_t(config_.leader_imbalance_check_interval_seconds) * 1000) {
        last_rebalance = now;
        if (cluster_->controller_epoch() != 0) co_await blocking([this] { rebalance_leaders(); return true; });
      }
      auto snapshot = metadata();
      auto changes = replication_->isr_changes(
          now, std::max<int64_t>(config_.replica_lag_time_max_ms / 2, 1000),
          [&snapshot](const storage::TopicPartition& tp) { return snapshot->partition(tp.topic, tp.partition.value()); },
          [&snapshot](int32_t node) { return snapshot->cluster().broker(node) != nullptr; });
      if (!changes.empty()) co_await propose_isr_changes(std::move(changes));
    }
    if (now - last_checkpoint >= 60000) {  // log.flush.offset.checkpoint.interval.ms
      last_checkpoint = now;
      co_await write_checkpoints();
    }
  }
}

// Each shard reads the figures of the logs it owns; the files are written (and fsynced)
// on the blocking pool, not on shard 0's event loop.
asio::awaitable<void> Broker::write_checkpoints() {
  const std::vector<storage::TopicPartition> all = logs_->partitions();
  std::vector<std::optional<storage::CheckpointFigures>> figures(all.size());
  co_await fan_out(
      *this, all.size(), [&](size_t i) { return owner_shard(all[i]); },
      [this, &all, &figures](size_t i) {
        if (const storage::Log* log = logs_->get(all[i])) figures[i] = storage::LogManager::figures_of(*log);
      });
  storage::CheckpointMap map;
  for (size_t i = 0; i < all.size(); ++i) {
    if (figures[i]) map[all[i]] = *figures[i];
  }
  auto r = co_await blocking([this, &map] { return logs_->write_checkpoints(map); });
  if (!r) spdlog::error("checkpoint: {}", r.error().message());
}

void Broker::stop() {
  if (stopped_ || !server_) return;
  stopped_ = true;
  if (cluster_) {
    // Kafka's controlled shutdown: leaderships move to other ISR members while this
    // broker still answers (bounded by a session timeout, what a kill would cost).
    if (config_.controlled_shutdown_enable) {
      // Produces are refused and the acks=all waits answered before any leadership
      // moves: a client must not have a request in doubt here when it learns the new
      // leader, or it sends that one the next batches first (OUT_OF_ORDER_SEQUENCE, and
      // librdkafka's epoch bump writes the doubtful batches again: duplicates). It
      // retries them (same sequences) after the move, in order.
      withdrawing_ = true;
      replication_->fail_all(kafka_error::kNotLeaderOrFollower);
      cluster_->withdraw(std::chrono::milliseconds(config_.etcd_session_timeout_ms),
                         [self = config_.node_id](const cluster::ClusterView& v) {
                           for (const auto& [key, entry] : v.states) {
                             if (entry.state.leader != self) continue;
                             for (int32_t r : entry.state.isr) {
                               if (r != self && v.alive(r)) return false;  // could move, has not yet
                             }
                           }
                           return true;
                         });
    }
    cluster_->leave();  // the others see this broker go at once
  }
  if (peers_) peers_->stop();       // marker writes in flight are retried after a restart
  if (fetchers_) fetchers_->stop();  // before the shards: they post to them
  // acks=all produces still waiting for their high watermark answer now, while the
  // shards run (the client retries them on the new leader).
  replication_->fail_all(kafka_error::kNotLeaderOrFollower);
  asio::post(shard(0), [this] { maintenance_->cancel(); });
  if (metrics_) metrics_->stop();
  if (cleaner_) cleaner_->stop();  // its threads wait on the shards
  server_->stop();
  // Waits registered by requests that were still being handled: their resumptions are
  // queued on the stopped shards and destroyed with them, which frees the requests.
  replication_->fail_all(kafka_error::kNotLeaderOrFollower);
  blocking_->join();  // pending directory removals and checkpoint writes finish
  if (auto r = logs_->shutdown(); !r) {
    spdlog::error("clean shutdown failed: {}", r.error().message());
  } else {
    spdlog::info("clean shutdown: logs flushed and checkpointed");
  }
  sync_.reset();
}

uint16_t Broker::port() const { return port_of(config_.security.inter_broker().name); }

size_t Broker::owner_shard(const storage::TopicPartition& tp) const {
  const size_t h = std::hash<std::string>{}(tp.topic) * 31 + size_t(tp.partition.value());
  return h % server_->shard_count();
}

namespace {

// APIs whose handlers make Kafka's own ACL checks: every API Strata serves. The list is a
// safety net for the next one: with an authorizer, an API missing here needs ALTER on the
// CLUSTER until its handler makes Kafka's per-resource checks (closed, not guessed).
bool checks_own_acls(int16_t api_key) {
  using namespace protocol;
  static constexpr int16_t kChecked[] = {
      ProduceRequest::kApiKey, FetchRequest::kApiKey, ListOffsetsRequest::kApiKey, MetadataRequest::kApiKey,
      OffsetCommitRequest::kApiKey, OffsetFetchRequest::kApiKey, FindCoordinatorRequest::kApiKey,
      JoinGroupRequest::kApiKey, HeartbeatRequest::kApiKey, LeaveGroupRequest::kApiKey, SyncGroupRequest::kApiKey,
      DescribeGroupsRequest::kApiKey, ListGroupsRequest::kApiKey, SaslHandshakeRequest::kApiKey,
      ApiVersionsRequest::kApiKey, CreateTopicsRequest::kApiKey, DeleteTopicsRequest::kApiKey,
      DeleteRecordsRequest::kApiKey, InitProducerIdRequest::kApiKey, OffsetForLeaderEpochRequest::kApiKey,
      AddPartitionsToTxnRequest::kApiKey, AddOffsetsToTxnRequest::kApiKey, EndTxnRequest::kApiKey,
      TxnOffsetCommitRequest::kApiKey, DescribeAclsRequest::kApiKey, CreateAclsRequest::kApiKey,
      DeleteAclsRequest::kApiKey, DescribeConfigsRequest::kApiKey, AlterConfigsRequest::kApiKey,
      SaslAuthenticateRequest::kApiKey, CreatePartitionsRequest::kApiKey, DeleteGroupsRequest::kApiKey,
      IncrementalAlterConfigsRequest::kApiKey, OffsetDeleteRequest::kApiKey,
      DescribeUserScramCredentialsRequest::kApiKey, AlterUserScramCredentialsRequest::kApiKey,
      DescribeClusterRequest::kApiKey, WriteTxnMarkersRequest::kApiKey, ElectLeadersRequest::kApiKey,
      AlterPartitionReassignmentsRequest::kApiKey, ListPartitionReassignmentsRequest::kApiKey,
      DescribeLogDirsRequest::kApiKey, DescribeProducersRequest::kApiKey, DescribeTransactionsRequest::kApiKey,
      ListTransactionsRequest::kApiKey, ConsumerGroupHeartbeatRequest::kApiKey,
      ConsumerGroupDescribeRequest::kApiKey};
  for (int16_t k : kChecked) {
    if (k == api_key) return true;
  }
  return false;
}

// Kafka's SASL gate: before authentication (and after a KIP-368 session expired) only
// ApiVersions, SaslHandshake and SaslAuthenticate are served.
bool may_serve(const net::Session& session, int16_t api_key) {
  const bool sasl_api = api_key == protocol::kApiVersionsKey ||
                        api_key == protocol::SaslHandshakeRequest::kApiKey ||
                        api_key == protocol::SaslAuthenticateRequest::kApiKey;
  if (sasl_api) return true;
  if (!session.authenticated) return false;
  return session.expires == std::chrono::steady_clock::time_point::max() ||
         std::chrono::steady_clock::now() < session.expires;
}

}  // namespace

asio::awaitable<std::optional<protocol::Output>> Broker::handle(net::Frame& frame) {
  net::Session& session = *frame.session;
  if (session.raw_sasl_tokens) co_return co_await handle_raw_sasl_token(*this, frame);
  auto prefix = protocol::parse_request_header_prefix(frame.bytes);
  if (!prefix) co_return std::nullopt;
  if (!may_serve(session, prefix->api_key)) {
    static LogLimit limit("closing: unauthenticated request");
    limit.warn("closing {}: {} request (key {}) on listener {}", frame.client_address,
               session.authenticated ? "session expired, re-authentication required before a"
                                     : "not authenticated, SASL required before a",
               prefix->api_key, session.listener->name);
    co_return std::nullopt;
  }
  if (authorizer_->enabled() && !checks_own_acls(prefix->api_key) &&
      !authorizer_->allowed(session.principal, client_host(frame.client_address), security::AclOperation::kAlter,
                            security::ResourceType::kCluster, "kafka-cluster")) {
    static LogLimit limit("closing: API needs ALTER on the cluster");
    limit.warn("closing {}: API key {} needs ALTER on the cluster for {} (its per-resource checks are "
               "not written yet)",
               frame.client_address, prefix->api_key, session.principal);
    co_return std::nullopt;
  }
  const ApiEntry* api = find_api(prefix->api_key);
  if (api == nullptr) {
    static LogLimit limit("closing: unknown API key");
    limit.warn("closing {}: unknown API key {}", frame.client_address, prefix->api_key);
    co_return std::nullopt;
  }
  const int16_t version = prefix->api_version;
  if (!api->versions.has(version)) {
    if (prefix->api_key == protocol::kApiVersionsKey) {
      // KIP-511: answer in v0 with UNSUPPORTED_VERSION and our versions, so the client
      // can retry with one we know.
      protocol::ApiVersionsResponse r;
      r.error_code = kafka_error::kUnsupportedVersion;
      for (const ApiEntry& e : api_table()) {
        r.api_keys.push_back({e.key, e.versions.min, e.versions.max});
      }
      protocol::Output out;
      protocol::write_response_header(out, prefix->correlation_id, 0);
      protocol::Encoder enc(out, 0, false);
      enc.encode(r);
      co_return out;
    }
    static LogLimit limit("closing: unsupported version");
    limit.warn("closing {}: {} v{} is not supported (supported {}-{})", frame.client_address,
               api->name, version, api->versions.min, api->versions.max);
    co_return std::nullopt;
  }
  const int header_version = version >= api->flexible_from ? 2 : 1;
  auto header = protocol::parse_request_header(frame.bytes, header_version);
  if (!header) {
    static LogLimit limit("closing: malformed request header");
    limit.warn("closing {}: malformed request header", frame.client_address);
    co_return std::nullopt;
  }
  RequestContext ctx{*header, frame, frame.turn, metadata()};
  co_return co_await api->serve(*this, ctx);  // timed from arrival to sent: response_sent
}

}  // namespace strata::broker

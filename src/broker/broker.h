// The broker: storage, topics and the network, and the request handlers between them.
//
// Threads: one shard (io_context + thread) per core. Each partition belongs to one
// shard (`owner_shard`), and its Log is touched only there: handlers on a connection's
// shard hop to the owner with `on_shard` for every log operation.
#pragma once

#include <asio.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "common/thread_name.h"
#include "broker/admin_server.h"
#include "broker/async_mutex.h"
#include "broker/cleaner.h"
#include "broker/config.h"
#include "broker/coordinator_loads.h"
#include "broker/dynamic_configs.h"
#include "broker/fetch_sessions.h"
#include "broker/fetch_waiters.h"
#include "broker/loop_watch.h"
#include "broker/replication.h"
#include "broker/metadata_snapshot.h"
#include "broker/producer_ids.h"
#include "broker/topics.h"
#include "broker/traffic_metrics.h"
#include "group/coordinator.h"
#include "txn/coordinator.h"
#include "net/server.h"
#include "protocol/headers.h"
#include "storage/log_manager.h"
#include "storage/sync_service.h"

namespace strata::client {
class PeerPool;
struct ClientSecurity;
}  // namespace strata::client

namespace strata::cluster {
class ClusterNode;
struct ClusterView;
struct Endpoint;
struct TopicAssignment;
enum class ElectionType : int8_t;  // cluster/elections.h
}  // namespace strata::cluster

namespace strata::broker {

class Authorizer;
class SaslMechanisms;
class ScramStore;
class TlsContextSource;

// One partition's ElectLeaders answer (Broker::elect_leaders).
struct ElectionResult {
  storage::TopicPartition tp;
  KafkaError error = KafkaError::kNone;
  std::string message;  // empty: Kafka's default text for the error
};
class ReplicaFetchers;

// One partition of an AlterPartitionReassignments request (Broker::reassign_partitions):
// its target (nullopt: cancel) and, once answered, its result.
struct PartitionMove {
  int32_t partition = 0;
  std::optional<std::vector<int32_t>> target;
  KafkaError error = KafkaError::kNone;
  std::string message;  // empty: Kafka's default text for the error
};

struct RequestContext {
  protocol::RequestHeader header;
  const net::Frame& frame;
  // The request's place in its connection's order (net/request_order.h): serve()
  // acquires it before the handler runs; a handler that waits after posting its effects
  // releases it first.
  net::Turn& turn;
  // The metadata this request sees, taken once when it is served.
  std::shared_ptr<const MetadataSnapshot> metadata;
  // Set by a handler whose answer ends the connection (a failed authentication).
  bool close_after_response = false;

  net::Session& session() const { return *frame.session; }
};

using ApiErr = std::pair<int16_t, std::string>;

class Broker : public net::RequestHandler {
 public:
  explicit Broker(BrokerConfig config);
  ~Broker() override;

  // Opens the data directory and binds the listener; then serves until stop().
  Result<void, std::string> start();
  // Clean shutdown: stop serving, flush and close every log, write checkpoints.
  void stop();
  uint16_t port() const;

  asio::awaitable<std::optional<protocol::Output>> handle(net::Frame& frame) override;
  // Kafka's kafka.network:RequestMetrics TotalTimeMs per API (traffic_metrics.h).
  void response_sent(int16_t api_key, double total_ms) override {
    if (config_.traffic_metrics) traffic_.request_done(api_key, total_ms);
  }

  const BrokerConfig& config() const { return config_; }
  // Routes served beside /metrics on the admin listener (the web console); set before
  // start(), used only when metrics.listener is set.
  void set_admin_routes(AdminRoutes routes) { admin_routes_ = std::move(routes); }
  // Kafka's BrokerTopicMetrics and RequestMetrics counters (traffic_metrics.h).
  TrafficMetrics& traffic() { return traffic_; }
  // Each shard's event-loop stalls (loop_watch.h); null before start().
  const LoopWatch* loop_watch() const { return loop_watch_.get(); }
  // How this broker connects to its peers' inter-broker listener (inter_broker_security.h);
  // null for PLAINTEXT or outside a cluster.
  const std::shared_ptr<const client::ClientSecurity>& inter_broker_security() const {
    return inter_broker_security_;
  }
  // Security (broker/sasl.h, broker/scram_store.h): set once start() returns.
  SaslMechanisms& sasl() { return *sasl_; }
  Authorizer& authorizer() { return *authorizer_; }
  ScramStore& scram_store() { return *scram_store_; }
  // The port listener `name` is bound to (0: no such listener).
  uint16_t port_of(const std::string& listener) const;
  Topics& topics() { return topics_; }
  FetchWaiters& fetch_waiters() { return fetch_waiters_; }
  FetchSessions& fetch_sessions() { return fetch_sessions_; }
  ProducerIds& producer_ids() { return producer_ids_; }
  storage::LogManager& logs() { return *logs_; }
  size_t owner_shard(const storage::TopicPartition& tp) const;
  asio::io_context& shard(size_t i) { return server_->shard(i); }
  size_t shard_count() const { return server_->shard_count(); }
  // The LogConfig of a topic: broker defaults with the topic's overrides applied.
  storage::LogConfig log_config_for(const std::string& topic) const;

  // ---- Topic lifecycle (create_topic.cc). Each takes admin_lock() for its whole run, so
  // lifecycle changes never interleave; each persists the change in Topics, makes or
  // removes the logs on their owner shards, and publishes a new metadata snapshot.
  // The current metadata (any thread).
  std::shared_ptr<const MetadataSnapshot> metadata() const { return metadata_.current(); }
  AsyncMutex& admin_lock() { return admin_; }
  // Rebuilds the snapshot from Topics and publishes it (caller holds admin_lock, or the
  // shards do not run yet).
  void publish_metadata();
  // Creates a topic and its partition logs (auto-create and CreateTopics). The topic is
  // visible in metadata only once every log exists.
  // (Coroutines here take references: the caller awaits at once, and GCC 12 mishandles
  // by-value temporaries inside co_await expressions.)
  // In a cluster (cluster_topics.cc) the topic is written to etcd, placed over the live
  // brokers by `replication_factor` (-1: default.replication.factor) or taken from
  // `assignment`; every broker then makes the logs of its replicas from its view, and
  // this call returns once this broker's metadata routes every partition.
  asio::awaitable<Result<TopicInfo, ApiErr>> create_topic(
      const std::string& name, int32_t partitions,
      const std::map<std::string, std::string>& configs, bool validate_only,
      int16_t replication_factor = -1, const std::vector<std::vector<int32_t>>& assignment = {});
  bool in_cluster() const { return cluster_ != nullptr; }
  // Whether this broker's view surely holds: alone, always; in a cluster, while its etcd
  // session is surely alive (cluster::ClusterNode::session_current). Past that, another
  // broker may lead what its view says it leads.
  bool view_current() const;
  // In a controlled shutdown (stop()): produces are refused with NOT_LEADER_OR_FOLLOWER
  // while the leaderships move, so no request waits here when the new leader takes over.
  bool withdrawing() const { return withdrawing_.load(std::memory_order_relaxed); }
  // Kafka's broker epoch (the registration's create revision); -1 on the single node.
  int64_t broker_epoch() const;
  // The leader's side of replication (broker/replication.h); the followers' fetchers
  // run in a cluster only (broker/replica_fetcher.h).
  Replication& replication() { return *replication_; }
  // Whether the newest metadata has this broker leading `tp` at `leader_epoch`. Asked on
  // the owner shard right before an append as leader, so the check and the append are
  // one step of the shard: a broker that became the partition's follower since the
  // request read its snapshot (its fetcher appends on the same shard, checking the
  // reverse) never writes as leader into what is now a follower's log.
  bool leads(const storage::TopicPartition& tp, int32_t leader_epoch) const;
  // After an append as leader, on the owner shard: a replicated partition's high
  // watermark follows (an ISR of one) and fetches waiting on it wake.
  void after_leader_append(const storage::TopicPartition& tp, storage::Log& log);
  // Requests to the other brokers (WriteTxnMarkers); in a cluster only.
  client::PeerPool& peers();
  // Deletes a topic: gone from metadata first, then its logs are removed on their owners.
  asio::awaitable<Result<void, ApiErr>> delete_topic(const TopicInfo& info);
  // Adds partitions [from, to) of a topic (CreatePartitions); caller holds admin_lock.
  asio::awaitable<Result<void, ApiErr>> add_partitions(const TopicInfo& info, int32_t to);
  // The log of `tp` of topic `topic_id`, looked up on its owner shard (the caller must be
  // running there: asserted). Null when the topic was deleted or re-created meanwhile.
  storage::Log* owned_log(const storage::TopicPartition& tp, const Uuid& topic_id);

  // The group coordinator, and the shard where group `id` lives (its __consumer_offsets
  // partition's owner). ensure_offsets_topic creates __consumer_offsets on first use,
  // as Kafka does; false if it could not.
  group::GroupCoordinator& groups() { return *groups_; }
  size_t group_shard(const std::string& group_id) const;
  size_t offsets_partition_shard(int32_t partition) const;
  asio::awaitable<bool> ensure_offsets_topic();

  // The transaction coordinator, likewise on the shard owning the transactional id's
  // __transaction_state partition; ensure_txn_topic creates that topic on first use.
  txn::TxnCoordinator& txns() { return *txns_; }
  size_t txn_shard(const std::string& transactional_id) const;
  size_t txn_partition_shard(int32_t partition) const;
  asio::awaitable<bool> ensure_txn_topic();

  // Whether this broker's coordinator serves `partition` of its internal topic as of
  // `snapshot` (coordinator_loads.h): kNone, NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS.
  // Always kNone on the single node.
  KafkaError coordinator_status(CoordinatorKind kind, int32_t partition, const MetadataSnapshot& snapshot) const;

  // ElectLeaders in a cluster (cluster_elections.cc): each partition asked (every
  // partition when `which` is null, leaving out those that need no election) with its
  // result, answered once this broker's metadata shows the new leaders (at most
  // `timeout_ms`).
  asio::awaitable<std::vector<ElectionResult>> elect_leaders(
      cluster::ElectionType type, const std::optional<std::vector<storage::TopicPartition>>& which,
      int32_t timeout_ms);

  // AlterPartitionReassignments in a cluster (cluster_reassignments.cc): each move of
  // `topic` checked against the view (partition known; target not empty, without
  // duplicates, of registered brokers) and the valid ones written in one
  // compare-and-swap of the topic's assignment (retried on a concurrent change), answered
  // once this broker's view has the write (at most `timeout_ms`).
  asio::awaitable<void> reassign_partitions(const std::string& topic, std::vector<PartitionMove>& moves,
                                            int32_t timeout_ms);

  // Runs `fn` (a plain function, not a coroutine) on shard `s` and resumes the caller
  // with its result on the caller's executor. Deliberately neither a coroutine nor a
  // coroutine lambda holding `fn`: GCC 12 mis-copies the captures of coroutine lambdas.
  // For the same reason `fn` captures only references and trivially copyable values
  // (the caller waits for the result, so references stay valid): a std::string
  // captured by value in a temporary inside a co_await expression gets corrupted.
  template <class Fn>
  auto on_shard(size_t s, Fn fn) {
    static_assert(std::is_trivially_copyable_v<Fn>,
                  "a shard hop captures only references, pointers and trivially copyable values");
    using R = decltype(fn());
    auto initiate = [this, s](auto handler, Fn f) {
      asio::post(shard(s), [f = std::move(f), h = std::move(handler)]() mutable {
        auto ex = asio::get_associated_executor(h);
        asio::post(ex, [h = std::move(h), r = f()]() mutable { std::move(h)(std::move(r)); });
      });
    };
    return asio::async_initiate<decltype(asio::use_awaitable), void(R)>(
        std::move(initiate), asio::use_awaitable, std::move(fn));
  }

  // Like on_shard, for work that answers later: `fn(done)` runs on shard `s` and the
  // caller resumes with the value passed to `done` (called once, on any thread).
  // Runs `fn` (blocking work: fsyncs, directory removal, big (de)compression) on the
  // blocking-work pool and resumes the caller on its executor with the result.
  template <class Fn>
  auto blocking(Fn fn) {
    static_assert(std::is_trivially_copyable_v<Fn>,
                  "blocking work captures only references, pointers and trivially copyable values");
    using R = decltype(fn());
    auto initiate = [this](auto handler, Fn f) {
      asio::post(*blocking_, [f = std::move(f), h = std::move(handler)]() mutable {
        name_thread_once("background");
        auto ex = asio::get_associated_executor(h);
        asio::post(ex, [h = std::move(h), r = f()]() mutable { std::move(h)(std::move(r)); });
      });
    };
    return asio::async_initiate<decltype(asio::use_awaitable), void(R)>(
        std::move(initiate), asio::use_awaitable, std::move(fn));
  }
  asio::thread_pool& blocking_pool() { return *blocking_; }

  template <class R, class Fn>
  auto on_shard_async(size_t s, Fn fn) {
    auto initiate = [this, s](auto handler, Fn f) {
      using H = decltype(handler);
      auto shared = std::make_shared<H>(std::move(handler));
      asio::post(shard(s), [f = std::move(f), shared]() mutable {
        f(std::function<void(R)>([shared](R r) {
          auto ex = asio::get_associated_executor(*shared);
          asio::post(ex, [shared, r = std::move(r)]() mutable { std::move(*shared)(std::move(r)); });
        }));
      });
    };
    return asio::async_initiate<decltype(asio::use_awaitable), void(R)>(
        std::move(initiate), asio::use_awaitable, std::move(fn));
  }

 private:
  Result<void, std::string> join_cluster();
  // The listeners to bind, with their TLS contexts (security.cc).
  Result<std::vector<net::Listener>, std::string> make_listeners();
  std::vector<cluster::Endpoint> advertised_endpoints() const;
  // The SCRAM store and SASL mechanisms (security.cc), once the cluster is joined.
  Result<void, std::string> start_security();
  asio::awaitable<Result<TopicInfo, ApiErr>> create_topic_in_cluster(
      const std::string& name, int32_t partitions, const std::map<std::string, std::string>& configs,
      bool validate_only, int16_t replication_factor, const std::vector<std::vector<int32_t>>& assignment);
  asio::awaitable<Result<void, ApiErr>> delete_topic_in_cluster(const TopicInfo& info);
 public:
  // CreatePartitions in a cluster: the new partitions placed over the live brokers and
  // appended to the topic's assignment (compare-and-swap on its revision); returns once
  // this broker routes them. (cluster_topics.cc)
  asio::awaitable<Result<void, ApiErr>> add_partitions_in_cluster(const std::string& name, int32_t to);
  // AlterConfigs in a cluster: /config/topics/<topic> by compare-and-swap; returns once
  // this broker's logs have the new settings.
  asio::awaitable<Result<void, ApiErr>> alter_configs_in_cluster(const std::string& name,
                                                                 const std::map<std::string, std::string>& configs);
  // Dynamic broker configs in a cluster: /config/brokers/<entity> ("<default>" or this
  // node's id) by compare-and-swap against `revision` (its mod revision in the view the
  // edit started from; 0: absent), deleted when `configs` is empty; returns once they are
  // in effect here. (cluster_topics.cc)
  asio::awaitable<Result<void, ApiErr>> alter_broker_configs_in_cluster(
      const std::string& entity, int64_t revision, const std::map<std::string, std::string>& configs);
  // The dynamic broker configs in effect (the throttle rates), over config().
  const DynamicBrokerConfigs& dynamic_configs() const { return dynamic_; }
 private:
  // Brings Topics and the local logs to the newest view (shard 0, under admin_lock).
  asio::awaitable<void> sync_topics();
  void schedule_sync();
  void publish_single_node_meta();
  void track_replicated(const std::vector<std::shared_ptr<TopicMeta>>& changed);
  void on_cluster_view(const std::shared_ptr<const cluster::ClusterView>& view);
  void start_groups();
  void start_txns();
  // In a cluster: the coordinators load the internal-topic partitions this broker has
  // come to lead and unload those it no longer leads (coordinator_moves.cc). Under
  // publish_mu_, after each publish (and once the coordinators exist).
  void follow_coordinators(const MetadataSnapshot& snapshot);
  void load_coordinator(CoordinatorKind kind, int32_t partition, int32_t epoch);
  void unload_coordinator(CoordinatorKind kind, int32_t partition);
  // The controller's automatic leader rebalance round (blocking: etcd writes).
  void rebalance_leaders();
  asio::awaitable<void> sync_replicas(const std::string& name, const Uuid& id, const cluster::TopicAssignment& a,
                                      int32_t count, const std::map<std::string, std::string>& configs);
  void start_maintenance();
  asio::awaitable<void> maintenance_loop();
  asio::awaitable<void> write_checkpoints();
  // The ISR changes this leader asks for, written to etcd (cluster_isr.cc).
  asio::awaitable<void> propose_isr_changes(std::vector<IsrChange> changes);
  struct InternalTopic {
    const char* name;
    int32_t partitions;
    int32_t segment_bytes;
    int32_t replication_factor;
    const char* replication_setting;  // the config it comes from, for the warning
    int32_t min_isr;                  // 1: the broker's default min.insync.replicas
  };
  asio::awaitable<bool> ensure_internal_topic(const InternalTopic& topic, std::atomic<bool>& ready);
  // A config key's compare-and-swap write (`revision` 0: it must not exist): put
  // `configs`, or delete the key when they are empty and `delete_empty`.
  asio::awaitable<Result<void, ApiErr>> write_config_key(const std::string& key, int64_t revision,
                                                         const std::map<std::string, std::string>& configs,
                                                         bool delete_empty);

  BrokerConfig config_;
  DynamicBrokerConfigs dynamic_;
  Topics topics_;
  MetadataPublisher metadata_;
  // publish_metadata's: it runs under admin_ and on the etcd watch thread.
  std::mutex publish_mu_;
  std::shared_ptr<const ClusterMeta> cluster_meta_;  // guarded by publish_mu_
  std::shared_ptr<const cluster::ClusterView> cluster_view_;  // guarded by publish_mu_
  std::atomic<bool> sync_running_{false};
  std::atomic<bool> sync_wanted_{false};
  // Per topic, the assignment revision sync_replicas last brought the local logs to
  // (sync_topics' coroutine only, on shard 0).
  std::map<std::string, int64_t> replicas_synced_;
  AsyncMutex admin_;
  // Blocking work (strata.blocking.threads): before everything that posts to it.
  std::unique_ptr<asio::thread_pool> blocking_;
  FetchWaiters fetch_waiters_;
  FetchSessions fetch_sessions_;
  ProducerIds producer_ids_;
  std::unique_ptr<storage::SyncService> sync_;
  std::unique_ptr<storage::LogManager> logs_;
  // TLS listeners' contexts, by listener name.
  std::map<std::string, std::shared_ptr<TlsContextSource>> tls_;
  std::unique_ptr<ScramStore> scram_store_;
  // Made before the cluster is joined (its views carry the ACLs).
  std::unique_ptr<Authorizer> authorizer_;
  std::unique_ptr<SaslMechanisms> sasl_;
  std::unique_ptr<net::Server> server_;
  // After server_: group timers live on its shards and must go first.
  std::unique_ptr<group::OffsetsLog> group_log_;
  std::unique_ptr<group::GroupCoordinator> groups_;
  std::atomic<bool> offsets_topic_ready_{false};
  std::unique_ptr<txn::TxnLog> txn_log_;
  std::unique_ptr<txn::MarkerWriter> txn_markers_;
  std::unique_ptr<txn::TxnCoordinator> txns_;
  std::atomic<bool> txn_topic_ready_{false};
  // What the coordinators have loaded (cluster only; null on the single node), and
  // whether follow_coordinators may run yet (guarded by publish_mu_).
  std::unique_ptr<CoordinatorLoads> group_loads_;
  std::unique_ptr<CoordinatorLoads> txn_loads_;
  bool coordinators_follow_ = false;
  std::unique_ptr<BrokerCleaner> cleaner_;
  std::unique_ptr<asio::steady_timer> maintenance_;
  // metrics.listener's endpoint on shard 0 (null when off); after server_, like the timers.
  std::unique_ptr<AdminServer> metrics_;  // the admin listener (metrics.listener)
  AdminRoutes admin_routes_;
  // Membership of the cluster on etcd (null on the embedded single node). Last: it
  // calls on_cluster_view from its thread until it is gone.
  std::unique_ptr<cluster::ClusterNode> cluster_;
  std::shared_ptr<const client::ClientSecurity> inter_broker_security_;  // set by make_listeners
  TrafficMetrics traffic_;
  std::unique_ptr<LoopWatch> loop_watch_;
  // The inter-broker channel, made with cluster_ (client/peer_pool.h).
  std::unique_ptr<client::PeerPool> peers_;
  std::unique_ptr<Replication> replication_;
  // Followers' fetch threads (cluster only), stopped before the shards.
  std::unique_ptr<ReplicaFetchers> fetchers_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> withdrawing_{false};
};

int64_t now_ms();

// etcd's /cluster/id for `config` (broker/cluster_member.cc).
Result<std::string, std::string> cluster_id_from_etcd(const BrokerConfig& config);

}  // namespace strata::broker

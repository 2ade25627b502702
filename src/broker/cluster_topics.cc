// Topics in a cluster (docs/formats/etcd.md): CreateTopics and DeleteTopics on any broker
// are transactions on etcd; every broker applies what its view shows, making the logs of
// the partitions it holds a replica of and removing those of deleted topics, with Topics
// (strata-topics.json) as its local record of the view. The controller gives new
// partitions their leaders (cluster/controller.h).
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <random>

#include "broker/broker.h"
#include "broker/config_admin.h"
#include "broker/poll_until.h"
#include "broker/topic_logs.h"
#include "cluster/node.h"
#include "cluster/placement.h"
#include "storage/partition_metadata.h"

namespace strata::broker {

namespace {

using namespace std::chrono_literals;

// How long CreateTopics waits for the controller's leaders to reach this broker's view
// (Kafka waits up to the request's timeout for its metadata cache likewise).
constexpr auto kRoutableWait = 10s;

ApiErr etcd_unavailable(const cluster::EtcdError& e) {
  return {kafka_error::kRequestTimedOut, "the cluster's metadata store is unavailable: " + e.message};
}

Result<std::vector<std::vector<int32_t>>, ApiErr> place(const ClusterMeta& cluster, int32_t partitions,
                                                        int16_t rf) {
  std::vector<cluster::PlacementBroker> brokers;
  for (const BrokerMeta& b : cluster.brokers) brokers.push_back({b.node_id, b.rack});
  thread_local std::mt19937 rng{std::random_device{}()};
  auto a = cluster::assign_replicas(brokers, partitions, rf, rng(), rng());
  if (!a) return fail(ApiErr{kafka_error::kInvalidReplicationFactor, a.error()});
  return std::move(*a);
}

std::vector<int32_t> local_partitions(const cluster::TopicAssignment& a, int32_t self, int32_t from = 0) {
  std::vector<int32_t> out;
  for (size_t p = size_t(from); p < a.replicas.size(); ++p) {
    for (int32_t r : a.replicas[p]) {
      if (r == self) out.push_back(int32_t(p));
    }
  }
  return out;
}

// Whether `ready` came true within kRoutableWait (the view reaches this broker through
// the watch thread and sync_topics).
template <class Ready>
asio::awaitable<bool> wait_until(Ready ready) {
  co_return co_await poll_until(std::move(ready), kRoutableWait);
}

bool routable(const MetadataSnapshot& s, const std::string& name, const Uuid& id) {
  const TopicMeta* t = s.topic(name);
  if (t == nullptr || t->id != id) return false;
  for (const PartitionMeta& p : t->partitions) {
    if (p.leader < 0) return false;
  }
  return true;
}

}  // namespace

asio::awaitable<Result<TopicInfo, ApiErr>> Broker::create_topic_in_cluster(
    const std::string& name, int32_t partitions, const std::map<std::string, std::string>& configs,
    bool validate_only, int16_t replication_factor, const std::vector<std::vector<int32_t>>& assignment) {
  if (!storage::valid_topic_name(name)) {
    co_return fail(ApiErr{kafka_error::kInvalidTopic, "Topic name \"" + name + "\" is illegal"});
  }
  storage::LogConfig config = config_.log_defaults;
  if (auto r = config.apply(configs); !r) co_return fail(ApiErr{kafka_error::kInvalidConfig, r.error()});
  auto snapshot = metadata();
  if (snapshot->topic(name) != nullptr) {
    co_return fail(ApiErr{kafka_error::kTopicAlreadyExists, "Topic '" + name + "' already exists."});
  }
  std::vector<std::vector<int32_t>> replicas = assignment;
  if (replicas.empty()) {
    if (partitions <= 0) {
      co_return fail(ApiErr{kafka_error::kInvalidPartitions, "Number of partitions must be larger than 0."});
    }
    const int16_t rf = replication_factor == -1 ? config_.default_replication_factor : replication_factor;
    auto placed = place(snapshot->cluster(), partitions, rf);
    if (!placed) co_return fail(placed.error());
    replicas = std::move(*placed);
  }
  if (validate_only) co_return TopicInfo{name, {}, int32_t(replicas.size()), configs};
  const Uuid id = new_topic_id();
  const cluster::Keys& keys = cluster_->keys();
  cluster::TxnRequest t;
  t.compare.push_back({keys.topic(name), cluster::Compare::Target::kCreate, cluster::Compare::Result::kEqual, 0, ""});
  t.success.push_back({cluster::Op::Kind::kPut, keys.topic(name), "",
                       cluster::encode_assignment({storage::uuid_to_base64(id), replicas}), 0});
  t.success.push_back({cluster::Op::Kind::kPut, keys.topic_config(name), "", cluster::encode_topic_config(configs), 0});
  auto written = co_await blocking([this, &t] { return cluster_->etcd().txn(t); });
  if (!written) co_return fail(etcd_unavailable(written.error()));
  if (!written->succeeded) {
    co_return fail(ApiErr{kafka_error::kTopicAlreadyExists, "Topic '" + name + "' already exists."});
  }
  spdlog::info("created topic {} with {} partitions in the cluster", name, replicas.size());
  // Returns once this broker routes it: its view has the topic and the controller's leaders.
  if (!co_await wait_until([this, &name, &id] { return routable(*metadata(), name, id); })) {
    co_return fail(ApiErr{kafka_error::kRequestTimedOut,
                          "Topic '" + name + "' was created, but its leaders are not known yet."});
  }
  co_return TopicInfo{name, id, int32_t(replicas.size()), configs};
}

asio::awaitable<Result<void, ApiErr>> Broker::delete_topic_in_cluster(const TopicInfo& info) {
  std::shared_ptr<const cluster::ClusterView> view = cluster_->view();
  auto it = view->topics.find(info.name);
  if (it == view->topics.end() || it->second.assignment.topic_id != storage::uuid_to_base64(info.id)) {
    co_return fail(ApiErr{kafka_error::kUnknownTopicOrPartition, "This server does not host this topic-partition."});
  }
  const cluster::Keys& keys = cluster_->keys();
  cluster::TxnRequest t;
  t.compare.push_back({keys.topic(info.name), cluster::Compare::Target::kCreate, cluster::Compare::Result::kEqual,
                       it->second.create_revision, ""});
  t.success.push_back({cluster::Op::Kind::kDelete, keys.topic(info.name), "", "", 0});
  t.success.push_back({cluster::Op::Kind::kDelete, keys.topic_sub(info.name),
                       cluster::prefix_end(keys.topic_sub(info.name)), "", 0});
  t.success.push_back({cluster::Op::Kind::kDelete, keys.topic_config(info.name), "", "", 0});
  auto written = co_await blocking([this, &t] { return cluster_->etcd().txn(t); });
  if (!written) co_return fail(etcd_unavailable(written.error()));
  if (!written->succeeded) {
    co_return fail(ApiErr{kafka_error::kUnknownTopicOrPartition, "This server does not host this topic-partition."});
  }
  spdlog::info("deleted topic {} from the cluster", info.name);
  co_return Result<void, ApiErr>{};
}

asio::awaitable<Result<void, ApiErr>> Broker::add_partitions_in_cluster(const std::string& name, int32_t to) {
  std::shared_ptr<const cluster::ClusterView> view = cluster_->view();
  auto it = view->topics.find(name);
  if (it == view->topics.end()) {
    co_return fail(ApiErr{kafka_error::kUnknownTopicOrPartition, "The topic '" + name + "' does not exist."});
  }
  cluster::TopicAssignment a = it->second.assignment;
  const int32_t from = int32_t(a.replicas.size());
  auto placed = place(metadata()->cluster(), to - from, int16_t(a.replicas.front().size()));
  if (!placed) co_return fail(placed.error());
  for (auto& r : *placed) a.replicas.push_back(std::move(r));
  const cluster::Keys& keys = cluster_->keys();
  cluster::TxnRequest t;
  t.compare.push_back({keys.topic(name), cluster::Compare::Target::kMod, cluster::Compare::Result::kEqual,
                       it->second.mod_revision, ""});
  t.success.push_back({cluster::Op::Kind::kPut, keys.topic(name), "", cluster::encode_assignment(a), 0});
  auto written = co_await blocking([this, &t] { return cluster_->etcd().txn(t); });
  if (!written) co_return fail(etcd_unavailable(written.error()));
  if (!written->succeeded) {
    co_return fail(ApiErr{kafka_error::kInvalidPartitions, "The topic '" + name + "' changed meanwhile; retry."});
  }
  auto id = storage::uuid_from_base64(a.topic_id);
  const bool grown = id && co_await wait_until([this, &name, &id, to] {
    auto s = metadata();
    return routable(*s, name, *id) && s->topic(name)->partition_count() >= to;
  });
  if (!grown) {
    co_return fail(ApiErr{kafka_error::kRequestTimedOut,
                          "The partitions were added, but their leaders are not known yet."});
  }
  co_return Result<void, ApiErr>{};
}

asio::awaitable<Result<void, ApiErr>> Broker::write_config_key(const std::string& key, int64_t revision,
                                                               const std::map<std::string, std::string>& configs,
                                                               bool delete_empty) {
  cluster::TxnRequest t;
  t.compare.push_back({key, revision == 0 ? cluster::Compare::Target::kCreate : cluster::Compare::Target::kMod,
                       cluster::Compare::Result::kEqual, revision, ""});
  if (configs.empty() && delete_empty) {
    t.success.push_back({cluster::Op::Kind::kDelete, key, "", "", 0});
  } else {
    t.success.push_back({cluster::Op::Kind::kPut, key, "", cluster::encode_topic_config(configs), 0});
  }
  auto written = co_await blocking([this, &t] { return cluster_->etcd().txn(t); });
  if (!written) co_return fail(etcd_unavailable(written.error()));
  if (!written->succeeded) co_return fail(ApiErr{kafka_error::kInvalidRequest, "The configs changed meanwhile; retry."});
  co_return Result<void, ApiErr>{};
}

asio::awaitable<Result<void, ApiErr>> Broker::alter_configs_in_cluster(
    const std::string& name, const std::map<std::string, std::string>& configs) {
  std::shared_ptr<const cluster::ClusterView> view = cluster_->view();
  auto c = view->configs.find(name);
  const int64_t revision = c == view->configs.end() ? 0 : c->second.mod_revision;
  auto written = co_await write_config_key(cluster_->keys().topic_config(name), revision, configs, false);
  if (!written) co_return fail(written.error());
  const bool applied = co_await wait_until([this, &name, &configs] {
    auto info = topics_.get(name);
    return info && info->configs == configs;
  });
  if (!applied) {
    co_return fail(ApiErr{kafka_error::kRequestTimedOut, "The configs were written, but not applied here yet."});
  }
  co_return Result<void, ApiErr>{};
}

asio::awaitable<Result<void, ApiErr>> Broker::alter_broker_configs_in_cluster(
    const std::string& entity, int64_t revision, const std::map<std::string, std::string>& configs) {
  auto written = co_await write_config_key(cluster_->keys().broker_config(entity), revision, configs, true);
  if (!written) co_return fail(written.error());
  const bool applied = co_await wait_until([this, &entity, &configs] { return dynamic_.entry(entity).values == configs; });
  if (!applied) {
    co_return fail(ApiErr{kafka_error::kRequestTimedOut, "The configs were written, but not applied here yet."});
  }
  co_return Result<void, ApiErr>{};
}

// Coalesces views: one sync runs at a time on shard 0 and runs again while newer views
// arrived meanwhile.
void Broker::schedule_sync() {
  sync_wanted_ = true;
  if (sync_running_.exchange(true)) return;
  asio::co_spawn(shard(0), [this]() -> asio::awaitable<void> {
    while (sync_wanted_.exchange(false)) co_await sync_topics();
    sync_running_ = false;
    if (sync_wanted_) schedule_sync();
  }, asio::detached);
}

// A reassignment (KIP-455) changes the replicas of existing partitions: this broker
// makes the log of each partition among the first `count` that it now holds a replica of,
// and removes the log of each it no longer does (a completed move that took it out;
// published first, so the fetchers let go of it).
asio::awaitable<void> Broker::sync_replicas(const std::string& name, const Uuid& id,
                                            const cluster::TopicAssignment& a, int32_t count,
                                            const std::map<std::string, std::string>& configs) {
  const int32_t self = config_.node_id;
  std::vector<int32_t> gained, lost;
  for (int32_t p = 0; p < count; ++p) {
    const auto& replicas = a.replicas[size_t(p)];
    const bool mine = std::find(replicas.begin(), replicas.end(), self) != replicas.end();
    const bool held = logs_->get({name, PartitionId(p)}, id) != nullptr;
    if (mine && !held) gained.push_back(p);
    if (!mine && held) lost.push_back(p);
  }
  if (!gained.empty()) {
    storage::LogConfig config = config_.log_defaults;
    if (auto r = config.apply(configs); !r) spdlog::warn("topic {}: {}", name, r.error());
    if (auto e = co_await make_logs(*this, name, id, gained, config)) {
      spdlog::error("topic {}: cannot make the logs of its new replicas here: {}", name, *e);
    } else {
      spdlog::info("topic {}: replicas of partitions {} added here", name, fmt::join(gained, ","));
    }
  }
  if (!lost.empty()) {
    publish_metadata();
    co_await remove_logs(*this, name, id, lost);
    spdlog::info("topic {}: replicas of partitions {} moved away; their logs here are removed", name,
                 fmt::join(lost, ","));
  }
}

// Topics and local logs brought to the view: topics gone (or re-created under a new id)
// lose their local logs; new topics and new partitions get the logs of this broker's
// replicas. Then the snapshot is published (leaders included).
asio::awaitable<void> Broker::sync_topics() {
  std::shared_ptr<const cluster::ClusterView> view;
  {
    std::lock_guard lock(publish_mu_);
    view = cluster_view_;
  }
  if (!view) co_return;
  auto guard = co_await admin_.lock();
  const int32_t self = config_.node_id;
  for (const TopicInfo& t : topics_.all()) {
    auto it = view->topics.find(t.name);
    if (it != view->topics.end() && it->second.assignment.topic_id == storage::uuid_to_base64(t.id)) continue;
    auto removed = co_await blocking([this, &t] { return topics_.remove(t.name); });
    if (!removed) spdlog::error("topic {}: {}", t.name, removed.error());
    publish_metadata();
    std::vector<int32_t> parts;
    for (int32_t p = 0; p < t.partitions; ++p) {
      if (logs_->get({t.name, PartitionId(p)}, t.id) != nullptr) parts.push_back(p);
    }
    co_await remove_logs(*this, t.name, t.id, parts);
    replicas_synced_.erase(t.name);
    spdlog::info("topic {} deleted in the cluster: its local logs are removed", t.name);
  }
  for (const auto& [name, entry] : view->topics) {
    auto id = storage::uuid_from_base64(entry.assignment.topic_id);
    if (!id) {
      spdlog::warn("topic {}: bad topic id '{}' in etcd; ignored", name, entry.assignment.topic_id);
      continue;
    }
    auto configs_it = view->configs.find(name);
    const std::map<std::string, std::string> configs =
        configs_it == view->configs.end() ? std::map<std::string, std::string>{} : configs_it->second.values;
    const int32_t count = int32_t(entry.assignment.replicas.size());
    auto existing = topics_.get(name);
    if (existing && existing->configs != configs) {
      storage::LogConfig changed = config_.log_defaults;
      if (auto r = changed.apply(configs); !r) spdlog::warn("topic {}: {}", name, r.error());
      auto set = co_await blocking([this, &name, &configs] { return topics_.set_configs(name, configs); });
      if (!set) spdlog::error("topic {}: {}", name, set.error());
      publish_metadata();
      co_await apply_log_config(*this, *existing, changed);
      spdlog::info("topic {}: configs from the cluster applied", name);
    }
    // Replica changes come with a new assignment revision; other views leave them be.
    if (existing && replicas_synced_[name] != entry.mod_revision) {
      co_await sync_replicas(name, *id, entry.assignment, std::min(existing->partitions, count), configs);
      replicas_synced_[name] = entry.mod_revision;
    }
    if (existing && existing->partitions >= count) continue;
    const int32_t from = existing ? existing->partitions : 0;
    storage::LogConfig config = config_.log_defaults;
    if (auto r = config.apply(configs); !r) spdlog::warn("topic {}: {}", name, r.error());
    const std::vector<int32_t> parts = local_partitions(entry.assignment, self, from);
    if (auto e = co_await make_logs(*this, name, *id, parts, config)) {
      spdlog::error("topic {}: cannot make its logs: {}", name, *e);
      co_await remove_logs(*this, name, *id, parts);
      continue;
    }
    auto recorded = co_await blocking([this, &name, &id, count, &configs, &existing]() -> Result<void, std::string> {
      if (existing) return topics_.set_partitions(name, count);
      auto added = topics_.add(name, *id, count, configs);
      if (!added) return fail(added.error());
      return {};
    });
    if (!recorded) spdlog::error("topic {}: {}", name, recorded.error());
  }
  publish_metadata();
}

}  // namespace strata::broker

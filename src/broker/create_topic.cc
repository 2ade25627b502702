// The topic lifecycle shared by CreateTopics, DeleteTopics, CreatePartitions and
// auto-creation, and the metadata snapshot they publish. Every change runs under
// admin_lock(); the durable write (strata-topics.json, fsynced) and the making of new
// logs run on the blocking pool; logs are removed on their owner shards (one hop per
// shard), their files afterwards on the pool.
#include <spdlog/spdlog.h>

#include <latch>

#include "broker/broker.h"
#include "broker/replica_fetcher.h"
#include "cluster/view.h"
#include "broker/errors.h"
#include "broker/topic_logs.h"
#include "broker/fan_out.h"
#include "storage/checkpoint.h"

namespace strata::broker {

// A topic unchanged since the current snapshot keeps its entry (the broker's log
// defaults are fixed while it runs), so one change costs pointer copies, not a rebuild
// of every topic's partitions and configs.
namespace {

// A topic's partitions as the snapshot routes them: this node leads them all on the
// single node; in a cluster, the view's partition states (leader -1 until the
// controller writes one).
std::vector<PartitionMeta> partition_metas(const TopicInfo& t, const cluster::ClusterView* view,
                                           int32_t self) {
  std::vector<PartitionMeta> out(size_t(t.partitions));
  if (view == nullptr) {
    for (auto& p : out) p.leader = self;
    return out;
  }
  auto topic = view->topics.find(t.name);
  for (int32_t p = 0; p < t.partitions; ++p) {
    PartitionMeta& m = out[size_t(p)];
    if (topic != view->topics.end() && size_t(p) < topic->second.assignment.replicas.size()) {
      const cluster::TopicAssignment& a = topic->second.assignment;
      m.replicas = a.replicas[size_t(p)];
      if (auto it = a.adding.find(p); it != a.adding.end()) m.adding_replicas = it->second;
      if (auto it = a.removing.find(p); it != a.removing.end()) m.removing_replicas = it->second;
    }
    if (const cluster::StateEntry* s = view->state(t.name, p)) {
      m.leader = s->state.leader;
      m.leader_epoch = s->state.leader_epoch;
      m.isr = s->state.isr;
    }
  }
  return out;
}

}  // namespace

void Broker::publish_metadata() {
  std::lock_guard lock(publish_mu_);
  const auto previous = metadata_.current();
  std::vector<std::shared_ptr<const TopicMeta>> topics;
  std::vector<std::shared_ptr<TopicMeta>> changed;
  auto old = previous->topics().begin();  // both ordered by name: one merge walk
  const auto old_end = previous->topics().end();
  for (const TopicInfo& t : topics_.all()) {
    while (old != old_end && (*old)->name < t.name) ++old;
    std::vector<PartitionMeta> partitions = partition_metas(t, cluster_view_.get(), config_.node_id);
    if (old != old_end && (*old)->name == t.name && (*old)->id == t.id &&
        (*old)->partitions == partitions && (*old)->configs == t.configs) {
      topics.push_back(*old);
      continue;
    }
    auto m = std::make_shared<TopicMeta>();
    changed.push_back(m);
    m->name = t.name;
    m->id = t.id;
    m->partitions = std::move(partitions);
    m->configs = t.configs;
    m->log_config = config_.log_defaults;
    if (auto r = m->log_config.apply(t.configs); !r) spdlog::warn("topic {}: {}", t.name, r.error());
    m->internal = is_internal_topic(t.name);
    topics.push_back(std::move(m));
  }
  metadata_.publish(
      std::make_shared<MetadataSnapshot>(metadata_.version() + 1, std::move(topics), cluster_meta_));
  track_replicated(changed);
  if (fetchers_) fetchers_->update(*metadata_.current());
  follow_coordinators(*metadata_.current());
}

// A replicated partition's log tracks its high watermark from the moment this broker
// knows it is replicated, before any request reads or appends to it (the posts run on
// the owner shards ahead of later requests): until then the high watermark would be the
// log end, and a consumer could read what no follower has. Where this broker leads, the
// new state (a smaller ISR) may also raise the high watermark.
void Broker::track_replicated(const std::vector<std::shared_ptr<TopicMeta>>& changed) {
  if (!server_) return;
  for (const auto& t : changed) {
    for (int32_t p = 0; p < t->partition_count(); ++p) {
      const PartitionMeta& meta = t->partitions[size_t(p)];
      if (!Replication::replicated(meta)) continue;
      storage::TopicPartition tp{t->name, PartitionId(p)};
      std::optional<PartitionMeta> led;
      if (meta.leader == config_.node_id) led = meta;
      asio::post(shard(owner_shard(tp)), [this, tp, led = std::move(led)] {
        // Led elsewhere now: the acks=all waits fail (NOT_LEADER_OR_FOLLOWER) before
        // this broker's fetcher may truncate what they wait for, as Kafka completes its
        // delayed produces when it makes a partition a follower.
        if (!led) replication_->forget(tp);
        storage::Log* log = logs_->get(tp);
        if (log == nullptr) return;
        log->track_high_watermark();
        if (led && replication_->on_state_change(tp, *led, *log, now_ms())) fetch_waiters().notify(tp);
      });
    }
  }
}

storage::Log* Broker::owned_log(const storage::TopicPartition& tp, const Uuid& topic_id) {
  STRATA_ASSERT(current_shard() == kNoShard || size_t(current_shard()) == owner_shard(tp));
  return logs_->get(tp, topic_id);
}

namespace {

// Makes and installs the logs of `parts[from, to)` of `name` (blocking). The first
// error, if any.
std::optional<std::string> make_range(Broker& broker, const std::string& name, const Uuid& id,
                                      const std::vector<int32_t>& parts, size_t from, size_t to,
                                      const storage::LogConfig& config, int64_t now) {
  for (size_t i = from; i < to; ++i) {
    const storage::TopicPartition tp{name, PartitionId(parts[i])};
    auto log = broker.logs().open_new(tp, config, now, id, int(broker.owner_shard(tp)));
    if (!log) return log.error().message();
    broker.logs().install(tp, std::move(*log), id);
  }
  return std::nullopt;
}

std::vector<int32_t> iota(int32_t from, int32_t to) {
  std::vector<int32_t> out;
  for (int32_t p = from; p < to; ++p) out.push_back(p);
  return out;
}

}  // namespace

// The logs of partitions `parts` of `name`, made on the blocking pool (files created,
// preallocated and mapped, partition.metadata fsynced) and bound to their owner shards;
// no request reaches them before the snapshot that names them. Many partitions are made
// by several pool threads at once (the disk waits overlap): the task that splits them
// waits for the others, so it uses at most half the pool. The first error, if any.
asio::awaitable<std::optional<std::string>> make_logs(Broker& broker, const std::string& name,
                                                      const Uuid& id, const std::vector<int32_t>& parts,
                                                      const storage::LogConfig& config) {
  const int64_t now = now_ms();
  co_return co_await broker.blocking([&broker, &name, &id, &parts, &config, now] {
    constexpr size_t kPerTask = 256;
    const size_t n = parts.size();
    const size_t helpers = std::min(n / kPerTask, size_t(std::max(0, broker.config().blocking_threads / 2)));
    if (helpers < 1) return make_range(broker, name, id, parts, 0, n, config, now);
    const size_t step = (n + helpers) / (helpers + 1);
    std::vector<std::optional<std::string>> errors(helpers + 1);
    std::latch done{std::ptrdiff_t(helpers)};
    for (size_t h = 0; h < helpers; ++h) {
      const size_t a = step * (h + 1);
      const size_t b = std::min(n, a + step);
      asio::post(broker.blocking_pool(), [&, a, b, h] {
        errors[h + 1] = make_range(broker, name, id, parts, a, b, config, now);
        done.count_down();
      });
    }
    errors[0] = make_range(broker, name, id, parts, 0, std::min(n, step), config, now);
    done.wait();
    for (auto& e : errors) {
      if (e) return e;
    }
    return std::optional<std::string>();
  });
}

asio::awaitable<void> remove_logs(Broker& broker, const std::string& name, const Uuid& id,
                                  const std::vector<int32_t>& parts) {
  std::vector<storage::TopicPartition> tps;
  for (int32_t p : parts) tps.push_back({name, PartitionId(p)});
  co_await fan_out(
      broker, tps.size(), [&](size_t i) { return broker.owner_shard(tps[i]); },
      [&broker, &tps, &id](size_t i) {
        if (auto r = broker.logs().remove(tps[i], id); !r) {
          spdlog::error("deleting {}-{}: {}", tps[i].topic, tps[i].partition.value(),
                        r.error().message());
        }
      });
}

namespace {

asio::awaitable<std::optional<std::string>> make_logs(Broker& broker, const std::string& name,
                                                      const Uuid& id, int32_t from, int32_t to,
                                                      const storage::LogConfig& config) {
  const std::vector<int32_t> parts = iota(from, to);
  co_return co_await make_logs(broker, name, id, parts, config);
}

asio::awaitable<void> remove_logs(Broker& broker, const std::string& name, const Uuid& id,
                                  int32_t from, int32_t to) {
  const std::vector<int32_t> parts = iota(from, to);
  co_await remove_logs(broker, name, id, parts);
}

}  // namespace

asio::awaitable<Result<TopicInfo, ApiErr>> Broker::create_topic(
    const std::string& name, int32_t partitions, const std::map<std::string, std::string>& configs,
    bool validate_only, int16_t replication_factor, const std::vector<std::vector<int32_t>>& assignment) {
  if (cluster_) {
    co_return co_await create_topic_in_cluster(name, partitions, configs, validate_only, replication_factor,
                                               assignment);
  }
  if (!storage::valid_topic_name(name)) {
    co_return fail(ApiErr{kafka_error::kInvalidTopic, "Topic name \"" + name + "\" is illegal"});
  }
  if (partitions <= 0) {
    co_return fail(ApiErr{kafka_error::kInvalidPartitions, "Number of partitions must be larger than 0."});
  }
  storage::LogConfig config = config_.log_defaults;
  if (auto r = config.apply(configs); !r) co_return fail(ApiErr{kafka_error::kInvalidConfig, r.error()});
  auto guard = co_await admin_.lock();
  if (topics_.get(name)) {
    co_return fail(ApiErr{kafka_error::kTopicAlreadyExists, "Topic '" + name + "' already exists."});
  }
  if (validate_only) co_return TopicInfo{name, {}, partitions, configs};
  const Uuid id = new_topic_id();
  // Logs first, then the durable record, then the snapshot: no request can route to a
  // partition whose log does not exist yet. A crash in between leaves directories whose
  // id no topic has: strays at the next start (LogManager::reconcile).
  if (auto e = co_await make_logs(*this, name, id, 0, partitions, config)) {
    co_await remove_logs(*this, name, id, 0, partitions);
    co_return fail(ApiErr{kafka_error::kKafkaStorageError, *e});
  }
  auto added = co_await blocking([this, &name, &id, partitions, &configs] {
    return topics_.add(name, id, partitions, configs);
  });
  if (!added) {
    co_await remove_logs(*this, name, id, 0, partitions);
    co_return fail(ApiErr{kafka_error::kKafkaStorageError, added.error()});
  }
  publish_metadata();
  spdlog::info("created topic {} with {} partitions", name, partitions);
  co_return *added;
}

asio::awaitable<Result<void, ApiErr>> Broker::delete_topic(const TopicInfo& info) {
  if (is_internal_topic(info.name)) {
    // Its coordinator holds it open; deleting it would lose every group's offsets or
    // every transaction's state.
    co_return fail(ApiErr{kafka_error::kInvalidTopic,
                          "Topic " + info.name + " is an internal topic and cannot be deleted."});
  }
  if (cluster_) co_return co_await delete_topic_in_cluster(info);
  auto guard = co_await admin_.lock();
  auto current = topics_.get(info.name);
  if (!current || current->id != info.id) {
    co_return fail(ApiErr{kafka_error::kUnknownTopicOrPartition, "This server does not host this topic-partition."});
  }
  auto removed = co_await blocking([this, &info] { return topics_.remove(info.name); });
  // Gone from metadata before the logs go: a request routed by an older snapshot finds
  // no log (or a newer topic's) on the owner shard and answers UNKNOWN_TOPIC_OR_PARTITION.
  publish_metadata();
  co_await remove_logs(*this, current->name, current->id, 0, current->partitions);
  if (!removed) co_return fail(ApiErr{kafka_error::kKafkaStorageError, removed.error()});
  spdlog::info("deleted topic {}", info.name);
  co_return Result<void, ApiErr>{};
}

asio::awaitable<Result<void, ApiErr>> Broker::add_partitions(const TopicInfo& info, int32_t to) {
  const storage::LogConfig config = log_config_for(info.name);
  if (auto e = co_await make_logs(*this, info.name, info.id, info.partitions, to, config)) {
    co_await remove_logs(*this, info.name, info.id, info.partitions, to);
    co_return fail(ApiErr{kafka_error::kKafkaStorageError, *e});
  }
  auto set = co_await blocking([this, &info, to] { return topics_.set_partitions(info.name, to); });
  if (!set) {
    co_await remove_logs(*this, info.name, info.id, info.partitions, to);
    co_return fail(ApiErr{kafka_error::kKafkaStorageError, set.error()});
  }
  publish_metadata();
  co_return Result<void, ApiErr>{};
}

}  // namespace strata::broker

// The broker's metadata as an immutable, versioned snapshot, published to every shard.
//
// Writers (topic creation, deletion, new partitions, config changes: all under
// Broker::admin_lock) change the durable record (Topics, strata-topics.json) and then
// publish a new snapshot. Readers take the current snapshot once per request and use it
// for the whole request: a lookup by name or by topic id is a hash probe, with no lock
// and no copy of a topic's configs. A snapshot never changes, so a request sees one
// consistent view even while the topic it names is deleted; the owner shard, not the
// snapshot, decides whether the partition's log still exists (Broker::with_log).
//
// Built for the cluster: a topic's entry is shared between successive snapshots unless
// the topic changed, so publishing after one change copies pointers, not topics; the
// per-partition leadership (leader, epochs, replicas, ISR) that the cluster work adds
// belongs in PartitionMeta.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/types.h"
#include "storage/log_config.h"

namespace strata::broker {

// A live broker as Metadata and DescribeCluster list it.
struct BrokerMeta {
  int32_t node_id = -1;
  std::string host;  // the inter-broker listener's advertised endpoint
  int32_t port = 0;
  std::optional<std::string> rack;
  // Every advertised listener: a client is given the brokers' endpoints of the listener
  // it came in on, as Kafka does (a broker without that listener is left out).
  struct Endpoint {
    std::string listener;
    std::string host;
    int32_t port = 0;
  };
  std::vector<Endpoint> endpoints;

  // The endpoint for clients of `listener`; the inter-broker one when no endpoints are
  // known (brokers registered before listeners had names), null when it lacks it.
  std::optional<Endpoint> address(const std::string& listener) const {
    if (endpoints.empty()) return Endpoint{listener, host, port};
    for (const Endpoint& e : endpoints) {
      if (e.listener == listener) return e;
    }
    return std::nullopt;
  }
};

// The cluster around this broker: on a single node, itself alone and its own
// controller; in a cluster, what etcd shows (cluster/view.h). Shared by successive
// snapshots until membership changes.
struct ClusterMeta {
  std::string cluster_id;
  int32_t controller_id = -1;  // -1: none elected at the moment
  std::vector<BrokerMeta> brokers;  // ordered by node id
  const BrokerMeta* broker(int32_t node_id) const {
    for (const BrokerMeta& b : brokers) {
      if (b.node_id == node_id) return &b;
    }
    return nullptr;
  }
};

struct PartitionMeta {
  int32_t leader = -1;  // node id; a single node leads all its partitions; -1: none
  int32_t leader_epoch = 0;
  std::vector<int32_t> replicas;  // empty: this node alone (the single node)
  std::vector<int32_t> isr;
  // A partition being reassigned (KIP-455): `replicas` is the full set; these are the
  // replicas being added and removed (empty when it is not moving).
  std::vector<int32_t> adding_replicas;
  std::vector<int32_t> removing_replicas;
  bool operator==(const PartitionMeta&) const = default;
};

// The leader epoch a leader stamps on what it appends: the partition's, never below 0
// (0 for a partition without one, or not in the snapshot).
inline LeaderEpoch stamped_epoch(const PartitionMeta* p) {
  return LeaderEpoch(p == nullptr ? 0 : std::max(p->leader_epoch, 0));
}

struct TopicMeta {
  std::string name;
  Uuid id;
  std::vector<PartitionMeta> partitions;
  std::map<std::string, std::string> configs;  // the topic's overrides
  storage::LogConfig log_config;               // the broker's defaults with the overrides
  bool internal = false;                       // __consumer_offsets, __transaction_state
  int32_t partition_count() const { return int32_t(partitions.size()); }
};

class MetadataSnapshot {
 public:
  MetadataSnapshot(uint64_t version, std::vector<std::shared_ptr<const TopicMeta>> topics,
                   std::shared_ptr<const ClusterMeta> cluster = nullptr);

  uint64_t version() const { return version_; }
  // Never null.
  const ClusterMeta& cluster() const { return *cluster_; }
  const std::shared_ptr<const ClusterMeta>& cluster_ptr() const { return cluster_; }
  const TopicMeta* topic(std::string_view name) const;
  const TopicMeta* topic(const Uuid& id) const;
  // Every topic, ordered by name.
  const std::vector<std::shared_ptr<const TopicMeta>>& topics() const { return sorted_; }
  // The leader of `topic`'s partition `partition`: -1 if the snapshot has no such
  // partition or it has no leader.
  int32_t leader(std::string_view topic, int32_t partition) const {
    const PartitionMeta* p = this->partition(topic, partition);
    return p == nullptr ? -1 : p->leader;
  }
  // `topic`'s partition `partition`; null if the snapshot has no such partition.
  const PartitionMeta* partition(std::string_view topic, int32_t partition) const {
    const TopicMeta* t = this->topic(topic);
    if (t == nullptr || partition < 0 || partition >= t->partition_count()) return nullptr;
    return &t->partitions[size_t(partition)];
  }

 private:
  uint64_t version_;
  std::shared_ptr<const ClusterMeta> cluster_;
  std::vector<std::shared_ptr<const TopicMeta>> sorted_;
  std::unordered_map<std::string_view, const TopicMeta*> by_name_;
  std::unordered_map<Uuid, const TopicMeta*> by_id_;
};

// Holds the current snapshot. current() is safe from any thread; on the hot path it is
// one atomic load of the version and a compare with the calling thread's cached copy.
class MetadataPublisher {
 public:
  MetadataPublisher();
  std::shared_ptr<const MetadataSnapshot> current() const;
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  // Installs `next` (its version must exceed the current one).
  void publish(std::shared_ptr<const MetadataSnapshot> next);

 private:
  const uint64_t id_;  // unique per publisher in this process, for the per-thread cache
  std::atomic<uint64_t> version_{0};
  mutable std::mutex mu_;
  std::shared_ptr<const MetadataSnapshot> current_;
};

}  // namespace strata::broker

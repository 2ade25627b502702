// The follower's side of replication (issue 15): threads that fetch, from each leader,
// the partitions this broker follows, with Kafka's follower Fetch (replica id / state,
// last fetched epoch), and append the leader's batches as they are
// (Log::append_replicated: CRC checked, nothing re-encoded).
//
// One fetcher per (leader, n) for n < num.replica.fetchers, a partition going to fetcher
// hash % n, each its own thread with one connection (KafkaClient, bounded by
// request.timeout.ms), batching all its partitions into one request of max_wait 500 ms.
// Per partition and answer:
//  - records: appended on the partition's owner shard; with strata.replica.fsync they
//    are made durable before the next fetch reports the new log end (so the leader
//    counts only what is on this disk);
//  - the leader's high watermark: taken, up to the local log end; its log start too;
//  - a diverging epoch (KIP-320): the log is truncated to that epoch's end offset (or
//    its own, if smaller) and fetched again from there, never to the high watermark;
//  - OFFSET_OUT_OF_RANGE with a log end above the leader's: truncated to the leader's
//    high watermark (a leader without the epoch checks of KIP-320);
//  - other errors (NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH,
//    a lost connection): retried after a short back-off with the newest metadata.
//
// Threads: update() and stop() from any thread; the fetchers touch logs only on their
// owner shards (posted there).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "broker/metadata_snapshot.h"
#include "broker/replication_throttle.h"
#include "storage/checkpoint.h"

namespace strata::broker {

class Broker;

class ReplicaFetchers {
 public:
  explicit ReplicaFetchers(Broker& broker);
  ~ReplicaFetchers();

  // From each new snapshot: the partitions this broker follows and their leaders;
  // fetchers are started and stopped to match.
  void update(const MetadataSnapshot& snapshot);
  void stop();

  // Fetch rounds that appended something, for tests and metrics.
  uint64_t rounds() const { return rounds_.load(); }

 private:
  struct Fetcher;
  struct Key {
    int32_t leader;
    int index;
    auto operator<=>(const Key&) const = default;
  };

  Broker& broker_;
  ReplicationThrottle throttle_;  // follower.replication.throttled.rate, for all fetchers
  std::mutex mu_;
  bool stopped_ = false;                                  // guarded by mu_
  std::map<Key, std::shared_ptr<Fetcher>> fetchers_;      // guarded by mu_
  std::vector<std::shared_ptr<Fetcher>> retired_;         // guarded by mu_: stopping, not joined
  std::atomic<uint64_t> rounds_{0};
};

}  // namespace strata::broker

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

  // follower.replication.throttled.rate, shared by every fetcher of this broker: a
  // token bucket of at most one second's bytes for the throttled partitions (the
  // replicas being added); while it is empty they are left out of the fetches, as
  // Kafka's follower quota does.
  class Throttle {
   public:
    // Refills the bucket by `rate` bytes/s since the last call; whether it holds any.
    bool open(int64_t rate);
    // How much a throttled partition may ask for now (at least 1 byte).
    int32_t allowance(int32_t most);
    void spend(size_t bytes);

   private:
    std::mutex mu_;
    double budget_ = 0;  // guarded by mu_
    std::chrono::steady_clock::time_point refilled_ = std::chrono::steady_clock::now();  // guarded by mu_
  };

  Broker& broker_;
  Throttle throttle_;
  std::mutex mu_;
  bool stopped_ = false;                                  // guarded by mu_
  std::map<Key, std::shared_ptr<Fetcher>> fetchers_;      // guarded by mu_
  std::vector<std::shared_ptr<Fetcher>> retired_;         // guarded by mu_: stopping, not joined
  std::atomic<uint64_t> rounds_{0};
};

}  // namespace strata::broker

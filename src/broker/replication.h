// The leader's side of replication (issue 15), for the partitions this broker leads with
// more than one replica: each follower's fetch position, the high watermark they allow,
// the acks=all produces waiting for it, and the ISR changes the leader asks etcd for.
//
// The rules are Kafka's Partition/ReplicaManager ones:
//  - a follower's log end is the fetch offset of its latest fetch; its last caught-up
//    time is now if that offset reached the leader's log end, else the time of its
//    previous fetch if it reached the leader's log end as of then (so a follower
//    keeping pace with a leader that is always being written stays in sync);
//  - the high watermark is the least log end over the ISR (the leader's own included),
//    raised only, and not at all while the ISR is smaller than min.insync.replicas;
//  - an ISR member not caught up for replica.lag.time.max.ms is dropped; a replica
//    outside the ISR whose log end reached the high watermark is added back. Both are
//    proposals: the broker writes them to the partition's state in etcd (compare and
//    swap), and they take effect when the view brings them back.
//
// Threads: on_follower_fetch and after_leader_append on the partition's owner shard (they
// touch its log); wait_for_high_watermark from there too; expire and isr_changes from
// anywhere. One mutex guards the tables; callbacks run outside it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "broker/metadata_snapshot.h"
#include "broker/replication_throttle.h"
#include "storage/checkpoint.h"
#include "storage/log.h"

namespace strata::broker {

// A proposed ISR for a partition (same leader and leader epoch).
struct IsrChange {
  storage::TopicPartition tp;
  std::vector<int32_t> isr;
  int32_t leader_epoch = 0;
};

class Replication {
 public:
  using Done = std::function<void(int16_t error)>;  // a Kafka error code; 0: committed

  Replication(int32_t self, int64_t lag_time_max_ms) : self_(self), lag_time_max_ms_(lag_time_max_ms) {}

  // Whether `p` is replicated (its log tracks a high watermark): more than one replica.
  static bool replicated(const PartitionMeta& p) { return p.replicas.size() > 1; }
  // Kafka's check before an acks=all append (produce, coordinator records, transaction
  // markers): a replicated partition whose ISR is below min.insync.replicas refuses it
  // with NOT_ENOUGH_REPLICAS.
  static bool below_min_isr(const PartitionMeta& p, const storage::Log& log) {
    return replicated(p) && p.isr.size() < size_t(std::max(log.config().min_insync_replicas, 1));
  }
  // Whether a throttle applies to `replica` of `p`: a reassignment's replica being added
  // and not yet in sync (Kafka's shouldLeaderThrottle / shouldFollowerThrottle, with
  // the throttled replicas its reassignment tool would name).
  static bool throttled(const PartitionMeta& p, int32_t replica) {
    auto has = [replica](const std::vector<int32_t>& v) { return std::find(v.begin(), v.end(), replica) != v.end(); };
    return has(p.adding_replicas) && !has(p.isr);
  }
  // leader.replication.throttled.rate's bucket, shared by every fetch this broker answers.
  ReplicationThrottle& leader_throttle() { return leader_throttle_; }

  // A follower's fetch of `tp` from `fetch_offset` (its log end), answered from `log`,
  // which this broker leads per `meta`. Raises the high watermark if it may; true if it
  // moved (the caller wakes consumers' long polls).
  bool on_follower_fetch(const storage::TopicPartition& tp, const PartitionMeta& meta, int32_t follower,
                         int64_t fetch_offset, storage::Log& log, int64_t now_ms);
  // After this leader appended to `log`: with an ISR of one the high watermark follows.
  // The log tracks its high watermark already (the broker starts it when it learns the
  // partition is replicated, before any append).
  bool after_leader_append(const storage::TopicPartition& tp, const PartitionMeta& meta,
                           storage::Log& log, int64_t now_ms);
  // After the view changed the state of `tp`, which this broker leads per `meta`: an
  // ISR that shrank may let the high watermark rise at once (Kafka's
  // maybeIncrementLeaderHW after an ISR change), completing acks=all waits no later
  // fetch or append would. True if it moved.
  bool on_state_change(const storage::TopicPartition& tp, const PartitionMeta& meta,
                       storage::Log& log, int64_t now_ms) {
    return after_leader_append(tp, meta, log, now_ms);
  }
  // acks=all: `done` runs once the high watermark passes `offset` (0, or
  // NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR is below min.insync.replicas by then),
  // or with REQUEST_TIMED_OUT at `deadline_ms` (expire()), or at once if already passed.
  void wait_for_high_watermark(const storage::TopicPartition& tp, int64_t offset, int64_t deadline_ms,
                               const storage::Log& log, Done done);
  // Fails the waits past their deadline; fails all of `tp`'s (NOT_LEADER_OR_FOLLOWER)
  // when this broker no longer leads it (forget).
  void expire(int64_t now_ms);
  void forget(const storage::TopicPartition& tp);
  // At shutdown, while the shards still run: every wait fails with `error`, so the
  // requests behind them finish (each holds its handler until then).
  void fail_all(int16_t error);
  // The ISR changes due now, per the last snapshot's states (`isr_of`: the ISR the
  // partition has now, nullopt if this broker no longer leads it). A change is proposed
  // again only after `retry_ms` without the view showing it.
  // A member whose broker is not `alive` (its registration gone: dead or shut down) is
  // dropped at once, as Kafka's controller removes a fenced broker from every ISR,
  // rather than after the lag time, so acks=all does not stall on it.
  std::vector<IsrChange> isr_changes(int64_t now_ms, int64_t retry_ms,
                                     const std::function<const PartitionMeta*(const storage::TopicPartition&)>& meta_of,
                                     const std::function<bool(int32_t)>& alive = {});

 private:
  ReplicationThrottle leader_throttle_;
  struct Follower {
    int64_t log_end = -1;  // unknown until it fetches
    int64_t caught_up_ms = 0;
    // The leader's log end and the time at the follower's previous fetch (Kafka's
    // lastFetchLeaderLogEndOffset / lastFetchTimeMs).
    int64_t prev_leader_end = -1;
    int64_t prev_fetch_ms = 0;
  };
  struct Waiter {
    int64_t offset = 0;
    int64_t deadline_ms = 0;
    Done done;
  };
  struct Led {
    int32_t leader_epoch = -1;
    int64_t since_ms = 0;     // when this broker started leading it at this epoch
    int64_t high_watermark = 0;
    int64_t log_end = 0;
    size_t min_isr = 1;
    std::vector<int32_t> isr;
    std::vector<int32_t> replicas;
    std::map<int32_t, Follower> followers;
    std::vector<Waiter> waiters;
    int64_t proposed_ms = -1;  // the last ISR change asked for, -1: none pending
    std::vector<int32_t> proposed;
  };

  // Under mu_: the entry for `tp` as `meta` describes it (a new leader epoch resets it).
  Led& led(const storage::TopicPartition& tp, const PartitionMeta& meta, const storage::Log& log, int64_t now_ms);
  // Under mu_: raises `log`'s high watermark to what the ISR allows; the waiters it
  // completes go to `ready`.
  bool advance(Led& l, storage::Log& log, std::vector<std::pair<Done, int16_t>>& ready);
  static void run(std::vector<std::pair<Done, int16_t>>& ready);

  const int32_t self_;
  const int64_t lag_time_max_ms_;
  std::mutex mu_;
  std::map<storage::TopicPartition, Led> led_;  // guarded by mu_
};

}  // namespace strata::broker

#include "broker/replication.h"

#include <algorithm>

#include "broker/errors.h"

namespace strata::broker {

Replication::Led& Replication::led(const storage::TopicPartition& tp, const PartitionMeta& meta,
                                   const storage::Log& log, int64_t now_ms) {
  Led& l = led_[tp];
  if (l.leader_epoch != meta.leader_epoch) {
    // Leading anew: nothing known of the followers; each has a lag time from now, as a
    // new Kafka leader gives them.
    std::vector<Waiter> waiting = std::move(l.waiters);
    l = Led{};
    l.waiters = std::move(waiting);
    l.leader_epoch = meta.leader_epoch;
    l.since_ms = now_ms;
  }
  l.isr = meta.isr;
  l.replicas = meta.replicas;
  l.min_isr = size_t(std::max(log.config().min_insync_replicas, 1));
  l.log_end = log.log_end_offset().value();
  l.high_watermark = log.high_watermark().value();
  for (int32_t r : meta.replicas) {
    if (r == self_) continue;
    auto [it, fresh] = l.followers.try_emplace(r);
    if (fresh) it->second.caught_up_ms = l.since_ms;
  }
  // A replica a reassignment removed is no follower any more (it must not rejoin the ISR).
  std::erase_if(l.followers, [&meta](const auto& f) {
    return std::find(meta.replicas.begin(), meta.replicas.end(), f.first) == meta.replicas.end();
  });
  if (l.proposed_ms >= 0 && l.proposed == l.isr) l.proposed_ms = -1;  // the view has it
  return l;
}

bool Replication::advance(Led& l, storage::Log& log, std::vector<std::pair<Done, int16_t>>& ready) {
  bool moved = false;
  // Kafka: no committing while the ISR is below min.insync.replicas.
  if (l.isr.size() >= l.min_isr) {
    int64_t hw = log.log_end_offset().value();
    for (int32_t r : l.isr) {
      if (r == self_) continue;
      auto it = l.followers.find(r);
      hw = std::min(hw, it == l.followers.end() ? -1 : it->second.log_end);
    }
    if (hw >= 0) moved = log.raise_high_watermark(Offset(hw));
  }
  l.high_watermark = log.high_watermark().value();
  l.log_end = log.log_end_offset().value();
  const bool enough = l.isr.size() >= l.min_isr;
  std::erase_if(l.waiters, [&](Waiter& w) {
    if (w.offset > l.high_watermark) return false;
    ready.emplace_back(std::move(w.done), enough ? kafka_error::kNone : kafka_error::kNotEnoughReplicasAfterAppend);
    return true;
  });
  return moved;
}

void Replication::run(std::vector<std::pair<Done, int16_t>>& ready) {
  for (auto& [done, error] : ready) done(error);
}

bool Replication::on_follower_fetch(const storage::TopicPartition& tp, const PartitionMeta& meta,
                                    int32_t follower, int64_t fetch_offset, storage::Log& log,
                                    int64_t now_ms) {
  log.track_high_watermark();
  std::vector<std::pair<Done, int16_t>> ready;
  bool moved = false;
  {
    std::lock_guard lock(mu_);
    Led& l = led(tp, meta, log, now_ms);
    auto it = l.followers.find(follower);
    if (it == l.followers.end()) return false;  // not a replica of this partition
    // A fetch past the log end is refused by the read (OFFSET_OUT_OF_RANGE); below it,
    // the follower's log ends there.
    Follower& f = it->second;
    const int64_t leader_end = log.log_end_offset().value();
    f.log_end = std::min(fetch_offset, leader_end);
    if (fetch_offset >= leader_end) {
      f.caught_up_ms = now_ms;
    } else if (f.prev_leader_end >= 0 && fetch_offset >= f.prev_leader_end) {
      f.caught_up_ms = std::max(f.caught_up_ms, f.prev_fetch_ms);
    }
    f.prev_leader_end = leader_end;
    f.prev_fetch_ms = now_ms;
    moved = advance(l, log, ready);
  }
  run(ready);
  return moved;
}

bool Replication::after_leader_append(const storage::TopicPartition& tp, const PartitionMeta& meta,
                                      storage::Log& log, int64_t now_ms) {
  std::vector<std::pair<Done, int16_t>> ready;
  bool moved = false;
  {
    std::lock_guard lock(mu_);
    moved = advance(led(tp, meta, log, now_ms), log, ready);
  }
  run(ready);
  return moved;
}

void Replication::wait_for_high_watermark(const storage::TopicPartition& tp, int64_t offset,
                                          int64_t deadline_ms, const storage::Log& log, Done done) {
  int16_t error = kafka_error::kNone;
  {
    std::lock_guard lock(mu_);
    auto it = led_.find(tp);
    if (it == led_.end()) {
      error = kafka_error::kNotLeaderOrFollower;  // after_leader_append made one where it leads
    } else if (offset > log.high_watermark().value()) {
      it->second.waiters.push_back({offset, deadline_ms, std::move(done)});
      return;
    } else if (it->second.isr.size() < it->second.min_isr) {
      error = kafka_error::kNotEnoughReplicasAfterAppend;
    }
  }
  done(error);
}

void Replication::expire(int64_t now_ms) {
  std::vector<std::pair<Done, int16_t>> ready;
  {
    std::lock_guard lock(mu_);
    for (auto& [tp, l] : led_) {
      std::erase_if(l.waiters, [&](Waiter& w) {
        if (w.deadline_ms > now_ms) return false;
        ready.emplace_back(std::move(w.done), kafka_error::kRequestTimedOut);
        return true;
      });
    }
  }
  run(ready);
}

void Replication::fail_all(int16_t error) {
  std::vector<std::pair<Done, int16_t>> ready;
  {
    std::lock_guard lock(mu_);
    for (auto& [tp, l] : led_) {
      for (Waiter& w : l.waiters) ready.emplace_back(std::move(w.done), error);
      l.waiters.clear();
    }
  }
  run(ready);
}

void Replication::forget(const storage::TopicPartition& tp) {
  std::vector<std::pair<Done, int16_t>> ready;
  {
    std::lock_guard lock(mu_);
    auto it = led_.find(tp);
    if (it == led_.end()) return;
    for (Waiter& w : it->second.waiters) ready.emplace_back(std::move(w.done), kafka_error::kNotLeaderOrFollower);
    led_.erase(it);
  }
  run(ready);
}

std::vector<IsrChange> Replication::isr_changes(
    int64_t now_ms, int64_t retry_ms,
    const std::function<const PartitionMeta*(const storage::TopicPartition&)>& meta_of,
    const std::function<bool(int32_t)>& alive) {
  std::vector<IsrChange> out;
  std::vector<storage::TopicPartition> gone;
  std::lock_guard lock(mu_);
  for (auto& [tp, l] : led_) {
    const PartitionMeta* meta = meta_of(tp);
    if (meta == nullptr || meta->leader != self_ || meta->leader_epoch != l.leader_epoch) {
      gone.push_back(tp);
      continue;
    }
    l.isr = meta->isr;
    l.replicas = meta->replicas;  // a reassignment may have changed them
    if (l.proposed_ms >= 0 && l.proposed == l.isr) l.proposed_ms = -1;
    if (l.proposed_ms >= 0 && now_ms - l.proposed_ms < retry_ms) continue;
    std::vector<int32_t> next;
    for (int32_t r : l.isr) {
      if (r == self_) {
        next.push_back(r);
        continue;
      }
      auto it = l.followers.find(r);
      if (alive && !alive(r)) continue;
      // Kafka's isFollowerOutOfSync: not caught up for the lag time.
      if (it != l.followers.end() && now_ms - it->second.caught_up_ms <= lag_time_max_ms_) next.push_back(r);
    }
    for (int32_t r : l.replicas) {
      if (std::find(next.begin(), next.end(), r) != next.end() || r == self_) continue;
      if (std::find(l.isr.begin(), l.isr.end(), r) != l.isr.end()) continue;  // just dropped
      auto it = l.followers.find(r);
      // Kafka's expansion rule: it has fetched in this leader epoch (the table is reset
      // at each), its log end reached the high watermark, and it caught up with the log
      // end within the lag time (a dead follower's last position does not bring it back).
      if (it != l.followers.end() && it->second.log_end >= 0 && it->second.log_end >= l.high_watermark &&
          now_ms - it->second.caught_up_ms <= lag_time_max_ms_ && (!alive || alive(r))) {
        next.push_back(r);
      }
    }
    if (next == l.isr) continue;
    l.proposed = next;
    l.proposed_ms = now_ms;
    out.push_back({tp, std::move(next), l.leader_epoch});
  }
  // Partitions this broker no longer leads: their waits fail (the client retries on
  // the new leader). Done outside the table's lock would be nicer; the callbacks only
  // post to the waiting handler's executor.
  for (const auto& tp : gone) {
    auto it = led_.find(tp);
    for (Waiter& w : it->second.waiters) w.done(kafka_error::kNotLeaderOrFollower);
    led_.erase(it);
  }
  return out;
}

}  // namespace strata::broker

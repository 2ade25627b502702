// A replication throttle (Kafka's replication quotas, KIP-73): a token bucket of at most
// one second's bytes at `rate` bytes/s, shared by every fetch it limits on one broker.
// The follower's (follower.replication.throttled.rate) leaves throttled partitions out of
// its fetches while empty; the leader's (leader.replication.throttled.rate) answers them
// without records while empty. Both throttle only a reassignment's replicas being added
// and not yet in sync, so a throttle ends with its move.
//
// Threads: any; one mutex, taken only while a rate is set (and on the leader only for
// the partitions it throttles).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace strata::broker {

class ReplicationThrottle {
 public:
  // Refills the bucket by `rate` bytes/s since the last call; whether it holds any.
  bool open(int64_t rate) {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - refilled_).count();
    budget_ = std::min(double(rate), budget_ + elapsed * double(rate));
    refilled_ = now;
    return budget_ > 0;
  }
  // How much a throttled partition may take now (at least 1 byte, at most `most`).
  int64_t allowance(int64_t most) {
    std::lock_guard lock(mu_);
    return int64_t(std::clamp<double>(budget_, 1, double(std::max<int64_t>(most, 1))));
  }
  void spend(size_t bytes) {
    std::lock_guard lock(mu_);
    budget_ -= double(bytes);
  }

 private:
  std::mutex mu_;
  double budget_ = 0;  // guarded by mu_
  std::chrono::steady_clock::time_point refilled_ = std::chrono::steady_clock::now();  // guarded by mu_
};

}  // namespace strata::broker

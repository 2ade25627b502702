// Long-poll fetches: a fetch that has less than min.bytes registers a waiter on each of
// its partitions and sleeps on a timer until max.wait.ms; an append to any of them
// wakes it (no polling). Appends and waiters live on different shards, so the registry
// is guarded by a mutex and wake-ups are posted to the waiter's executor.
#pragma once

#include <asio.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "storage/checkpoint.h"

namespace strata::broker {

class FetchWaiters {
 public:
  struct Waiter {
    explicit Waiter(const asio::any_io_executor& ex) : timer(ex) {}
    asio::steady_timer timer;  // cancelled to wake
    bool woken = false;        // touched on the waiter's executor only
  };

  void add(const std::shared_ptr<Waiter>& w, const std::vector<storage::TopicPartition>& tps);
  // Wakes every waiter on `tp` and forgets them (a woken fetch registers again).
  void notify(const storage::TopicPartition& tp);

 private:
  std::mutex mu_;
  std::map<storage::TopicPartition, std::vector<std::weak_ptr<Waiter>>> waiters_;
};

}  // namespace strata::broker

#include "broker/fetch_waiters.h"

namespace strata::broker {

void FetchWaiters::add(const std::shared_ptr<Waiter>& w,
                       const std::vector<storage::TopicPartition>& tps) {
  std::lock_guard lock(mu_);
  for (const auto& tp : tps) {
    auto& list = waiters_[tp];
    std::erase_if(list, [](const auto& weak) { return weak.expired(); });  // bounded by live fetches
    list.push_back(w);
  }
}

void FetchWaiters::notify(const storage::TopicPartition& tp) {
  std::vector<std::weak_ptr<Waiter>> wake;
  {
    std::lock_guard lock(mu_);
    auto it = waiters_.find(tp);
    if (it == waiters_.end() || it->second.empty()) return;
    wake.swap(it->second);
  }
  for (auto& weak : wake) {
    if (auto w = weak.lock()) {
      asio::post(w->timer.get_executor(), [w] {
        w->woken = true;
        w->timer.cancel();
      });
    }
  }
}

}  // namespace strata::broker

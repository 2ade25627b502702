// A mutex for coroutines on any shard: lock() suspends the caller (never its thread)
// until the mutex is free, and resumes it on its own executor. Used to serialize topic
// lifecycle changes (create, delete, new partitions, config changes), which hop between
// shards while they hold it. FIFO: waiters are served in the order they asked.
#pragma once

#include <asio.hpp>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace strata::broker {

class AsyncMutex {
 public:
  // Unlocks when destroyed (a moved-from guard does nothing).
  class Guard {
   public:
    explicit Guard(AsyncMutex* m) : m_(m) {}
    Guard(Guard&& o) noexcept : m_(o.m_) { o.m_ = nullptr; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() {
      if (m_ != nullptr) m_->unlock();
    }

   private:
    AsyncMutex* m_;
  };

  asio::awaitable<Guard> lock() {
    co_await asio::async_initiate<decltype(asio::use_awaitable), void()>(
        [this](auto handler) {
          auto h = std::make_shared<decltype(handler)>(std::move(handler));
          auto resume = [h] {
            auto ex = asio::get_associated_executor(*h);
            asio::post(ex, [h]() mutable { std::move(*h)(); });
          };
          std::unique_lock lk(mu_);
          if (!held_) {
            held_ = true;
            lk.unlock();
            resume();
            return;
          }
          waiters_.push_back(std::move(resume));
        },
        asio::use_awaitable);
    co_return Guard(this);
  }

 private:
  void unlock() {
    std::function<void()> next;
    {
      std::lock_guard lk(mu_);
      if (waiters_.empty()) {
        held_ = false;
        return;
      }
      next = std::move(waiters_.front());  // ownership passes to the next waiter
      waiters_.pop_front();
    }
    next();
  }

  std::mutex mu_;
  bool held_ = false;
  std::deque<std::function<void()>> waiters_;
};

}  // namespace strata::broker

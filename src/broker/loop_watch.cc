#include "broker/loop_watch.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <chrono>

namespace strata::broker {

LoopWatch::LoopWatch(size_t shards) {
  for (size_t i = 0; i < shards; ++i) shards_.push_back(std::make_unique<PerShard>());
}

void LoopWatch::start(size_t shard, asio::io_context& context, const std::atomic<bool>& stopped) {
  asio::co_spawn(context, ticks(*shards_.at(shard), stopped), asio::detached);
}

asio::awaitable<void> LoopWatch::ticks(PerShard& out, const std::atomic<bool>& stopped) {
  using Clock = std::chrono::steady_clock;
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (!stopped.load(std::memory_order_relaxed)) {
    const Clock::time_point due = Clock::now() + std::chrono::milliseconds(kTickMs);
    timer.expires_at(due);
    asio::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;
    const auto late_us = uint64_t(std::max<int64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - due).count(), 0));
    uint64_t seen = out.max_lag_us.load(std::memory_order_relaxed);
    while (late_us > seen && !out.max_lag_us.compare_exchange_weak(seen, late_us, std::memory_order_relaxed)) {
    }
    if (late_us >= uint64_t(kStallMs) * 1000) {
      out.stalls.fetch_add(1, std::memory_order_relaxed);
      out.stall_us.fetch_add(late_us, std::memory_order_relaxed);
    }
  }
}

std::vector<LoopWatch::Figures> LoopWatch::figures() const {
  std::vector<Figures> out;
  for (const auto& s : shards_) {
    out.push_back({s->stalls.load(std::memory_order_relaxed),
                   double(s->stall_us.load(std::memory_order_relaxed)) / 1e6,
                   double(s->max_lag_us.load(std::memory_order_relaxed)) / 1000.0});
  }
  return out;
}

}  // namespace strata::broker

// Waiting for state that reaches this broker through the watch thread (cluster views,
// metadata snapshots), which no callback announces.
#pragma once

#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <chrono>

namespace strata::broker {

// Polls `ready` every 10 ms on the calling coroutine's executor until it holds or
// `timeout` has passed: whether it came true. `ready` is a plain function.
template <class Ready>
asio::awaitable<bool> poll_until(Ready ready, std::chrono::milliseconds timeout) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) co_return false;
    timer.expires_after(std::chrono::milliseconds(10));
    co_await timer.async_wait(asio::use_awaitable);
  }
  co_return true;
}

}  // namespace strata::broker

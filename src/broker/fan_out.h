// One concurrent hop per owner shard for the items of a request (produce, fetch, list
// offsets, delete records, topic creation...).
//
// fan_out(broker, n, shard_of, fn) runs fn(i) for every i in [0, n) on shard
// shard_of(i): the items are grouped by shard, each shard runs its items in increasing
// order in one hop, all shards at once, and the caller resumes when every shard is done.
// The hops are posted when the co_await begins, before the caller suspends, so two
// fan-outs started in order reach each shard in order (Kafka's per-connection order
// relies on it: net/request_order.h). `fn` runs on the item's shard: it captures only
// references, pointers and trivially copyable values (checked), and writes its result
// into caller-owned storage indexed by i (the caller is suspended meanwhile).
#pragma once

#include <asio.hpp>

#include <atomic>
#include <memory>
#include <type_traits>
#include <vector>

#include <cstdint>

namespace strata::broker {

// What a callable handed to another shard may be: it is copied into that shard's queue
// and runs while the caller is suspended, so it captures references, pointers and plain
// values only (a std::string captured by value in a hop is what GCC 12 mis-copies, and a
// capture that owns memory would be freed on the wrong thread).
template <class F>
concept HopCallable = std::is_trivially_copyable_v<F>;

// What shard_of returns for an item that needs no hop (e.g. it already has an error).
inline constexpr size_t kNoHop = SIZE_MAX;

// `Shards` is anything with shard(i) (an asio::io_context&) and shard_count(): the
// Broker, or a test's set of event loops.
template <class Shards, class ShardOf, class Fn>
auto fan_out(Shards& broker, size_t n, ShardOf shard_of, Fn fn) {
  static_assert(HopCallable<Fn>,
                "a shard hop captures only references, pointers and trivially copyable values");
  std::vector<std::vector<size_t>> by_shard(broker.shard_count());
  for (size_t i = 0; i < n; ++i) {
    const size_t shard = shard_of(i);
    if (shard != kNoHop) by_shard[shard].push_back(i);
  }
  auto initiate = [&broker, fn](auto handler, std::vector<std::vector<size_t>> groups) {
    using H = decltype(handler);
    struct State {
      State(H h_in, std::vector<std::vector<size_t>> g) : h(std::move(h_in)), groups(std::move(g)) {}
      H h;
      std::vector<std::vector<size_t>> groups;
      std::atomic<size_t> left{0};
    };
    auto s = std::make_shared<State>(std::move(handler), std::move(groups));
    size_t busy = 0;
    for (const auto& g : s->groups) busy += g.empty() ? 0 : 1;
    if (busy == 0) {
      auto ex = asio::get_associated_executor(s->h);
      asio::post(ex, [s]() mutable { std::move(s->h)(); });
      return;
    }
    s->left = busy;
    for (size_t shard = 0; shard < s->groups.size(); ++shard) {
      if (s->groups[shard].empty()) continue;
      asio::post(broker.shard(shard), [s, shard, fn]() mutable {
        for (size_t i : s->groups[shard]) fn(i);
        if (--s->left == 0) {
          auto ex = asio::get_associated_executor(s->h);
          asio::post(ex, [s]() mutable { std::move(s->h)(); });
        }
      });
    }
  };
  return asio::async_initiate<decltype(asio::use_awaitable), void()>(
      std::move(initiate), asio::use_awaitable, std::move(by_shard));
}

}  // namespace strata::broker

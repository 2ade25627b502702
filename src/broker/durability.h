// Waiting for SyncService rounds from a coroutine: each log's sync callback (on the
// sync thread) counts down, and the last resumes the waiter on its own executor.
#pragma once

#include <asio.hpp>

#include <atomic>
#include <memory>
#include <vector>

#include "broker/broker.h"
#include "storage/log.h"

namespace strata::broker {

struct SyncTarget {
  size_t shard;
  storage::Log* log;
};

// Requests a sync of everything appended so far to each log (each on its owner shard;
// all requests go out before any wait, so they share fdatasync rounds) and completes
// when all are durable: true, or false if any failed.
inline asio::awaitable<bool> wait_durable(Broker& broker, std::vector<SyncTarget> targets) {
  if (targets.empty()) co_return true;
  auto initiate = [&broker, targets = std::move(targets)](auto handler) {
    struct State {
      State(decltype(handler) handler_in, size_t n) : h(std::move(handler_in)), left(n) {}
      decltype(handler) h;
      std::atomic<size_t> left;
      std::atomic<bool> ok{true};
    };
    auto s = std::make_shared<State>(std::move(handler), targets.size());
    for (const SyncTarget& t : targets) {
      asio::post(broker.shard(t.shard), [log = t.log, s] {
        log->sync([s](Result<void, storage::StorageError> r) {
          if (!r.ok()) s->ok = false;
          if (--s->left == 0) {
            auto ex = asio::get_associated_executor(s->h);
            asio::post(ex, [s]() mutable { std::move(s->h)(s->ok.load()); });
          }
        });
      });
    }
  };
  co_return co_await asio::async_initiate<decltype(asio::use_awaitable), void(bool)>(
      std::move(initiate), asio::use_awaitable);
}

}  // namespace strata::broker

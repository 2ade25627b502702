// Waiting for SyncService rounds from a coroutine. A handler asks each log it appended to
// for a sync on the log's owner shard (DurableWait::sync, inside the same hop as the
// append, so every request's syncs go out before any wait and share fdatasync rounds),
// then waits once for all of them. Sync callbacks run on the sync thread.
#pragma once

#include <asio.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "storage/log.h"

namespace strata::broker {

class DurableWait : public std::enable_shared_from_this<DurableWait> {
 public:
  // `items`: how many results the caller tracks (indexes for sync()).
  explicit DurableWait(size_t items) : failed_(items), errors_(items) {}

  // One more completion to wait for, besides syncs (acks=all's high watermark): the
  // returned callable must be called once, from any thread, with a Kafka error code
  // (0: fine) that item `index` then answers with.
  std::function<void(int16_t)> hold(size_t index) {
    {
      std::lock_guard lock(mu_);
      ++left_;
    }
    return [self = shared_from_this(), index](int16_t error) {
      if (error != 0) self->errors_[index].store(error);
      self->finish_one();
    };
  }

  // On the log's owner shard: asks for everything appended so far to be made durable;
  // item `index` fails if that sync fails.
  void sync(storage::Log& log, size_t index) {
    {
      std::lock_guard lock(mu_);
      ++left_;
    }
    log.sync([self = shared_from_this(), index](Result<void, storage::StorageError> r) {
      if (!r.ok()) self->failed_[index].store(true);
      self->finish_one();
    });
  }

  // Once every sync() has been asked for: resumes the caller (on its executor) when all
  // are durable. The caller keeps the DurableWait alive until then. Not a coroutine, and
  // the initiation captures only `this`: GCC 12 destroys a by-value capture of a
  // temporary inside a co_await expression twice (a shared_ptr captured here was freed
  // under the waiter).
  auto wait() {
    return asio::async_initiate<decltype(asio::use_awaitable), void()>(
        [this](auto handler) {
          auto h = std::make_shared<decltype(handler)>(std::move(handler));
          auto ex = asio::get_associated_executor(*h);
          std::function<void()> resume = [h, ex] { asio::post(ex, [h]() mutable { std::move(*h)(); }); };
          std::unique_lock lock(mu_);
          if (left_ == 0) {
            lock.unlock();
            resume();
            return;
          }
          resume_ = std::move(resume);
        },
        asio::use_awaitable);
  }

  bool failed(size_t index) const { return failed_[index].load(); }
  // The error a hold() completion gave item `index`; 0 if none.
  int16_t error(size_t index) const { return errors_[index].load(); }

 private:
  void finish_one() {
    std::function<void()> resume;
    {
      std::lock_guard lock(mu_);
      if (--left_ == 0) resume = std::move(resume_);
    }
    if (resume) resume();
  }

  std::mutex mu_;
  size_t left_ = 0;
  std::function<void()> resume_;
  std::vector<std::atomic<bool>> failed_;
  std::vector<std::atomic<int16_t>> errors_;
};

}  // namespace strata::broker

#include "net/request_order.h"

#include "common/shard.h"

namespace strata::net {

asio::awaitable<void> RequestOrder::wait(uint64_t ticket) {
  if (serving_ == ticket) co_return;
  STRATA_ASSERT(ticket > serving_);
  asio::steady_timer timer(co_await asio::this_coro::executor);
  waiting_[ticket] = &timer;
  while (serving_ != ticket) {
    timer.expires_at(asio::steady_timer::time_point::max());
    asio::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  waiting_.erase(ticket);
}

void RequestOrder::release(uint64_t ticket) {
  if (ticket != serving_) {
    STRATA_ASSERT(ticket > serving_);
    released_early_.insert(ticket);
    return;
  }
  ++serving_;
  while (released_early_.erase(serving_) > 0) ++serving_;
  // Wakes the next request by cancelling its timer: it resumes from the executor's
  // queue, after the caller has made its posts and suspended.
  if (auto it = waiting_.find(serving_); it != waiting_.end()) it->second->cancel();
}

asio::awaitable<void> Turn::acquire() {
  if (!order_ || acquired_) co_return;
  co_await order_->wait(ticket_);
  acquired_ = true;
}

void Turn::release() {
  if (!order_) return;
  order_->release(ticket_);
  order_.reset();
}

}  // namespace strata::net

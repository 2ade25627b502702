#include "net/limits.h"

#include <algorithm>
#include <cassert>
#include <chrono>

namespace strata::net {

asio::ip::address normalized(const asio::ip::address& a) {
  if (a.is_v6() && a.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
  }
  return a;
}

// ---- ConnectionQuotas ------------------------------------------------------------

ConnectionQuotas::ConnectionQuotas(int32_t max_total, int32_t max_per_ip,
                                   std::map<asio::ip::address, int32_t> per_ip_overrides)
    : max_total_(max_total), max_per_ip_(max_per_ip), overrides_(std::move(per_ip_overrides)) {}

bool ConnectionQuotas::try_reserve() {
  std::lock_guard lock(mutex_);
  if (total_ < max_total_) {
    ++total_;
    return true;
  }
  acceptor_waiting_ = true;
  return false;
}

void ConnectionQuotas::unreserve() {
  std::unique_lock lock(mutex_);
  assert(total_ > 0);
  --total_;
  freed_locked(lock);
}

bool ConnectionQuotas::admit(const asio::ip::address& peer) {
  std::unique_lock lock(mutex_);
  auto it = per_ip_.try_emplace(peer, 0).first;
  if (it->second >= limit_for(peer)) {
    if (it->second == 0) per_ip_.erase(it);
    --total_;
    freed_locked(lock);
    return false;
  }
  ++it->second;
  ++admitted_;
  return true;
}

void ConnectionQuotas::release(const asio::ip::address& peer) {
  std::unique_lock lock(mutex_);
  auto it = per_ip_.find(peer);
  assert(it != per_ip_.end() && it->second > 0 && total_ > 0);
  if (it != per_ip_.end() && --it->second == 0) per_ip_.erase(it);
  --admitted_;
  --total_;
  freed_locked(lock);
}

void ConnectionQuotas::freed_locked(std::unique_lock<std::mutex>& lock) {
  if (!acceptor_waiting_ || !slot_freed_) return;
  acceptor_waiting_ = false;
  auto notify = slot_freed_;
  lock.unlock();
  notify();
}

void ConnectionQuotas::set_slot_freed(std::function<void()> f) {
  std::lock_guard lock(mutex_);
  slot_freed_ = std::move(f);
}

int32_t ConnectionQuotas::limit_for(const asio::ip::address& peer) const {
  auto it = overrides_.find(peer);
  return it == overrides_.end() ? max_per_ip_ : it->second;
}

int32_t ConnectionQuotas::open() const {
  std::lock_guard lock(mutex_);
  return admitted_;
}

int32_t ConnectionQuotas::open_from(const asio::ip::address& peer) const {
  std::lock_guard lock(mutex_);
  auto it = per_ip_.find(peer);
  return it == per_ip_.end() ? 0 : it->second;
}

// ---- BudgetLease -------------------------------------------------------------------

BudgetLease::BudgetLease(BudgetLease&& o) noexcept
    : budget_(o.budget_), bytes_(o.bytes_), overdraft_(o.overdraft_) {
  o.budget_ = nullptr;
  o.bytes_ = 0;
  o.overdraft_ = false;
}

BudgetLease& BudgetLease::operator=(BudgetLease&& o) noexcept {
  if (this != &o) {
    reset();
    budget_ = o.budget_;
    bytes_ = o.bytes_;
    overdraft_ = o.overdraft_;
    o.budget_ = nullptr;
    o.bytes_ = 0;
    o.overdraft_ = false;
  }
  return *this;
}

void BudgetLease::reset() {
  if (budget_ != nullptr && bytes_ > 0) budget_->release(bytes_);
  budget_ = nullptr;
  bytes_ = 0;
  overdraft_ = false;
}

// ---- RequestBudget -------------------------------------------------------------------

RequestBudget::RequestBudget(int64_t bytes_max) : max_(bytes_max) {}

bool RequestBudget::fits_locked(size_t bytes) const {
  return max_ <= 0 || used_ + int64_t(bytes) <= max_;
}

bool RequestBudget::try_grow(BudgetLease& lease, size_t bytes) {
  assert(lease.budget_ == nullptr || lease.budget_ == this);
  std::lock_guard lock(mutex_);
  if (!lease.overdraft_ && !(queue_.empty() && fits_locked(bytes))) return false;
  used_ += int64_t(bytes);
  lease.budget_ = this;
  lease.bytes_ += bytes;
  return true;
}

asio::awaitable<bool> RequestBudget::grow(BudgetLease& lease, size_t bytes,
                                          const std::shared_ptr<BudgetWaiter>& waiter) {
  if (waiter->cancelled_) co_return false;
  if (try_grow(lease, bytes)) co_return true;
  std::vector<std::shared_ptr<BudgetWaiter>> to_wake;
  {
    std::lock_guard lock(mutex_);
    waiter->want_ = bytes;
    waiter->held_ = lease.bytes_;
    waiter->granted_ = false;
    waiter->overdraft_ = false;
    queue_.push_back(waiter);
    waiting_held_ += int64_t(waiter->held_);
    to_wake = grant_locked();  // this waiter may complete a standstill
  }
  wake(std::move(to_wake));
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (waiter->granted_) {
        waiter->granted_ = false;
        lease.budget_ = this;
        lease.bytes_ += waiter->want_;
        lease.overdraft_ = lease.overdraft_ || waiter->overdraft_;
        co_return true;
      }
    }
    if (waiter->cancelled_) {
      {
        std::lock_guard lock(mutex_);
        auto it = std::find(queue_.begin(), queue_.end(), waiter);
        if (it != queue_.end()) {
          waiting_held_ -= int64_t(waiter->held_);
          queue_.erase(it);
        }
        to_wake = grant_locked();  // it may have been the head that others queued behind
      }
      wake(std::move(to_wake));
      co_return false;
    }
    // Woken by a grant (posted from the granting thread), a cancel, or a stale wake of
    // an earlier grant: look again.
    asio::error_code ec;
    waiter->timer_.expires_at(asio::steady_timer::time_point::max());
    co_await waiter->timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

void RequestBudget::release(size_t bytes) {
  std::vector<std::shared_ptr<BudgetWaiter>> to_wake;
  {
    std::lock_guard lock(mutex_);
    assert(used_ >= int64_t(bytes));
    used_ -= int64_t(bytes);
    to_wake = grant_locked();
  }
  wake(std::move(to_wake));
}

std::vector<std::shared_ptr<BudgetWaiter>> RequestBudget::grant_locked() {
  std::vector<std::shared_ptr<BudgetWaiter>> granted;
  auto grant = [&](std::deque<std::shared_ptr<BudgetWaiter>>::iterator it, bool overdraft) {
    auto w = *it;
    used_ += int64_t(w->want_);
    waiting_held_ -= int64_t(w->held_);
    w->granted_ = true;
    w->overdraft_ = overdraft;
    queue_.erase(it);
    granted.push_back(std::move(w));
  };
  while (!queue_.empty() && fits_locked(queue_.front()->want_)) grant(queue_.begin(), false);
  if (!queue_.empty() && used_ == waiting_held_) {
    // Standstill: every reserved byte waits for more. Let the frame furthest along
    // finish past the budget; it gives everything back once handled.
    auto most = std::max_element(queue_.begin(), queue_.end(),
                                 [](const auto& a, const auto& b) { return a->held_ < b->held_; });
    grant(most, true);
  }
  return granted;
}

void RequestBudget::wake(std::vector<std::shared_ptr<BudgetWaiter>> waiters) {
  for (auto& w : waiters) {
    auto ex = w->timer_.get_executor();
    asio::post(ex, [w = std::move(w)] { w->timer_.cancel(); });
  }
}

int64_t RequestBudget::used() const {
  std::lock_guard lock(mutex_);
  return used_;
}

size_t RequestBudget::waiting() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

}  // namespace strata::net

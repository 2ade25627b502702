// Broker-wide limits of the network layer, shared by every shard:
//
// - ConnectionQuotas: max.connections and max.connections.per.ip (with
//   max.connections.per.ip.overrides), counted from accept to close.
// - RequestBudget: queued.max.request.bytes, the memory request frames may hold while
//   they are read and handled; a connection that would exceed it waits (stops reading).
//
// Both are called from every shard's thread (a connection closes on its own shard) and
// take a mutex only on rare events (an accept, a close, a frame's buffer growing).
#pragma once

#include <asio.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace strata::net {

// An IPv4-mapped IPv6 address as its IPv4 address, so one host counts once.
asio::ip::address normalized(const asio::ip::address& a);

class ConnectionQuotas {
 public:
  static constexpr int32_t kUnlimited = 2147483647;  // Kafka's default for both limits

  ConnectionQuotas(int32_t max_total, int32_t max_per_ip,
                   std::map<asio::ip::address, int32_t> per_ip_overrides);

  // Takes one of max.connections' slots before an accept. False when all are taken:
  // `slot_freed` (set_slot_freed) is then called, from whichever thread closes a
  // connection, once one frees.
  bool try_reserve();
  // Gives back a reserved slot that no connection took (the accept failed).
  void unreserve();
  // Counts a reserved slot against the peer's address. False when the address is at its
  // limit: the slot is given back and the caller closes the socket (Kafka closes a
  // connection over max.connections.per.ip right after accepting it).
  bool admit(const asio::ip::address& peer);
  // An admitted connection closed.
  void release(const asio::ip::address& peer);

  // Called with the mutex not held; empty (the default) to call nothing.
  void set_slot_freed(std::function<void()> f);

  int32_t limit_for(const asio::ip::address& peer) const;
  int32_t max_total() const { return max_total_; }
  int32_t open() const;  // admitted connections (not the acceptor's reserved slot)
  int32_t open_from(const asio::ip::address& peer) const;

 private:
  void freed_locked(std::unique_lock<std::mutex>& lock);

  const int32_t max_total_;
  const int32_t max_per_ip_;
  const std::map<asio::ip::address, int32_t> overrides_;
  mutable std::mutex mutex_;
  int32_t total_ = 0;  // reserved + admitted
  int32_t admitted_ = 0;
  std::map<asio::ip::address, int32_t> per_ip_;
  bool acceptor_waiting_ = false;
  std::function<void()> slot_freed_;
};

// An admitted connection's place in ConnectionQuotas, given back when released or
// destroyed. Movable; the quotas must outlive it.
class ConnectionSlot {
 public:
  ConnectionSlot() = default;
  ConnectionSlot(ConnectionQuotas* quotas, asio::ip::address peer)
      : quotas_(quotas), peer_(peer) {}
  ConnectionSlot(ConnectionSlot&& o) noexcept : quotas_(o.quotas_), peer_(o.peer_) {
    o.quotas_ = nullptr;
  }
  ConnectionSlot& operator=(ConnectionSlot&& o) noexcept {
    if (this != &o) {
      release();
      quotas_ = o.quotas_;
      peer_ = o.peer_;
      o.quotas_ = nullptr;
    }
    return *this;
  }
  ~ConnectionSlot() { release(); }
  void release() {
    if (quotas_ != nullptr) quotas_->release(peer_);
    quotas_ = nullptr;
  }

 private:
  ConnectionQuotas* quotas_ = nullptr;
  asio::ip::address peer_;
};

class RequestBudget;

// One connection's handle for waiting on the budget. Lives on the connection's shard
// (its timer wakes the waiting coroutine there); shared with the budget's queue, so a
// wake posted from another shard never outlives it.
class BudgetWaiter {
 public:
  explicit BudgetWaiter(const asio::any_io_executor& ex) : timer_(ex) {}
  // On the owner's shard: a pending or later acquire gives up (the connection closes).
  void cancel() {
    cancelled_ = true;
    timer_.cancel();
  }

 private:
  friend class RequestBudget;
  asio::steady_timer timer_;
  bool cancelled_ = false;  // owner's shard only
  // Under RequestBudget::mutex_:
  size_t want_ = 0;        // bytes asked for
  size_t held_ = 0;        // bytes its frame already holds (a frame growing)
  bool granted_ = false;
  bool overdraft_ = false;  // granted past the budget to break a standstill
};

// The bytes one request frame holds of the budget; given back when destroyed (when the
// request's handling finishes: it lives in net::Frame). Movable.
class BudgetLease {
 public:
  BudgetLease() = default;
  BudgetLease(BudgetLease&& o) noexcept;
  BudgetLease& operator=(BudgetLease&& o) noexcept;
  ~BudgetLease() { reset(); }
  void reset();
  size_t bytes() const { return bytes_; }

 private:
  friend class RequestBudget;
  RequestBudget* budget_ = nullptr;
  size_t bytes_ = 0;
  bool overdraft_ = false;  // may grow to the end of its frame without waiting
};

// queued.max.request.bytes. A frame's buffer grows as its bytes arrive, and each growth
// first takes its bytes from the budget (RequestBudget::grow); a growth that does not fit
// waits, in arrival order, until handled requests give bytes back. So the budget bounds
// what request frames hold in memory, counted from what peers actually sent, not from
// what their size prefixes promise (a half-open connection holds a few bytes, not its
// claimed 100 MiB).
//
// Standstill: when every reserved byte belongs to frames that are themselves waiting to
// grow (large frames read in parallel, none complete), nothing would ever be released;
// the waiter holding most is then let past the budget for the rest of its frame. So
// memory stays under budget + socket.request.max.bytes, and a frame larger than the
// whole budget is read when it must (it waits first for the others to finish).
class RequestBudget {
 public:
  // bytes_max <= 0: unbounded (Kafka's -1): grow() never waits and nothing is counted.
  explicit RequestBudget(int64_t bytes_max);
  RequestBudget(const RequestBudget&) = delete;
  RequestBudget& operator=(const RequestBudget&) = delete;

  // Adds `bytes` to `lease`, waiting while they do not fit. False when the waiter was
  // cancelled meanwhile (the lease is then unchanged). Runs on `waiter`'s shard.
  asio::awaitable<bool> grow(BudgetLease& lease, size_t bytes,
                             const std::shared_ptr<BudgetWaiter>& waiter);
  // Adds `bytes` to `lease` if they fit now (nobody waiting, room left); else false.
  bool try_grow(BudgetLease& lease, size_t bytes);

  bool bounded() const { return max_ > 0; }
  int64_t bytes_max() const { return max_; }
  int64_t used() const;
  size_t waiting() const;

 private:
  friend class BudgetLease;
  void release(size_t bytes);
  bool fits_locked(size_t bytes) const;
  // Grants queued waiters that fit (in order), or breaks a standstill; returns whom to wake.
  std::vector<std::shared_ptr<BudgetWaiter>> grant_locked();
  static void wake(std::vector<std::shared_ptr<BudgetWaiter>> waiters);

  const int64_t max_;
  mutable std::mutex mutex_;
  int64_t used_ = 0;
  int64_t waiting_held_ = 0;  // sum of held_ over queued waiters
  std::deque<std::shared_ptr<BudgetWaiter>> queue_;
};

}  // namespace strata::net

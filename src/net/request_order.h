// Kafka's per-connection order: a broker processes the requests of one connection in the
// order they were sent. Strata handles a connection's pipelined requests concurrently
// (a durable produce waiting for fdatasync must not hold up the next one), so each
// request holds a Turn, a ticket in its connection's RequestOrder: it takes effect
// (appends, commits, transaction steps, deletes: anything another request could observe)
// only once every earlier request of the connection has released its turn.
//
// Contract for handlers: acquire() before the first effect; release() once every effect
// has been posted to the shards that carry it out (posts to one shard run in the order
// they were made, so posting in turn order is applying in turn order). A handler that
// releases and then waits (fdatasync, a long-poll fetch, a rebalance) lets the next
// request go ahead, which is where pipelining still pays. Releasing happens at the latest
// when the Turn is destroyed, so an early return or a failed decode never stalls the
// connection. Everything here runs on the connection's shard.
#pragma once

#include <asio.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <set>

namespace strata::net {

class RequestOrder {
 public:
  // The next request's ticket, in the order frames were read.
  uint64_t issue() { return next_ticket_++; }
  bool is_turn_of(uint64_t ticket) const { return serving_ == ticket; }
  // Resumes once `ticket` is served (every earlier ticket released).
  asio::awaitable<void> wait(uint64_t ticket);
  // Ends `ticket`'s turn (or notes it ended early, for a ticket not served yet).
  void release(uint64_t ticket);

 private:
  uint64_t next_ticket_ = 0;
  uint64_t serving_ = 0;
  std::set<uint64_t> released_early_;
  std::map<uint64_t, asio::steady_timer*> waiting_;
};

// A request's place in its connection's order. Default-constructed: no order (requests
// made inside the broker, tests): acquire() returns at once.
class Turn {
 public:
  Turn() = default;
  Turn(std::shared_ptr<RequestOrder> order, uint64_t ticket)
      : order_(std::move(order)), ticket_(ticket) {}
  Turn(Turn&& other) noexcept { *this = std::move(other); }
  Turn& operator=(Turn&& other) noexcept {
    if (this != &other) {
      release();
      order_ = std::move(other.order_);
      ticket_ = other.ticket_;
      acquired_ = other.acquired_;
      other.order_.reset();
    }
    return *this;
  }
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;
  ~Turn() { release(); }

  asio::awaitable<void> acquire();
  void release();
  bool held() const { return order_ && acquired_; }

 private:
  std::shared_ptr<RequestOrder> order_;
  uint64_t ticket_ = 0;
  bool acquired_ = false;
};

}  // namespace strata::net

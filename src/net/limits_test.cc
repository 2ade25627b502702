// ConnectionQuotas, RequestBudget and LogLimit on their own (net_test.cc has them in a
// running server).
#include "net/limits.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/log_limit.h"

namespace strata::net {
namespace {

using namespace std::chrono_literals;

const asio::ip::address kLocal = asio::ip::make_address("127.0.0.1");
const asio::ip::address kOther = asio::ip::make_address("10.1.2.3");

TEST(ConnectionQuotas, TotalLimitReservesAndReleases) {
  ConnectionQuotas q(2, ConnectionQuotas::kUnlimited, {});
  int freed = 0;
  q.set_slot_freed([&] { ++freed; });
  ASSERT_TRUE(q.try_reserve());
  ASSERT_TRUE(q.admit(kLocal));
  ASSERT_TRUE(q.try_reserve());
  q.unreserve();  // an accept that failed
  EXPECT_EQ(freed, 0) << "nobody was waiting";
  ASSERT_TRUE(q.try_reserve());
  ASSERT_TRUE(q.admit(kOther));
  EXPECT_FALSE(q.try_reserve());
  EXPECT_EQ(q.open(), 2);
  q.release(kLocal);
  EXPECT_EQ(freed, 1) << "the waiting acceptor is told once";
  q.release(kOther);
  EXPECT_EQ(freed, 1);
  EXPECT_EQ(q.open(), 0);
}

TEST(ConnectionQuotas, PerIpLimitAndOverrides) {
  ConnectionQuotas q(ConnectionQuotas::kUnlimited, 1, {{kOther, 3}});
  ASSERT_TRUE(q.try_reserve());
  ASSERT_TRUE(q.admit(kLocal));
  ASSERT_TRUE(q.try_reserve());
  EXPECT_FALSE(q.admit(kLocal)) << "max.connections.per.ip=1";
  EXPECT_EQ(q.open(), 1) << "the refused connection is not counted";
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(q.try_reserve());
    EXPECT_TRUE(q.admit(kOther)) << i;
  }
  ASSERT_TRUE(q.try_reserve());
  EXPECT_FALSE(q.admit(kOther)) << "override 10.1.2.3:3";
  EXPECT_EQ(q.open_from(kOther), 3);
  EXPECT_EQ(q.limit_for(kLocal), 1);
  EXPECT_EQ(q.limit_for(kOther), 3);
}

TEST(ConnectionQuotas, ZeroPerIpWithOverride) {
  ConnectionQuotas q(ConnectionQuotas::kUnlimited, 0, {{kLocal, 1}});
  ASSERT_TRUE(q.try_reserve());
  EXPECT_FALSE(q.admit(kOther));
  ASSERT_TRUE(q.try_reserve());
  EXPECT_TRUE(q.admit(kLocal));
}

TEST(ConnectionQuotas, SlotGivesBackOnce) {
  ConnectionQuotas q(1, ConnectionQuotas::kUnlimited, {});
  ASSERT_TRUE(q.try_reserve());
  ASSERT_TRUE(q.admit(kLocal));
  {
    ConnectionSlot slot(&q, kLocal);
    ConnectionSlot moved = std::move(slot);
    moved.release();
    EXPECT_EQ(q.open(), 0);
  }  // both destroyed: nothing more given back
  EXPECT_EQ(q.open(), 0);
}

TEST(ConnectionQuotas, V4MappedCountsAsV4) {
  EXPECT_EQ(normalized(asio::ip::make_address("::ffff:127.0.0.1")), kLocal);
  EXPECT_EQ(normalized(asio::ip::make_address("::1")), asio::ip::make_address("::1"));
}

// Runs `body` as a coroutine on its own io_context thread; returns when it finished.
struct Shard {
  asio::io_context io{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard = asio::make_work_guard(io);
  std::thread thread{[this] { io.run(); }};
  ~Shard() {
    guard.reset();
    thread.join();
  }
};

TEST(RequestBudget, TryGrowWithinBudget) {
  RequestBudget b(100);
  BudgetLease l1, l2;
  EXPECT_TRUE(b.try_grow(l1, 60));
  EXPECT_FALSE(b.try_grow(l2, 50));
  EXPECT_TRUE(b.try_grow(l2, 40));
  EXPECT_EQ(b.used(), 100);
  l1.reset();
  EXPECT_EQ(b.used(), 40);
  BudgetLease l3 = std::move(l2);
  EXPECT_EQ(b.used(), 40);
  l3.reset();
  EXPECT_EQ(b.used(), 0);
}

TEST(RequestBudget, UnboundedCountsButNeverRefuses) {
  RequestBudget b(-1);
  BudgetLease l;
  EXPECT_TRUE(b.try_grow(l, size_t(1) << 40));
  EXPECT_FALSE(b.bounded());
}

// A waiter on one shard is woken on its own shard by a release from another thread.
TEST(RequestBudget, WaiterWokenOnItsShardByRelease) {
  RequestBudget b(100);
  BudgetLease held;
  ASSERT_TRUE(b.try_grow(held, 80));
  Shard shard;
  auto waiter = std::make_shared<BudgetWaiter>(shard.io.get_executor());
  std::atomic<int> result{-1};
  std::atomic<bool> on_shard{false};
  BudgetLease got;
  asio::co_spawn(shard.io, [&]() -> asio::awaitable<void> {
    const bool ok = co_await b.grow(got, 50, waiter);
    on_shard = shard.thread.get_id() == std::this_thread::get_id();
    result = ok ? 1 : 0;
  }, asio::detached);
  while (b.waiting() == 0) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(result.load(), -1) << "50 more do not fit while 80 are held";
  held.reset();  // from this thread
  for (int i = 0; i < 2000 && result.load() == -1; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(result.load(), 1);
  EXPECT_TRUE(on_shard.load());
  EXPECT_EQ(b.used(), 50);
  asio::post(shard.io, [&] { got.reset(); });
}

TEST(RequestBudget, CancelledWaiterGivesUpAndUnblocksOthers) {
  RequestBudget b(100);
  BudgetLease held;
  ASSERT_TRUE(b.try_grow(held, 60));
  Shard shard;
  auto big = std::make_shared<BudgetWaiter>(shard.io.get_executor());
  auto small = std::make_shared<BudgetWaiter>(shard.io.get_executor());
  std::atomic<int> big_result{-1}, small_result{-1};
  BudgetLease big_lease, small_lease;
  asio::co_spawn(shard.io, [&]() -> asio::awaitable<void> {
    big_result = (co_await b.grow(big_lease, 90, big)) ? 1 : 0;
  }, asio::detached);
  while (b.waiting() < 1) std::this_thread::sleep_for(1ms);
  asio::co_spawn(shard.io, [&]() -> asio::awaitable<void> {
    small_result = (co_await b.grow(small_lease, 10, small)) ? 1 : 0;
  }, asio::detached);
  while (b.waiting() < 2) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(small_result.load(), -1) << "in order: the small one waits behind the big one";
  asio::post(shard.io, [&] { big->cancel(); });
  for (int i = 0; i < 2000 && small_result.load() == -1; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(big_result.load(), 0);
  EXPECT_EQ(small_result.load(), 1);
  EXPECT_EQ(b.used(), 70);
  asio::post(shard.io, [&] { small_lease.reset(); });
}

// Two frames each holding part of the budget and each wanting more: nothing would ever be
// released, so the one furthest along is let past the budget.
TEST(RequestBudget, StandstillLetsTheFurthestFrameFinish) {
  RequestBudget b(100);
  Shard shard;
  auto w1 = std::make_shared<BudgetWaiter>(shard.io.get_executor());
  auto w2 = std::make_shared<BudgetWaiter>(shard.io.get_executor());
  BudgetLease l1, l2;
  ASSERT_TRUE(b.try_grow(l1, 40));
  ASSERT_TRUE(b.try_grow(l2, 60));
  std::atomic<int> r1{-1}, r2{-1};
  asio::co_spawn(shard.io, [&]() -> asio::awaitable<void> {
    r1 = (co_await b.grow(l1, 40, w1)) ? 1 : 0;
  }, asio::detached);
  while (b.waiting() < 1) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(r1.load(), -1) << "l2 is not waiting: it may still finish and give back";
  asio::co_spawn(shard.io, [&]() -> asio::awaitable<void> {
    r2 = (co_await b.grow(l2, 60, w2)) ? 1 : 0;
  }, asio::detached);
  for (int i = 0; i < 2000 && r2.load() == -1; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(r2.load(), 1) << "l2 holds most: it goes past the budget";
  EXPECT_EQ(r1.load(), -1);
  EXPECT_EQ(b.used(), 160);
  // l2 may now grow to the end of its frame without waiting.
  std::atomic<bool> more{false};
  asio::post(shard.io, [&] { more = b.try_grow(l2, 30); });
  while (!more.load()) std::this_thread::sleep_for(1ms);
  asio::post(shard.io, [&] { l2.reset(); });  // handled: l1 fits now
  for (int i = 0; i < 2000 && r1.load() == -1; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(r1.load(), 1);
  EXPECT_EQ(b.used(), 80);
  asio::post(shard.io, [&] { l1.reset(); });
}

TEST(RequestBudget, FrameLargerThanBudgetWhenAlone) {
  RequestBudget b(100);
  Shard shard;
  auto w = std::make_shared<BudgetWaiter>(shard.io.get_executor());
  BudgetLease l;
  std::atomic<int> r{-1};
  asio::co_spawn(shard.io, [&]() -> asio::awaitable<void> {
    r = (co_await b.grow(l, 1000, w)) ? 1 : 0;
  }, asio::detached);
  for (int i = 0; i < 2000 && r.load() == -1; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(r.load(), 1);
  asio::post(shard.io, [&] { l.reset(); });
}

TEST(LogLimit, AtMostNPerIntervalThenASummary) {
  LogLimit limit("test", 3, std::chrono::milliseconds(1000));
  const auto t0 = LogLimit::Clock::now();
  uint64_t suppressed = 99;
  int admitted = 0;
  for (int i = 0; i < 100; ++i) admitted += limit.admit(t0, suppressed) ? 1 : 0;
  EXPECT_EQ(admitted, 3);
  EXPECT_EQ(suppressed, 0u);
  EXPECT_FALSE(limit.admit(t0 + std::chrono::milliseconds(999), suppressed));
  ASSERT_TRUE(limit.admit(t0 + std::chrono::milliseconds(1000), suppressed));
  EXPECT_EQ(suppressed, 98u) << "97 in the first window and the one at 999 ms";
  ASSERT_TRUE(limit.admit(t0 + std::chrono::milliseconds(1001), suppressed));
  EXPECT_EQ(suppressed, 0u);
}

}  // namespace
}  // namespace strata::net

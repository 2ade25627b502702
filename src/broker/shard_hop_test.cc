// The shard hop machinery on real event loops: fan_out, the per-connection turn
// (net/request_order.h), AsyncMutex and the metadata snapshot.
#include <gtest/gtest.h>

#include <asio.hpp>

#include <atomic>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "broker/async_mutex.h"
#include "broker/fan_out.h"
#include "broker/metadata_snapshot.h"
#include "common/shard.h"
#include "net/request_order.h"

namespace strata::broker {
namespace {

// N event loops on N threads that know their shard index, like net::Server's.
class Shards {
 public:
  explicit Shards(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      loops_.push_back(std::make_unique<asio::io_context>(1));
      guards_.push_back(asio::make_work_guard(*loops_.back()));
    }
    for (size_t i = 0; i < n; ++i) {
      threads_.emplace_back([this, i] {
        set_current_shard(int(i));
        loops_[i]->run();
      });
    }
  }
  ~Shards() {
    guards_.clear();
    for (auto& t : threads_) t.join();
  }
  asio::io_context& shard(size_t i) { return *loops_[i]; }
  size_t shard_count() const { return loops_.size(); }

  // Runs `make()` (a coroutine) on shard `s` and waits for it.
  template <class Make>
  void run_on(size_t s, Make make) {
    std::latch done(1);
    asio::co_spawn(shard(s), make(), [&done](std::exception_ptr) { done.count_down(); });
    done.wait();
  }

 private:
  std::vector<std::unique_ptr<asio::io_context>> loops_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards_;
  std::vector<std::thread> threads_;
};

static_assert(HopCallable<decltype([x = 1] { return x; })>);
static_assert(!HopCallable<decltype([s = std::string("owned")] { return s.size(); })>,
              "a hop that owns memory is refused at compile time");

TEST(FanOut, RunsEveryItemOnItsShardAndResumesOnTheCaller) {
  Shards shards(3);
  std::vector<int> ran_on(100, -9);
  int resumed_on = -9;
  shards.run_on(0, [&]() -> asio::awaitable<void> {
    co_await fan_out(
        shards, ran_on.size(), [](size_t i) { return i % 3; },
        [&ran_on](size_t i) { ran_on[i] = current_shard(); });
    resumed_on = current_shard();
  });
  for (size_t i = 0; i < ran_on.size(); ++i) EXPECT_EQ(ran_on[i], int(i % 3)) << i;
  EXPECT_EQ(resumed_on, 0);
}

TEST(FanOut, SkipsItemsWithoutAHopAndFinishesWithNone) {
  Shards shards(2);
  std::atomic<int> ran{0};
  shards.run_on(1, [&]() -> asio::awaitable<void> {
    co_await fan_out(shards, 10, [](size_t) { return kNoHop; }, [&ran](size_t) { ++ran; });
    co_await fan_out(
        shards, 10, [](size_t i) { return i % 2 == 0 ? kNoHop : size_t(0); }, [&ran](size_t) { ++ran; });
  });
  EXPECT_EQ(ran.load(), 5);
}

// Two requests of one connection: the first's hops are posted before the second can
// post its own, so the owner shard applies them in request order even when the second
// request reaches its fan-out while the first has not been served yet.
TEST(FanOut, HopsPostedInTurnOrderApplyInTurnOrder) {
  for (int round = 0; round < 50; ++round) {
    Shards shards(2);
    std::vector<int> applied;  // touched only on shard 1
    std::latch blocked(1), release(1);
    asio::post(shards.shard(1), [&] {
      blocked.count_down();
      release.wait();  // shard 1 busy: both requests' hops queue behind this
    });
    blocked.wait();
    auto order = std::make_shared<net::RequestOrder>();
    std::latch both(2);
    auto request = [&](int id, net::Turn turn) -> asio::awaitable<void> {
      net::Turn mine = std::move(turn);
      co_await mine.acquire();
      mine.release();
      co_await fan_out(shards, 3, [](size_t) { return size_t(1); },
                       [&applied, id](size_t) { applied.push_back(id); });
      both.count_down();
    };
    net::Turn first(order, order->issue()), second(order, order->issue());
    // The second request is started first: its turn makes it wait for the first.
    asio::co_spawn(shards.shard(0), request(2, std::move(second)), asio::detached);
    asio::co_spawn(shards.shard(0), request(1, std::move(first)), asio::detached);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    release.count_down();
    both.wait();
    EXPECT_EQ(applied, (std::vector<int>{1, 1, 1, 2, 2, 2})) << "round " << round;
  }
}

TEST(RequestOrder, TurnsAreServedInTicketOrderAndAnUnusedTurnPassesOn) {
  Shards shards(1);
  std::vector<int> order_seen;
  shards.run_on(0, [&]() -> asio::awaitable<void> {
    auto order = std::make_shared<net::RequestOrder>();
    net::Turn t0(order, order->issue()), t1(order, order->issue()), t2(order, order->issue());
    auto ex = co_await asio::this_coro::executor;
    std::atomic<int> done{0};
    auto take = [&](net::Turn t, int id) -> asio::awaitable<void> {
      net::Turn mine = std::move(t);
      co_await mine.acquire();
      order_seen.push_back(id);
      ++done;
    };
    asio::co_spawn(ex, take(std::move(t2), 2), asio::detached);
    asio::co_spawn(ex, take(std::move(t0), 0), asio::detached);
    { net::Turn dropped = std::move(t1); }  // released without being acquired (a failed decode)
    asio::steady_timer wait(ex);
    while (done.load() < 2) {
      wait.expires_after(std::chrono::milliseconds(1));
      co_await wait.async_wait(asio::use_awaitable);
    }
  });
  EXPECT_EQ(order_seen, (std::vector<int>{0, 2}));
}

TEST(AsyncMutex, CriticalSectionsOnDifferentShardsNeverOverlap) {
  Shards shards(3);
  AsyncMutex mu;
  std::atomic<int> inside{0}, max_inside{0}, entered{0};
  std::latch all(30);
  for (int k = 0; k < 30; ++k) {
    asio::co_spawn(
        shards.shard(size_t(k % 3)),
        [&]() -> asio::awaitable<void> {
          auto guard = co_await mu.lock();
          const int now = ++inside;
          max_inside = std::max(max_inside.load(), now);
          asio::steady_timer t(co_await asio::this_coro::executor);
          t.expires_after(std::chrono::microseconds(200));
          co_await t.async_wait(asio::use_awaitable);  // holds it across a suspension
          --inside;
          ++entered;
          all.count_down();
        },
        asio::detached);
  }
  all.wait();
  EXPECT_EQ(entered.load(), 30);
  EXPECT_EQ(max_inside.load(), 1);
}

std::shared_ptr<const TopicMeta> topic(const std::string& name, uint8_t id_byte, int partitions) {
  auto t = std::make_shared<TopicMeta>();
  t->name = name;
  t->id.bytes[0] = id_byte;
  t->partitions.resize(size_t(partitions));
  return t;
}

TEST(MetadataSnapshot, LooksUpByNameAndIdAndPublishesNewerVersions) {
  MetadataPublisher pub;
  EXPECT_EQ(pub.current()->topics().size(), 0u);
  pub.publish(std::make_shared<MetadataSnapshot>(1, std::vector{topic("a", 1, 3), topic("b", 2, 1)}));
  auto s1 = pub.current();
  ASSERT_NE(s1->topic("a"), nullptr);
  EXPECT_EQ(s1->topic("a")->partition_count(), 3);
  Uuid id;
  id.bytes[0] = 2;
  ASSERT_NE(s1->topic(id), nullptr);
  EXPECT_EQ(s1->topic(id)->name, "b");
  EXPECT_EQ(s1->topic("c"), nullptr);
  pub.publish(std::make_shared<MetadataSnapshot>(2, std::vector{topic("b", 2, 1)}));
  // An older snapshot held by a request stays valid and unchanged.
  EXPECT_NE(s1->topic("a"), nullptr);
  EXPECT_EQ(pub.current()->topic("a"), nullptr);
  std::shared_ptr<const MetadataSnapshot> seen;
  std::thread other([&] { seen = pub.current(); });
  other.join();
  EXPECT_EQ(seen->version(), 2u);
}

}  // namespace
}  // namespace strata::broker

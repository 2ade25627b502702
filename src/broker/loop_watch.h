// Event-loop stalls: every shard runs a timer every kTickMs and measures how late it
// fires. A late tick means the shard's thread was busy with one piece of work (or not
// scheduled) for that long, and every connection on the shard waited with it: the figure
// behind a latency spike that no request's own time shows.
//
// Threads: each shard's tick runs on that shard; figures() from any thread (relaxed
// atomics).
#pragma once

#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace strata::broker {

class LoopWatch {
 public:
  static constexpr int64_t kTickMs = 100;
  static constexpr int64_t kStallMs = 50;  // a tick this late counts as a stall

  struct Figures {
    uint64_t stalls = 0;       // ticks at least kStallMs late
    double stall_seconds = 0;  // their lateness, summed
    double max_lag_ms = 0;     // the latest tick since the broker started
  };

  explicit LoopWatch(size_t shards);
  // Starts shard `shard`'s ticks on `context` (its thread); they end when `stopped` is
  // set (within a tick) or the context stops.
  void start(size_t shard, asio::io_context& context, const std::atomic<bool>& stopped);
  std::vector<Figures> figures() const;

 private:
  struct PerShard {
    std::atomic<uint64_t> stalls{0};
    std::atomic<uint64_t> stall_us{0};
    std::atomic<uint64_t> max_lag_us{0};
  };
  static asio::awaitable<void> ticks(PerShard& out, const std::atomic<bool>& stopped);

  std::vector<std::unique_ptr<PerShard>> shards_;
};

}  // namespace strata::broker

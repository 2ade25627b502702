// Which shard (event-loop thread) the calling thread is, and the always-on assertion.
//
// Every shard thread sets its index once, when it starts (net::Server). Threads that are
// no shard are either kNoShard (the main thread while the broker starts and stops, unit
// tests: owning nothing, they may touch anything single-threaded) or kWorker (cleaner and
// blocking-work threads: they may touch no shard's state). Objects owned by a shard (a
// partition's storage::Log) check `on_shard(owner)` in every method, so a wrong-thread
// call is caught by the build that runs the tests, not by a comment.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace strata {

inline constexpr int kNoShard = -1;
inline constexpr int kWorker = -2;

namespace detail {
inline thread_local int t_current_shard = kNoShard;
}  // namespace detail

inline int current_shard() { return detail::t_current_shard; }
inline void set_current_shard(int shard) { detail::t_current_shard = shard; }

// True when the caller may touch state owned by `owner` (a shard index, or kNoShard for
// state not bound to a shard yet): the owner's own thread, or a thread that is no shard
// and no worker (start-up, shutdown after the shards stopped, single-threaded tests).
inline bool on_shard(int owner) {
  const int here = current_shard();
  return owner == kNoShard || here == owner || here == kNoShard;
}

[[noreturn]] inline void assert_fail(const char* what, const char* file, int line) {
  std::fprintf(stderr, "strata: assertion failed: %s (%s:%d)\n", what, file, line);
  std::fflush(stderr);
  std::abort();
}

}  // namespace strata

// An invariant, checked in every build (release included): cheap conditions only.
#define STRATA_ASSERT(cond) \
  ((cond) ? (void)0 : ::strata::assert_fail(#cond, __FILE__, __LINE__))

// Names the calling thread (as top -H, perf and gdb show it), so that an operator or a
// profile can tell a shard's event loop from the pools: "shard-N", "sync", "sync-io",
// "cleaner", "background". Linux keeps 15 characters.
#pragma once

#include <pthread.h>

#include <string>

namespace strata {

inline void set_thread_name(const std::string& name) {
  ::pthread_setname_np(::pthread_self(), name.substr(0, 15).c_str());
}

// For threads the caller does not start (asio::thread_pool's): names it on first use.
inline void name_thread_once(const char* name) {
  thread_local bool named = false;
  if (!named) {
    named = true;
    set_thread_name(name);
  }
}

}  // namespace strata

// Counts what the calling thread allocates with operator new between start() and
// stop(): live bytes and their peak. For test binaries only (decode_bounds_test,
// fuzz_request): alloc_meter.cc replaces the global operator new and delete of any
// binary it is linked into.
#pragma once

#include <cstddef>
#include <cstdint>

namespace strata::protocol::alloc_meter {

struct Counts {
  int64_t live = 0;    // allocated minus freed since start(), in bytes
  int64_t peak = 0;    // the highest `live` reached
  uint64_t calls = 0;  // allocations
};

// Starts counting from zero on this thread; other threads are never counted.
void start();
// Stops counting and returns what was counted.
Counts stop();

}  // namespace strata::protocol::alloc_meter

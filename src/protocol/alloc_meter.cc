// Global operator new/delete on malloc, counting malloc_usable_size of each block on
// the thread that called alloc_meter::start() (the same size on both sides, so frees
// balance allocations whatever the allocator rounds to). Aligned new is not replaced:
// the library's goes to aligned_alloc and free, uncounted on both sides.
#include "protocol/alloc_meter.h"

#include <malloc.h>

#include <cstdlib>
#include <new>

namespace strata::protocol::alloc_meter {
namespace {

thread_local bool counting = false;
thread_local Counts counts;

void* allocate(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) std::abort();  // a test out of memory: nothing to recover
  if (counting) {
    counts.live += int64_t(malloc_usable_size(p));
    if (counts.live > counts.peak) counts.peak = counts.live;
    ++counts.calls;
  }
  return p;
}

void release(void* p) {
  if (p == nullptr) return;
  if (counting) counts.live -= int64_t(malloc_usable_size(p));
  std::free(p);
}

}  // namespace

void start() {
  counts = Counts{};
  counting = true;
}

Counts stop() {
  counting = false;
  return counts;
}

}  // namespace strata::protocol::alloc_meter

using strata::protocol::alloc_meter::allocate;
using strata::protocol::alloc_meter::release;

void* operator new(size_t n) { return allocate(n); }
void* operator new[](size_t n) { return allocate(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, size_t) noexcept { release(p); }
void operator delete[](void* p, size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }

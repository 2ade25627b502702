// Fuzzes segment splitting: whatever the bytes, the scanner ends, never reads past
// the input, and accounts for every byte as a whole entry or as the tail.
#include <cstdint>

#include "record/log_scanner.h"

using namespace strata;
using namespace strata::record;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  LogScanner scanner(Bytes(data, size), 1 << 20);
  size_t covered = 0;
  while (auto e = scanner.next()) {
    if (e->position != covered) __builtin_trap();
    covered += e->bytes.size();
  }
  if (covered != scanner.valid_bytes()) __builtin_trap();
  if (scanner.valid_bytes() + scanner.tail_bytes() != size) __builtin_trap();
  return 0;
}

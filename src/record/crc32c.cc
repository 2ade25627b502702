#include "record/crc32c.h"

#include <isa-l/crc.h>

#include <immintrin.h>

#include <array>
#include <climits>

namespace strata::record {

namespace {
// ISA-L 2.30's AVX-512 CRC (crc32_iscsi_by16_10) returns without vzeroupper, so the next
// legacy-SSE instruction anywhere in the caller pays a state-transition penalty (measured:
// index appends 20x slower during recovery; docs/performance.md). Clear it on return.
__attribute__((target("avx"))) void zero_upper_vector_state() { _mm256_zeroupper(); }
const bool kHasAvx = __builtin_cpu_supports("avx");
}  // namespace

// ISA-L's crc32_iscsi takes and returns the raw register: standard CRC-32C wants
// the seed and the result inverted. Its length is an int, so feed it in chunks.
uint32_t crc32c_extend(uint32_t crc, Bytes data) {
  uint32_t reg = ~crc;
  const uint8_t* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const int n = left > size_t(INT_MAX) ? INT_MAX : int(left);
    reg = crc32_iscsi(const_cast<unsigned char*>(p), n, reg);
    p += n;
    left -= size_t(n);
  }
  if (kHasAvx) zero_upper_vector_state();
  return ~reg;
}

uint32_t crc32c(Bytes data) { return crc32c_extend(0, data); }

namespace {
constexpr uint32_t kCastagnoliReflected = 0x82F63B78;

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kCastagnoliReflected : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr auto kTable = make_table();
}  // namespace

uint32_t crc32c_portable(Bytes data) {
  uint32_t c = ~0u;
  for (uint8_t b : data) c = kTable[(c ^ b) & 0xff] ^ (c >> 8);
  return ~c;
}

}  // namespace strata::record

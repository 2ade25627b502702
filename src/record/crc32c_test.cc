#include "record/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string_view>
#include <vector>

namespace strata::record {
namespace {

TEST(Crc32c, CheckValue) {
  EXPECT_EQ(crc32c(as_bytes("123456789")), 0xE3069283u);
  EXPECT_EQ(crc32c_portable(as_bytes("123456789")), 0xE3069283u);
}

TEST(Crc32c, Empty) { EXPECT_EQ(crc32c({}), 0u); }

TEST(Crc32c, Rfc3720Vectors) {
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xff), inc(32);
  for (int i = 0; i < 32; ++i) inc[size_t(i)] = uint8_t(i);
  EXPECT_EQ(crc32c(zeros), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones), 0x62A8AB43u);
  EXPECT_EQ(crc32c(inc), 0x46DD794Eu);
}

TEST(Crc32c, HardwareMatchesPortable) {
  std::mt19937 rng(7);
  for (size_t n : {1u, 7u, 8u, 63u, 64u, 1000u, 4096u, 100003u}) {
    std::vector<uint8_t> d(n);
    for (auto& b : d) b = uint8_t(rng());
    EXPECT_EQ(crc32c(d), crc32c_portable(d)) << n;
  }
}

TEST(Crc32c, Extend) {
  const auto all = as_bytes("hello, world");
  EXPECT_EQ(crc32c_extend(crc32c(all.first(5)), all.subspan(5)), crc32c(all));
}

}  // namespace
}  // namespace strata::record

#include "security/base64.h"

#include <gtest/gtest.h>

#include <random>

namespace strata::security {
namespace {

// RFC 4648 §10.
TEST(Base64, Rfc4648Vectors) {
  const std::pair<std::string_view, std::string_view> v[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, encoded] : v) {
    EXPECT_EQ(base64_encode(plain), encoded);
    EXPECT_EQ(base64_decode(encoded), std::string(plain));
  }
}

TEST(Base64, RefusesAnythingNotStrict) {
  for (std::string_view bad : {"Zg", "Zg=", "Zm9", "Z===", "====", "Zg==Zg==", "Zm 9v", "Zm9v\n",
                               "Zm9-", "Zm9_", "=Zm9", "Zm=v", "\xff\xff\xff\xff"}) {
    EXPECT_EQ(base64_decode(bad), std::nullopt) << bad;
  }
}

TEST(Base64, RoundTripOfRandomBytes) {
  std::mt19937 rng(1);
  for (int i = 0; i < 500; ++i) {
    std::string bytes(rng() % 70, '\0');
    for (auto& c : bytes) c = char(rng());
    EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes);
  }
}

}  // namespace
}  // namespace strata::security

#include "common/java_hash.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

// Expected values are Java's "...".hashCode().
TEST(JavaHash, MatchesJavaStringHashCode) {
  EXPECT_EQ(java_string_hash(""), 0);
  EXPECT_EQ(java_string_hash("g1"), 3242);
  EXPECT_EQ(java_string_hash("test-group"), 627841412);
  EXPECT_EQ(java_string_hash("my-group"), -1906497762);
  EXPECT_EQ(java_string_hash("gr\xc3\xbcppe"), -1233264812);        // "grüppe": 2-byte UTF-8
  EXPECT_EQ(java_string_hash("\xe6\x97\xa5\xe6\x9c\xac"), 835047);  // "日本": 3-byte UTF-8
  EXPECT_EQ(java_string_hash("\xf0\x9f\x98\x80x"), 54959989);       // U+1F600 = 2 surrogates
}

TEST(JavaHash, CoordinatorPartitionIsUtilsAbsModuloCount) {
  EXPECT_EQ(coordinator_partition("g1", 50), 42);
  EXPECT_EQ(coordinator_partition("my-group", 50), 12);  // negative hash
  // "polygenelubricants".hashCode() is Integer.MIN_VALUE: Utils.abs makes it 0.
  EXPECT_EQ(java_string_hash("polygenelubricants"), INT32_MIN);
  EXPECT_EQ(coordinator_partition("polygenelubricants", 50), 0);
  EXPECT_EQ(coordinator_partition("polygenelubricants", 7), 0);
}

}  // namespace
}  // namespace strata

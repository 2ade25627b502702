// Java properties files as Kafka's tools read them: separators, comments, continuations.
#include "common/properties.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(PropertiesTest, SeparatorsAndComments) {
  auto p = parse_properties(
      "# a comment\n! another\n\na=1\nb : 2\nc 3\n  d = x=y \nsecurity.protocol=SASL_SSL\r\ne\n",
      "t");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->at("a"), "1");
  EXPECT_EQ(p->at("b"), "2");
  EXPECT_EQ(p->at("c"), "3");
  EXPECT_EQ(p->at("d"), "x=y");
  EXPECT_EQ(p->at("security.protocol"), "SASL_SSL");
  EXPECT_EQ(p->at("e"), "");
  EXPECT_EQ(p->size(), 6u);
}

TEST(PropertiesTest, ContinuationLinesJoin) {
  auto p = parse_properties(
      "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
      "    username=\"alice\" \\\n"
      "    password=\"a\\\\b\";\n"
      "next=1\n",
      "t");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->at("sasl.jaas.config"),
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" "
            "password=\"a\\\\b\";");
  EXPECT_EQ(p->at("next"), "1");
}

TEST(PropertiesTest, ContinuationAtTheEndOfTheText) {
  auto p = parse_properties("a=1\\", "t");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->at("a"), "1");
}

TEST(PropertiesTest, ALineWithoutAKeyIsAnError) {
  auto p = parse_properties("=value\n", "client.properties");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("client.properties"), std::string::npos);
}

TEST(PropertiesTest, MissingFileIsAnError) {
  EXPECT_FALSE(read_properties_file("/nonexistent/strata.properties").ok());
}

}  // namespace
}  // namespace strata

#include "tools/console_format.h"

#include <gtest/gtest.h>

namespace strata::tools {
namespace {

ConsoleRecord parsed(const Properties& p, const std::string& line) {
  auto reader = LineReader::from(p);
  EXPECT_TRUE(reader) << reader.error();
  auto r = reader->parse(line, 1);
  EXPECT_TRUE(r) << r.error();
  return r ? *r : ConsoleRecord{};
}

TEST(LineReader, ValueOnlyByDefaultSeparatorsAndAll) {
  const ConsoleRecord r = parsed({}, "a\tb:c");
  EXPECT_FALSE(r.key);
  EXPECT_EQ(r.value, "a\tb:c");
}

TEST(LineReader, KeyUpToTheFirstSeparatorValueIsTheRest) {
  const ConsoleRecord r = parsed({{"parse.key", "true"}, {"key.separator", ":"}}, "k1:v:1");
  EXPECT_EQ(r.key, "k1");
  EXPECT_EQ(r.value, "v:1");
}

TEST(LineReader, HeadersThenKeyThenValue) {
  const ConsoleRecord r = parsed({{"parse.headers", "true"}, {"parse.key", "true"}}, "h1:v1,h2:v2\tkey\tvalue");
  ASSERT_EQ(r.headers.size(), 2u);
  EXPECT_EQ(r.headers[0].first, "h1");
  EXPECT_EQ(r.headers[1].second, "v2");
  EXPECT_EQ(r.key, "key");
  EXPECT_EQ(r.value, "value");
}

TEST(LineReader, NullMarkerMakesNulls) {
  const ConsoleRecord r =
      parsed({{"parse.key", "true"}, {"null.marker", "<null>"}, {"key.separator", "|"}}, "<null>|<null>");
  EXPECT_FALSE(r.key);
  EXPECT_FALSE(r.value);
}

TEST(LineReader, MissingSeparatorIsAnErrorUnlessIgnored) {
  auto strict = LineReader::from({{"parse.key", "true"}});
  auto e = strict->parse("no-separator", 7);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "No key separator found on line number 7: 'no-separator'");
  auto lenient = LineReader::from({{"parse.key", "true"}, {"ignore.error", "true"}});
  auto r = lenient->parse("no-separator", 1);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->key);
  EXPECT_EQ(r->value, "no-separator");
}

TEST(LineReader, ConflictingSeparatorsRefused) {
  auto r = LineReader::from({{"parse.headers", "true"}, {"headers.delimiter", ","}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "headers.delimiter and headers.separator may not be equal");
}

ConsoleRecord sample() {
  ConsoleRecord r;
  r.topic = "t";
  r.partition = 2;
  r.offset = 5;
  r.timestamp = 123;
  r.timestamp_type = ConsoleRecord::TimestampType::kCreateTime;
  r.key = "k";
  r.value = "v";
  r.headers = {{"h1", "a"}, {"h2", std::nullopt}};
  return r;
}

TEST(Formatter, KafkasDefaultIsTheValueAlone) {
  auto f = Formatter::from("", {});
  EXPECT_EQ(f->format(sample()), "v\n");
}

TEST(Formatter, KafkasFieldsInKafkasOrder) {
  auto f = Formatter::from("", {{"print.timestamp", "true"}, {"print.partition", "true"}, {"print.offset", "true"},
                                {"print.headers", "true"}, {"print.key", "true"}});
  EXPECT_EQ(f->format(sample()), "CreateTime:123\tPartition:2\tOffset:5\th1:a,h2:null\tk\tv\n");
  ConsoleRecord bare = sample();
  bare.headers.clear();
  bare.key.reset();
  auto g = Formatter::from("", {{"print.headers", "true"}, {"print.key", "true"}, {"key.separator", " | "}});
  EXPECT_EQ(g->format(bare), "NO_HEADERS | null | v\n");
}

TEST(Formatter, LastFieldEndsTheLineWithoutTheValue) {
  auto f = Formatter::from("", {{"print.key", "true"}, {"print.value", "false"}});
  EXPECT_EQ(f->format(sample()), "k\n");
}

TEST(Formatter, Template) {
  auto f = Formatter::from("%t/%p@%o %T %k=%v (%K,%V) [%h] %H%%\\n", {});
  EXPECT_EQ(f->format(sample()), "t/2@5 123 k=v (1,1) [h1=a,h2=] 2%\n");
}

TEST(Formatter, JsonLinesWithBinaryAsBase64) {
  ConsoleRecord r = sample();
  r.value = std::string("\xff\x00\x01", 3);
  auto f = Formatter::from("json", {});
  EXPECT_EQ(f->format(r),
            "{\"headers\":[{\"key\":\"h1\",\"value\":\"a\"},{\"key\":\"h2\",\"value\":null}],\"key\":\"k\","
            "\"offset\":5,\"partition\":2,\"timestamp\":123,\"timestamp_type\":\"CreateTime\",\"topic\":\"t\","
            "\"value\":{\"base64\":\"/wAB\"}}\n");
}

}  // namespace
}  // namespace strata::tools

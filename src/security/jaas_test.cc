#include "security/jaas.h"

#include <gtest/gtest.h>

#include <random>

namespace strata::security {
namespace {

constexpr std::string_view kPlainBroker =
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    "username=\"admin\" password=\"admin-secret\" "
    "user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

std::string error_of(std::string_view text) {
  auto r = parse_jaas_config(text);
  return r ? std::string("(parsed)") : r.error();
}

TEST(Jaas, KafkasPlainBrokerExample) {
  auto c = parse_jaas_config(kPlainBroker);
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->login_module, "org.apache.kafka.common.security.plain.PlainLoginModule");
  EXPECT_EQ(c->control_flag, JaasControlFlag::kRequired);
  EXPECT_EQ(c->options.size(), 4u);
  EXPECT_EQ(c->username(), "admin");
  EXPECT_EQ(c->password(), "admin-secret");
  EXPECT_EQ(*c->option("user_alice"), "alice-secret");
  EXPECT_EQ(c->option("user_bob"), nullptr);
  const std::map<std::string, std::string> users = {{"admin", "admin-secret"},
                                                    {"alice", "alice-secret"}};
  EXPECT_EQ(plain_users(*c), users);
}

TEST(Jaas, ScramClientExampleWithoutOptionsOrWithUnquotedValues) {
  auto c = parse_jaas_config(
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=alice "
      "password=alice-secret;");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->username(), "alice");
  EXPECT_EQ(c->password(), "alice-secret");

  auto bare = parse_jaas_config("  com.example.Module   OPTIONAL ;  ");
  ASSERT_TRUE(bare) << bare.error();
  EXPECT_EQ(bare->control_flag, JaasControlFlag::kOptional);
  EXPECT_TRUE(bare->options.empty());
  EXPECT_EQ(bare->username(), std::nullopt);
}

TEST(Jaas, ControlFlagsInAnyCase) {
  EXPECT_EQ(parse_jaas_config("M Required;")->control_flag, JaasControlFlag::kRequired);
  EXPECT_EQ(parse_jaas_config("M requisite;")->control_flag, JaasControlFlag::kRequisite);
  EXPECT_EQ(parse_jaas_config("M SUFFICIENT;")->control_flag, JaasControlFlag::kSufficient);
  EXPECT_EQ(parse_jaas_config("M optional;")->control_flag, JaasControlFlag::kOptional);
  EXPECT_EQ(to_string(JaasControlFlag::kSufficient), "sufficient");
}

TEST(Jaas, QuotesEscapesAndComments) {
  auto c = parse_jaas_config(
      "M required /* a comment */ a=\"x y;z=w\" b='single \"q\"' c=\"back\\\\slash \\\"q\\\"\" "
      "d=\"tab\\there\" e=\"\\101\\0\\377\" f=\"\" // to the end of the line\n"
      " \"quoted key\"=v g=1/2\n;");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(*c->option("a"), "x y;z=w");
  EXPECT_EQ(*c->option("b"), "single \"q\"");
  EXPECT_EQ(*c->option("c"), "back\\slash \"q\"");
  EXPECT_EQ(*c->option("d"), "tab\there");
  EXPECT_EQ(*c->option("e"), std::string("A\0\xc3\xbf", 4));
  EXPECT_EQ(*c->option("f"), "");
  EXPECT_EQ(*c->option("quoted key"), "v");
  EXPECT_EQ(*c->option("g"), "1");  // '/' starts a comment, even in a word
}

TEST(Jaas, RepeatedOptionKeepsTheLastValue) {
  EXPECT_EQ(*parse_jaas_config("M required k=1 k=2;")->option("k"), "2");
}

TEST(Jaas, PlainUsersSkipsOtherOptionsAndEmptyNames) {
  auto c = parse_jaas_config("M required user_=x user_bob=b users=u username=n;");
  ASSERT_TRUE(c);
  const std::map<std::string, std::string> users = {{"bob", "b"}};
  EXPECT_EQ(plain_users(*c), users);
}

TEST(Jaas, MissingSemicolon) {
  EXPECT_EQ(error_of("M required username=\"a\""),
            "JAAS config entry not terminated by semi-colon");
  EXPECT_EQ(error_of("M required"), "JAAS config entry not terminated by semi-colon");
}

TEST(Jaas, UnterminatedQuote) {
  EXPECT_EQ(error_of("M required username=\"admin;"), "Unterminated quoted string in JAAS config");
  EXPECT_EQ(error_of("M required a=\"x\n\";"), "Unterminated quoted string in JAAS config");
  EXPECT_EQ(error_of("M required a=\"x\\"), "Unterminated quoted string in JAAS config");
}

TEST(Jaas, UnknownControlFlag) {
  EXPECT_EQ(error_of("M mandatory;"),
            "Invalid login module control flag 'mandatory' in JAAS config");
  EXPECT_EQ(error_of("M"), "Login module control flag not specified in JAAS config");
  EXPECT_EQ(error_of("M ;"), "Login module control flag is not available in the JAAS config");
}

TEST(Jaas, ValueMissing) {
  EXPECT_EQ(error_of("M required username;"),
            "Value not specified for key 'username' in JAAS config");
  EXPECT_EQ(error_of("M required username=;"),
            "Value not specified for key 'username' in JAAS config");
  EXPECT_EQ(error_of("M required username="),
            "Value not specified for key 'username' in JAAS config");
  EXPECT_EQ(error_of("M required =x;"), "Option name not specified in JAAS config");
}

TEST(Jaas, EmptyAndSeveralEntries) {
  EXPECT_EQ(error_of(""), "Login module not specified in JAAS config");
  EXPECT_EQ(error_of("  /* nothing */ "), "Login module not specified in JAAS config");
  EXPECT_EQ(error_of("A required; B optional;"),
            "JAAS config property contains 2 login modules, should be 1 module");
  EXPECT_EQ(error_of(";"), "Login module class name not specified in JAAS config");
  EXPECT_EQ(error_of("\"\" required;"), "Login module class name not specified in JAAS config");
}

TEST(Jaas, Overlong) {
  EXPECT_EQ(error_of("M required a=\"" + std::string(kJaasConfigBytesMax, 'x') + "\";"),
            "JAAS config too long");
}

TEST(Jaas, RandomBytesNeverCrash) {
  std::mt19937 rng(5);
  constexpr std::string_view kAlphabet = "ab =;\"'\\/*\n07";
  for (int i = 0; i < 20000; ++i) {
    std::string junk(rng() % 40, '\0');
    for (auto& c : junk) c = rng() % 4 ? kAlphabet[rng() % kAlphabet.size()] : char(rng());
    (void)parse_jaas_config(junk);
  }
}

}  // namespace
}  // namespace strata::security

#include "security/principal_rules.h"

#include <gtest/gtest.h>

#include <random>

namespace strata::security {
namespace {

PrincipalMapper mapper(std::string_view rules) {
  auto m = parse_principal_rules(rules);
  EXPECT_TRUE(m) << rules << ": " << (m ? "" : m.error());
  return m ? std::move(*m) : parse_principal_rules("").value();
}

std::string name(const PrincipalMapper& m, std::string_view dn) {
  auto r = m.name(dn);
  return r ? *r : "(error) " + r.error();
}

// Kafka's documentation (KIP-371), the rules as one list.
constexpr std::string_view kDocumented =
    "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,"
    "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
    "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,"
    "DEFAULT";

TEST(PrincipalRules, KafkasDocumentedExample) {
  const auto m = mapper(kDocumented);
  ASSERT_EQ(m.rules().size(), 4u);
  EXPECT_EQ(name(m, "CN=serviceuser,OU=ServiceUsers,O=Unknown,L=Unknown,ST=Unknown,C=Unknown"),
            "serviceuser");
  EXPECT_EQ(name(m, "CN=adminUser,OU=Admin,O=Unknown,L=Unknown,ST=Unknown,C=Unknown"),
            "adminuser@admin");
  EXPECT_EQ(name(m, "CN=Duke,OU=JavaSoft,O=Sun Microsystems"), "duke");
  EXPECT_EQ(name(m, "OU=JavaSoft,O=Sun Microsystems,C=US"), "OU=JavaSoft,O=Sun Microsystems,C=US");
}

// Kafka's SslPrincipalMapperTest.testSslPrincipalMapper.
TEST(PrincipalRules, KafkasMapperTest) {
  const auto m = mapper(
      "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, "
      "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L, "
      "RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U, "
      "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, "
      "DEFAULT");
  EXPECT_EQ(name(m, "CN=Duke,OU=ServiceUsers,O=Org,C=US"), "duke");
  EXPECT_EQ(name(m, "CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US"), "duke@sme");
  EXPECT_EQ(name(m, "cn=duke,ou=sme,dc=mycp,dc=com"), "DUKE@SME");
  EXPECT_EQ(name(m, "cN=duke,OU=JavaSoft,O=Sun Microsystems"), "DUKE");
  EXPECT_EQ(name(m, "OU=JavaSoft,O=Sun Microsystems,C=US"), "OU=JavaSoft,O=Sun Microsystems,C=US");
}

TEST(PrincipalRules, KafkasValidRules) {
  for (std::string_view rules : {
           "DEFAULT",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, DEFAULT",
           "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/",
           "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L",
           "RULE:^cn=(.?),ou=(.?),dc=(.?),dc=(.?)$/$1@$2/U",
           "RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/",
           "RULE:^CN=([^,DEFAULT,]+)(,.*|$)/$1/",
       }) {
    EXPECT_TRUE(parse_principal_rules(rules)) << rules;
  }
}

TEST(PrincipalRules, KafkasInvalidRules) {
  for (std::string_view rules : {
           "default",
           "DEFAUL",
           "DEFAULT/L",
           "DEFAULT/U",
           "RULE:CN=(.*?),OU=ServiceUsers.*/$1",
           "rule:^CN=(.*?),OU=ServiceUsers.*$/$1/",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/L",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/U",
           "RULE:^CN=(.*?),OU=ServiceUsers.*$/LU",
       }) {
    auto r = parse_principal_rules(rules);
    ASSERT_FALSE(r) << rules;
    EXPECT_EQ(r.error().rfind("Invalid rule: ", 0), 0u) << r.error();
  }
}

// Kafka's SslPrincipalMapperTest.testRulesSplitting, through the list text.
TEST(PrincipalRules, KafkasRulesSplitting) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"[]", ""},
      {"[DEFAULT]", "DEFAULT"},
      {"[RULE:/]", "RULE://"},
      {"[RULE:/.*]", "RULE:/.*/"},
      {"[RULE:/.*/L]", "RULE:/.*/L"},
      {"[RULE:/, DEFAULT]", "RULE://,DEFAULT"},
      {"[RULE:/, DEFAULT]", "  RULE:// ,  DEFAULT  "},
      {"[RULE:   /     , DEFAULT]", "  RULE:   /     / ,  DEFAULT  "},
      {"[RULE:  /     /U, DEFAULT]", "  RULE:  /     /U   ,DEFAULT  "},
      {"[RULE:([A-Z]*)/$1/U, RULE:([a-z]+)/$1, DEFAULT]",
       "  RULE:([A-Z]*)/$1/U   ,RULE:([a-z]+)/$1/,   DEFAULT  "},
      {"[]", ",   , , ,      , , ,   "},
      {"[RULE:/, DEFAULT]", ",,RULE://,,,DEFAULT,,"},
      {"[RULE: /   , DEFAULT]", ",  , RULE: /   /    ,,,   DEFAULT, ,   "},
      {"[RULE:   /  /U, DEFAULT]", "     ,  , RULE:   /  /U    ,,  ,DEFAULT, ,"},
      {"[RULE:\\/\\\\\\(\\)\\n\\t/\\/\\/]", "RULE:\\/\\\\\\(\\)\\n\\t/\\/\\//"},
      {"[RULE:\\**\\/+/*/L, RULE:\\/*\\**/**]", "RULE:\\**\\/+/*/L,RULE:\\/*\\**/**/"},
      {"[RULE:,RULE:,/,RULE:,\\//U, RULE:,/RULE:,, RULE:,RULE:,/L,RULE:,/L, RULE:, DEFAULT, "
       "/DEFAULT, DEFAULT]",
       "RULE:,RULE:,/,RULE:,\\//U,RULE:,/RULE:,/,RULE:,RULE:,/L,RULE:,/L,RULE:, DEFAULT, "
       "/DEFAULT/,DEFAULT"},
  };
  for (const auto& [expected, rules] : cases) {
    auto m = parse_principal_rules(rules);
    ASSERT_TRUE(m) << rules << ": " << m.error();
    EXPECT_EQ(m->to_string(), expected) << rules;
  }
}

// Kafka's SslPrincipalMapperTest.testCommaWithWhitespace.
TEST(PrincipalRules, CommaWithWhitespace) {
  const auto m = mapper("RULE:^CN=((\\\\, *|\\w)+)(,.*|$)/$1/,DEFAULT");
  EXPECT_EQ(name(m, "CN=Tkac\\, Adam,OU=ITZ,DC=geodis,DC=cz"), "Tkac\\, Adam");
}

TEST(PrincipalRules, FirstMatchingRuleWins) {
  const auto m = mapper("RULE:^CN=(.*)$/first-$1/, RULE:^CN=(.*)$/second-$1/");
  EXPECT_EQ(name(m, "CN=x"), "first-x");
}

TEST(PrincipalRules, NoMatchIsAnError) {
  const auto m = mapper("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/");
  EXPECT_EQ(
      name(m, "CN=x,OU=Other"),
      "(error) No rules apply to CN=x,OU=Other, rules [RULE:^CN=(.*?),OU=ServiceUsers.*$/$1]");
  EXPECT_EQ(name(mapper(""), "CN=x"), "(error) No rules apply to CN=x, rules []");
}

TEST(PrincipalRules, PatternMustMatchTheWholeName) {
  const auto m = mapper("RULE:CN=([a-z]+)/$1/");
  EXPECT_EQ(name(m, "CN=abc"), "abc");
  EXPECT_EQ(name(m, "CN=abc,O=x").rfind("(error) No rules apply", 0), 0u);
}

TEST(PrincipalRules, ReplacementIsJavasReplaceAll) {
  // An unanchored pattern that matches the whole name can match again in the
  // replace: Java's replaceAll replaces every match, empty ones included.
  EXPECT_EQ(name(mapper("RULE:[a-z]*/<$0>/"), "abc"), "<abc><>");
  EXPECT_EQ(name(mapper("RULE:(.*?)/x/"), "ab"), "xaxbx");
}

TEST(PrincipalRules, GroupReferences) {
  // $3 past the last group is literal (Kafka); $12 is group 1 then "2" (Java).
  EXPECT_EQ(name(mapper("RULE:^CN=(.*),O=(.*)$/$2:$1:$3:$12:$0/"), "CN=a,O=b"),
            "b:a:$3:a2:CN=a,O=b");
  // Escapes: \$ is a literal '$', \\ a backslash.
  EXPECT_EQ(name(mapper("RULE:^CN=(.*)$/\\$1=$1\\\\/"), "CN=a"), "$1=a\\");
  // A group that did not take part is empty.
  EXPECT_EQ(name(mapper("RULE:^CN=(a)?(.*)$/[$1][$2]/"), "CN=b"), "[][b]");
  // Twelve groups: $12 is the twelfth.
  EXPECT_EQ(name(mapper("RULE:^(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)$/$12$1/"), "abcdefghijkl"),
            "la");
}

TEST(PrincipalRules, ReplacementsJavaWouldRefuse) {
  for (std::string_view rules : {
           "RULE:^CN=(.*)$/$/", "RULE:^CN=(.*)$/a$b/", "RULE:^CN=(.*)$/${name}/",
           "RULE:^CN=.*$/$1/",  // no group at all
       }) {
    EXPECT_FALSE(parse_principal_rules(rules)) << rules;
  }
  EXPECT_TRUE(parse_principal_rules("RULE:^CN=.*$/$0/"));
}

TEST(PrincipalRules, PatternsStdRegexRefuses) {
  for (std::string_view rules : {"RULE:(?i)cn=(.*)/$1/", "RULE:^CN=(.*$/$1/", "RULE:[a-/x/"}) {
    auto r = parse_principal_rules(rules);
    ASSERT_FALSE(r) << rules;
    EXPECT_NE(r.error().find("bad pattern"), std::string::npos) << r.error();
  }
}

TEST(PrincipalRules, OverlongRegexNumbersAreRefused) {
  // libstdc++ would overflow a long reading these (undefined behaviour).
  for (std::string_view rules :
       {"RULE:(a)\\1234567890/x/", "RULE:a{1234567890}/x/", "RULE:a{1,1234567890}/x/",
        "RULE:[x](a)\\99999999999999999999/x/"}) {
    auto r = parse_principal_rules(rules);
    ASSERT_FALSE(r) << rules;
    EXPECT_NE(r.error().find("9 digits"), std::string::npos) << r.error();
  }
  // Long numbers elsewhere are literal text.
  EXPECT_EQ(
      name(mapper("RULE:^CN=12345678901234567890,O=(.*)$/$1/"), "CN=12345678901234567890,O=x"),
      "x");
  EXPECT_TRUE(parse_principal_rules("RULE:[{,]12345678901234567890/x/"));
  EXPECT_TRUE(parse_principal_rules("RULE:\\\\12345678901234567890/x/"));
}

TEST(PrincipalRules, CaseFlagsChangeAsciiOnly) {
  EXPECT_EQ(name(mapper("RULE:^CN=(.*)$/$1/U"), "CN=d\xc3\xa9j\xc3\xa0 vu"),
            "D\xc3\xa9J\xc3\xa0 VU");
  EXPECT_EQ(name(mapper("RULE:^CN=(.*)$/$1/L"), "CN=MiXeD"), "mixed");
}

TEST(PrincipalRules, LongNamesAreRefused) {
  const auto m = mapper("DEFAULT");
  const std::string dn = "CN=" + std::string(kDistinguishedNameBytesMax - 3, 'a');
  EXPECT_EQ(name(m, dn), dn);
  EXPECT_FALSE(m.name(dn + "a"));
  // The longest name through a recursive pattern stays within the stack.
  const auto deep = mapper(kDocumented);
  EXPECT_EQ(name(deep, dn), std::string(kDistinguishedNameBytesMax - 3, 'a'));
}

TEST(PrincipalRules, RandomRuleTextsNeverCrash) {
  std::mt19937 rng(3);
  constexpr std::string_view kAlphabet = "RULE:DEFAULT/\\,$1 ()*.LU^";
  const auto m = mapper(kDocumented);
  for (int i = 0; i < 20000; ++i) {
    std::string junk(rng() % 24, '\0');
    for (auto& c : junk) c = rng() % 8 ? kAlphabet[rng() % kAlphabet.size()] : char(rng());
    (void)parse_principal_rules(junk);
    (void)m.name(junk);
  }
}

}  // namespace
}  // namespace strata::security

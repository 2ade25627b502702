#include "security/scram_messages.h"

#include <gtest/gtest.h>

namespace strata::security {
namespace {

TEST(ScramMessages, ClientFirst) {
  auto f = parse_scram_client_first("n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->gs2_header, "n,,");
  EXPECT_EQ(f->authzid, "");
  EXPECT_EQ(f->username, "user");
  EXPECT_EQ(f->nonce, "fyko+d2lbbFgONRv9qkxdawL");
  EXPECT_EQ(f->bare, "n=user,r=fyko+d2lbbFgONRv9qkxdawL");
  EXPECT_FALSE(f->token_auth);
}

TEST(ScramMessages, ClientFirstWithAuthzidAndExtensions) {
  auto f = parse_scram_client_first("n,a=a=2Cb,n=a=2Cb,r=abc,tokenauth=true,x=1=2");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->gs2_header, "n,a=a=2Cb,");
  EXPECT_EQ(f->authzid, "a,b");
  EXPECT_EQ(f->username, "a,b");
  EXPECT_EQ(f->bare, "n=a=2Cb,r=abc,tokenauth=true,x=1=2");
  EXPECT_TRUE(f->token_auth);
}

TEST(ScramMessages, ClientFirstRefusals) {
  EXPECT_EQ(parse_scram_client_first("p=tls-server-end-point,,n=u,r=a").error(),
            "channel binding is not supported");
  EXPECT_EQ(parse_scram_client_first("n,,m=x,n=u,r=a").error(),
            "reserved attribute m= is not supported");
  EXPECT_EQ(parse_scram_client_first(std::string(kScramMessageBytesMax + 1, 'n')).error(),
            "message too long");
  EXPECT_EQ(parse_scram_client_first(std::string("n,,n=u\0,r=a", 11)).error(),
            "message has a NUL or non-ASCII byte");
}

TEST(ScramMessages, ClientFinal) {
  auto f = parse_scram_client_final("c=biws,r=abcdef,p=AAEC");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->channel_binding, "n,,");
  EXPECT_EQ(f->nonce, "abcdef");
  EXPECT_EQ(f->proof, std::string("\x00\x01\x02", 3));
  EXPECT_EQ(f->without_proof, "c=biws,r=abcdef");

  auto ext = parse_scram_client_final("c=biws,r=abc,p=x,p=AAEC");  // an extension named p
  ASSERT_TRUE(ext) << ext.error();
  EXPECT_EQ(ext->without_proof, "c=biws,r=abc,p=x");
}

TEST(ScramMessages, ClientFinalRefusals) {
  for (std::string_view bad : {"", "c=biws", "c=biws,r=abc", "c=biws,p=AAEC", "r=abc,c=biws,p=AAEC",
                               "c=bi,r=abc,p=AAEC", "c=biws,r=abc,p=AAE", "c=biws,r=,p=AAEC",
                               "c=biws,r=abc,1=2,p=AAEC", "c=biws,r=abc,p=AAEC,"}) {
    EXPECT_FALSE(parse_scram_client_final(bad)) << bad;
  }
}

TEST(ScramMessages, NameEscaping) {
  EXPECT_EQ(scram_escape_name("a,b=c"), "a=2Cb=3Dc");
  EXPECT_EQ(scram_unescape_name("a=2Cb=3Dc"), "a,b=c");
  EXPECT_EQ(scram_unescape_name("a=2cb"), std::nullopt);  // codes are upper case
  EXPECT_EQ(scram_unescape_name("a=2"), std::nullopt);
  EXPECT_EQ(scram_unescape_name("a="), std::nullopt);
  EXPECT_EQ(scram_unescape_name(""), std::nullopt);
  EXPECT_EQ(scram_unescape_name("a,b"), std::nullopt);
}

}  // namespace
}  // namespace strata::security

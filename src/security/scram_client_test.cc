// The SCRAM client against RFC 7677's test vector, against Strata's own server for both
// mechanisms, and against hostile or wrong server answers.
#include "security/scram_client.h"

#include <gtest/gtest.h>

#include "security/base64.h"
#include "security/scram.h"

namespace strata::security {
namespace {

constexpr std::string_view kRfcServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";

ScramClient rfc_client() {
  return ScramClient(ScramMechanism::kSha256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
}

TEST(ScramClient, Rfc7677TestVector) {
  ScramClient c = rfc_client();
  EXPECT_EQ(c.first().value(), "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  EXPECT_EQ(c.final(kRfcServerFirst).value(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  EXPECT_TRUE(c.verify("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=").ok());
  EXPECT_FALSE(c.verify("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=").ok());
}

TEST(ScramClient, AgainstStrataServerBothMechanisms) {
  for (auto m : {ScramMechanism::kSha256, ScramMechanism::kSha512}) {
    auto cred = credential_from_password(m, "p,a=ss", "salt-of-alice", 8192).value();
    ScramServer server(m, [&](const std::string& user) -> std::optional<ScramCredential> {
      if (user == "al,ice=") return cred;
      return std::nullopt;
    });
    ScramClient client(m, "al,ice=", "p,a=ss");
    auto s1 = server.step(client.first().value());
    ASSERT_TRUE(s1) << s1.error().detail;
    auto c2 = client.final(*s1);
    ASSERT_TRUE(c2) << c2.error();
    auto s2 = server.step(*c2);
    ASSERT_TRUE(s2) << s2.error().detail;
    EXPECT_TRUE(client.verify(*s2).ok());
    EXPECT_EQ(server.user(), "al,ice=");
  }
}

TEST(ScramClient, WrongPasswordIsRefusedByTheServer) {
  const auto m = ScramMechanism::kSha512;
  auto cred = credential_from_password(m, "right", "salt", 4096).value();
  ScramServer server(m, [&](const std::string&) { return std::optional<ScramCredential>(cred); });
  ScramClient client(m, "bob", "wrong");
  auto s1 = server.step(client.first().value());
  ASSERT_TRUE(s1);
  EXPECT_FALSE(server.step(client.final(*s1).value()).ok());
}

TEST(ScramClient, HostileServerFirstMessages) {
  const std::string ok_rest = ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
  for (const std::string& bad : {
           std::string("e=unknown-user"),
           "r=someoneelse" + ok_rest,                       // nonce does not extend ours
           "r=rOprNGfwEbeRWgbNEkqO" + ok_rest,              // nothing added by the server
           std::string("r=rOprNGfwEbeRWgbNEkqOxyz,s=,i=4096"),  // empty salt
           std::string("r=rOprNGfwEbeRWgbNEkqOxyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1"),
           std::string("r=rOprNGfwEbeRWgbNEkqOxyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=2000000000"),
           std::string("r=rOprNGfwEbeRWgbNEkqOxyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096x"),
           std::string("r=rOprNGfwEbeRWgbNEkqOxyz,s=W22ZaJ0SNY7soEsUEjb6gQ=="),
           std::string(""),
       }) {
    ScramClient c = rfc_client();
    ASSERT_TRUE(c.first().ok());
    EXPECT_FALSE(c.final(bad).ok()) << bad;
  }
}

TEST(ScramClient, ServerFinalErrorsAndOrder) {
  ScramClient c = rfc_client();
  EXPECT_FALSE(c.final(kRfcServerFirst).ok());  // before first()
  EXPECT_FALSE(c.verify("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=").ok());
  ASSERT_TRUE(c.first().ok());
  ASSERT_TRUE(c.final(kRfcServerFirst).ok());
  EXPECT_FALSE(c.verify("e=invalid-proof").ok());
  EXPECT_FALSE(c.verify("x=1").ok());
}

TEST(ScramClient, RandomNonceIsBase64OfTwentyFourBytes) {
  ScramClient c(ScramMechanism::kSha256, "u", "p");
  const std::string first = c.first().value();
  ASSERT_EQ(first.rfind("n,,n=u,r=", 0), 0u);
  EXPECT_EQ(base64_decode(first.substr(9)).value().size(), 24u);
}

}  // namespace
}  // namespace strata::security

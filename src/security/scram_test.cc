#include "security/scram.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "security/base64.h"

namespace strata::security {
namespace {

constexpr std::string_view kGeneric256 =
    "Authentication failed during authentication due to invalid credentials with SASL "
    "mechanism SCRAM-SHA-256";
constexpr std::string_view kGeneric512 =
    "Authentication failed during authentication due to invalid credentials with SASL "
    "mechanism SCRAM-SHA-512";

// RFC 7677 §3.
constexpr std::string_view kRfcSaltB64 = "W22ZaJ0SNY7soEsUEjb6gQ==";
constexpr std::string_view kRfcClientNonce = "rOprNGfwEbeRWgbNEkqO";
constexpr std::string_view kRfcServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";

std::string b64d(std::string_view s) {
  return base64_decode(s).value();
}

ScramCredential make_credential(ScramMechanism m, std::string_view password,
                                std::string_view salt = "NaCl-salt", int32_t iterations = 4096) {
  return credential_from_password(m, password, salt, iterations).value();
}

// A client built from the same primitives, RFC 5802 §3.
struct TestClient {
  ScramMechanism mech;
  std::string user;
  std::string password;
  std::string nonce = "fyko+d2lbbFgONRv9qkxdawL";
  std::string gs2 = "n,,";
  std::string extensions;  // ",k=v..." appended to the first message
  std::string expected_server_final;

  std::string bare() const { return "n=" + scram_escape_name(user) + ",r=" + nonce + extensions; }
  std::string first() const { return gs2 + bare(); }

  // client-final for `server_first`; remembers the server-final to expect.
  std::string final(const std::string& server_first) {
    const size_t s = server_first.find(",s=");
    const size_t i = server_first.find(",i=");
    const std::string full_nonce = server_first.substr(2, s - 2);
    const std::string salt = b64d(server_first.substr(s + 3, i - s - 3));
    const int32_t iterations = std::stoi(server_first.substr(i + 3));
    const std::string salted = scram_salted_password(mech, password, salt, iterations);
    const std::string without_proof = "c=" + base64_encode(gs2) + ",r=" + full_nonce;
    const std::string auth = bare() + "," + server_first + "," + without_proof;
    const std::string client_key = scram_hmac(mech, salted, "Client Key");
    const std::string signature = scram_hmac(mech, scram_hash(mech, client_key), auth);
    std::string proof = client_key;
    for (size_t k = 0; k < proof.size(); ++k) proof[k] = char(proof[k] ^ signature[k]);
    expected_server_final =
        "v=" + base64_encode(scram_hmac(mech, scram_hmac(mech, salted, "Server Key"), auth));
    return without_proof + ",p=" + base64_encode(proof);
  }
};

ScramCredentialLookup users(std::map<std::string, ScramCredential> m) {
  return [m = std::move(m)](const std::string& u) -> std::optional<ScramCredential> {
    auto it = m.find(u);
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

// ---- mechanisms and credentials ------------------------------------------------------

TEST(ScramMechanism, NamesAndKafkaCodes) {
  EXPECT_EQ(scram_mechanism_name(ScramMechanism::kSha256), "SCRAM-SHA-256");
  EXPECT_EQ(scram_mechanism_name(ScramMechanism::kSha512), "SCRAM-SHA-512");
  EXPECT_EQ(scram_mechanism_from_name("SCRAM-SHA-256"), ScramMechanism::kSha256);
  EXPECT_EQ(scram_mechanism_from_name("SCRAM-SHA-512"), ScramMechanism::kSha512);
  EXPECT_EQ(scram_mechanism_from_name("scram-sha-256"), std::nullopt);
  EXPECT_EQ(scram_mechanism_from_name("PLAIN"), std::nullopt);
  EXPECT_EQ(scram_mechanism_from_code(1), ScramMechanism::kSha256);
  EXPECT_EQ(scram_mechanism_from_code(2), ScramMechanism::kSha512);
  EXPECT_EQ(scram_mechanism_from_code(0), std::nullopt);
  EXPECT_EQ(scram_mechanism_from_code(3), std::nullopt);
  EXPECT_EQ(scram_digest_bytes(ScramMechanism::kSha256), 32u);
  EXPECT_EQ(scram_digest_bytes(ScramMechanism::kSha512), 64u);
}

TEST(ScramCredential, IterationLimitsAreKafkas) {
  EXPECT_TRUE(check_scram_iterations(4096));
  EXPECT_TRUE(check_scram_iterations(16384));
  EXPECT_EQ(check_scram_iterations(4095).error(), "Too few iterations");
  EXPECT_EQ(check_scram_iterations(16385).error(), "Too many iterations");
  EXPECT_FALSE(credential_from_password(ScramMechanism::kSha256, "p", "s", 100));
  EXPECT_FALSE(credential_from_salted_password(ScramMechanism::kSha256, "x", "s", 20000));
  EXPECT_FALSE(credential_from_password(ScramMechanism::kSha256, "p",
                                        std::string(kScramSaltBytesMax + 1, 's'), 4096));
}

TEST(ScramCredential, SaltedPasswordGivesTheSameCredential) {
  for (auto m : {ScramMechanism::kSha256, ScramMechanism::kSha512}) {
    const auto c = make_credential(m, "pencil");
    EXPECT_EQ(c.stored_key.size(), scram_digest_bytes(m));
    EXPECT_EQ(c.server_key.size(), scram_digest_bytes(m));
    const std::string salted = scram_salted_password(m, "pencil", "NaCl-salt", 4096);
    EXPECT_EQ(credential_from_salted_password(m, salted, "NaCl-salt", 4096).value(), c);
  }
}

TEST(ScramCredential, RandomSalt) {
  auto a = random_salt();
  auto b = random_salt();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->size(), kScramSaltBytes);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(random_salt(0).value(), "");
  EXPECT_FALSE(random_salt(kScramSaltBytesMax + 1));
}

TEST(ScramCredential, TextRoundTrip) {
  const auto c = make_credential(ScramMechanism::kSha512, "secret");
  const std::string text = format_scram_credential(c);
  EXPECT_EQ(text.rfind("salt=" + base64_encode("NaCl-salt") + ",stored_key=", 0), 0u);
  EXPECT_NE(text.find(",iterations=4096"), std::string::npos);
  EXPECT_EQ(parse_scram_credential(text).value(), c);
}

TEST(ScramCredential, TextInAnyOrder) {
  auto c = parse_scram_credential("iterations=8192,server_key=AAEC,stored_key=AwQF,salt=c2FsdA==");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->salt, "salt");
  EXPECT_EQ(c->stored_key, std::string("\x03\x04\x05"));
  EXPECT_EQ(c->server_key, std::string("\x00\x01\x02", 3));
  EXPECT_EQ(c->iterations, 8192);
}

TEST(ScramCredential, GarbageTextIsAnError) {
  for (std::string_view bad : {
           "",
           "salt=c2FsdA==",
           "salt=c2FsdA==,stored_key=AwQF,server_key=AAEC",  // no iterations
           "salt=c2FsdA==,stored_key=AwQF,server_key=AAEC,iterations=",
           "salt=c2FsdA==,stored_key=AwQF,server_key=AAEC,iterations=-1",
           "salt=c2FsdA==,stored_key=AwQF,server_key=AAEC,iterations=+4096",
           "salt=c2FsdA==,stored_key=AwQF,server_key=AAEC,iterations=0",
           "salt=c2FsdA==,stored_key=AwQF,server_key=AAEC,iterations=2147483648",
           "salt=c2FsdA==,stored_key=AwQF,server_key=AAEC,iterations=4096,",  // empty field
           "salt=c2FsdA=,stored_key=AwQF,server_key=AAEC,iterations=4096",    // bad base64
           "salt=c2Fs dA==,stored_key=AwQF,server_key=AAEC,iterations=4096",
           "salt=c2FsdA==,salt=c2FsdA==,server_key=AAEC,iterations=4096",  // repeated
           "salt=c2FsdA==,stored_key=AwQF,server_key=AAEC,iterations=4096,x=1",
           "=c2FsdA==,stored_key=AwQF,server_key=AAEC,iterations=4096",
           "salt,stored_key=AwQF,server_key=AAEC,iterations=4096",
       }) {
    EXPECT_FALSE(parse_scram_credential(bad)) << bad;
  }
  EXPECT_FALSE(parse_scram_credential(std::string(kScramCredentialTextMax + 1, 'a')));
}

// ---- the exchange --------------------------------------------------------------------

TEST(ScramServer, Rfc7677TestVector) {
  const std::string salt = b64d(kRfcSaltB64);
  auto cred = credential_from_password(ScramMechanism::kSha256, "pencil", salt, 4096);
  ASSERT_TRUE(cred);
  ScramServer server(ScramMechanism::kSha256, users({{"user", *cred}}),
                     std::string(kRfcServerNonce));

  auto first = server.step("n,,n=user,r=" + std::string(kRfcClientNonce));
  ASSERT_TRUE(first) << first.error().detail;
  EXPECT_EQ(*first,
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
  EXPECT_FALSE(server.complete());

  auto final = server.step(
      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
      "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  ASSERT_TRUE(final) << final.error().detail;
  EXPECT_EQ(*final, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  EXPECT_TRUE(server.complete());
  EXPECT_EQ(server.user(), "user");
}

TEST(ScramServer, TestClientAgreesWithTheRfcVector) {
  TestClient c{ScramMechanism::kSha256, "user", "pencil", std::string(kRfcClientNonce)};
  const std::string server_first =
      "r=" + c.nonce + std::string(kRfcServerNonce) + ",s=" + std::string(kRfcSaltB64) + ",i=4096";
  EXPECT_EQ(c.final(server_first),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  EXPECT_EQ(c.expected_server_final, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
}

TEST(ScramServer, BothMechanismsWithARandomServerNonce) {
  for (auto m : {ScramMechanism::kSha256, ScramMechanism::kSha512}) {
    ScramServer server(m, users({{"alice", make_credential(m, "alice-secret")}}));
    TestClient c{m, "alice", "alice-secret"};
    auto first = server.step(c.first());
    ASSERT_TRUE(first) << first.error().detail;
    EXPECT_EQ(first->rfind("r=" + c.nonce, 0), 0u);
    EXPECT_GT(first->find(",s="), 2 + c.nonce.size());  // a server nonce follows the client's
    auto final = server.step(c.final(*first));
    ASSERT_TRUE(final) << final.error().detail;
    EXPECT_EQ(*final, c.expected_server_final);
    EXPECT_TRUE(server.complete());
    EXPECT_EQ(server.user(), "alice");
    EXPECT_EQ(server.mechanism(), m);
  }
}

TEST(ScramServer, EscapedUserName) {
  const std::string name = "a,b=c";
  ScramServer server(ScramMechanism::kSha256,
                     users({{name, make_credential(ScramMechanism::kSha256, "pw")}}));
  TestClient c{ScramMechanism::kSha256, name, "pw"};
  EXPECT_NE(c.first().find("n=a=2Cb=3Dc,"), std::string::npos);
  auto first = server.step(c.first());
  ASSERT_TRUE(first);
  ASSERT_TRUE(server.step(c.final(*first)));
  EXPECT_EQ(server.user(), name);
}

TEST(ScramServer, AuthzidEqualToTheUserIsAccepted) {
  ScramServer server(ScramMechanism::kSha256,
                     users({{"bob", make_credential(ScramMechanism::kSha256, "pw")}}));
  TestClient c{ScramMechanism::kSha256, "bob", "pw"};
  c.gs2 = "n,a=bob,";
  auto first = server.step(c.first());
  ASSERT_TRUE(first);
  auto final = server.step(c.final(*first));  // c= is base64("n,a=bob,")
  ASSERT_TRUE(final) << final.error().detail;
  EXPECT_EQ(server.user(), "bob");
}

TEST(ScramServer, AuthzidOtherThanTheUserIsRefusedWithKafkasText) {
  ScramServer server(ScramMechanism::kSha256,
                     users({{"bob", make_credential(ScramMechanism::kSha256, "pw")}}));
  auto r = server.step("n,a=admin,n=bob,r=abc");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "Authentication failed: Client requested an authorization id that is different "
            "from username");
  EXPECT_FALSE(server.step("c=biws,r=abc,p=AAAA"));  // failed for good
}

TEST(ScramServer, WrongPassword) {
  ScramServer server(ScramMechanism::kSha512,
                     users({{"alice", make_credential(ScramMechanism::kSha512, "right")}}));
  TestClient c{ScramMechanism::kSha512, "alice", "wrong"};
  auto first = server.step(c.first());
  ASSERT_TRUE(first);
  auto final = server.step(c.final(*first));
  ASSERT_FALSE(final);
  EXPECT_EQ(final.error().message, kGeneric512);
  EXPECT_EQ(final.error().detail, "invalid client proof");
  EXPECT_FALSE(server.complete());
}

TEST(ScramServer, UnknownUserLooksNormalUntilTheEnd) {
  auto lookup = users({{"alice", make_credential(ScramMechanism::kSha256, "pw")}});
  TestClient c{ScramMechanism::kSha256, "mallory", "pw"};
  ScramServer server(ScramMechanism::kSha256, lookup);
  auto first = server.step(c.first());
  ASSERT_TRUE(first) << first.error().detail;
  const size_t s = first->find(",s=");
  const size_t i = first->find(",i=");
  ASSERT_NE(s, std::string::npos);
  ASSERT_NE(i, std::string::npos);
  const std::string salt = first->substr(s + 3, i - s - 3);
  EXPECT_EQ(b64d(salt).size(), kScramSaltBytes);
  EXPECT_EQ(first->substr(i), ",i=4096");

  auto final = server.step(c.final(*first));
  ASSERT_FALSE(final);
  EXPECT_EQ(final.error().message, kGeneric256);  // the same as a wrong password

  // The fake salt is stable for one user and differs between users.
  ScramServer again(ScramMechanism::kSha256, lookup);
  auto first2 = again.step(c.first());
  ASSERT_TRUE(first2);
  EXPECT_NE(first2->find(",s=" + salt + ","), std::string::npos);
  ScramServer other(ScramMechanism::kSha256, lookup);
  TestClient d{ScramMechanism::kSha256, "eve", "pw"};
  auto first3 = other.step(d.first());
  ASSERT_TRUE(first3);
  EXPECT_EQ(first3->find(",s=" + salt + ","), std::string::npos);
}

TEST(ScramServer, CredentialItCannotUseCountsAsUnknown) {
  auto weak = make_credential(ScramMechanism::kSha256, "pw");
  weak.iterations = 1000;  // below Kafka's minimum, however it got stored
  auto wrong_size = make_credential(ScramMechanism::kSha512, "pw");  // a SHA-512 one
  for (const auto& cred : {weak, wrong_size}) {
    ScramServer server(ScramMechanism::kSha256, users({{"u", cred}}));
    TestClient c{ScramMechanism::kSha256, "u", "pw"};
    auto first = server.step(c.first());
    ASSERT_TRUE(first);
    auto final = server.step(c.final(*first));
    ASSERT_FALSE(final);
    EXPECT_EQ(final.error().message, kGeneric256);
  }
}

class ScramFinalStep : public ::testing::Test {
 protected:
  ScramServer server{ScramMechanism::kSha256,
                     users({{"alice", make_credential(ScramMechanism::kSha256, "pw")}})};
  TestClient client{ScramMechanism::kSha256, "alice", "pw"};
  std::string good_final;

  void SetUp() override {
    auto first = server.step(client.first());
    ASSERT_TRUE(first);
    good_final = client.final(*first);
  }
  void expect_refused(const std::string& message, std::string_view detail_part) {
    auto r = server.step(message);
    ASSERT_FALSE(r) << message;
    EXPECT_EQ(r.error().message, kGeneric256);
    EXPECT_NE(r.error().detail.find(detail_part), std::string::npos) << r.error().detail;
    EXPECT_FALSE(server.step(good_final));  // failed for good
  }
};

TEST_F(ScramFinalStep, TamperedNonce) {
  std::string m = good_final;
  m[m.find(",p=") - 1] ^= 1;
  expect_refused(m, "nonce");
}

TEST_F(ScramFinalStep, ClientNonceOnly) {
  std::string m = good_final;
  const size_t r = m.find(",r=") + 3;
  m.replace(r, m.find(",p=") - r, client.nonce);
  expect_refused(m, "nonce");
}

TEST_F(ScramFinalStep, TamperedProof) {
  std::string m = good_final;
  m[m.find(",p=") + 3] = m[m.find(",p=") + 3] == 'A' ? 'B' : 'A';
  expect_refused(m, "proof");
}

TEST_F(ScramFinalStep, ProofOfTheWrongSize) {
  std::string m = good_final.substr(0, good_final.find(",p=")) + ",p=AAAA";
  expect_refused(m, "proof");
}

TEST_F(ScramFinalStep, ChannelBindingOtherThanTheGs2Header) {
  std::string m = good_final;
  m.replace(0, 6, "c=" + base64_encode("y,,"));
  expect_refused(m, "channel binding");
}

TEST_F(ScramFinalStep, Garbage) {
  expect_refused("p=AAAA", "invalid client-final");
}

TEST_F(ScramFinalStep, AnExtensionBeforeTheProofIsPartOfTheAuthMessage) {
  // The proof was computed without the extension, so adding it breaks the proof:
  // the auth message is the message as received.
  std::string m = good_final;
  m.insert(m.find(",p="), ",x=y");
  expect_refused(m, "proof");
}

TEST(ScramServer, StepAfterCompletionFails) {
  ScramServer server(ScramMechanism::kSha256,
                     users({{"alice", make_credential(ScramMechanism::kSha256, "pw")}}));
  TestClient c{ScramMechanism::kSha256, "alice", "pw"};
  auto first = server.step(c.first());
  ASSERT_TRUE(first);
  const std::string final = c.final(*first);
  ASSERT_TRUE(server.step(final));
  auto again = server.step(final);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().message, "Unexpected challenge in Sasl server state COMPLETE");
  EXPECT_FALSE(server.complete());
}

TEST(ScramServer, FirstMessagesItRefuses) {
  for (std::string_view bad : {
           "", "n,,", "n,,n=alice", "n,,r=abc,n=alice",
           "p=tls-unique,,n=alice,r=abc",  // channel binding
           "y,,n=alice,r=abc",
           "n,,m=ext,n=alice,r=abc",  // reserved m=
           "n,,n=,r=abc",             // empty name
           "n,,n=al=ice,r=abc",       // bad escape
           "n,,n=alice,r=",           // empty nonce
           "n,,n=alice,r=a b",        // unprintable nonce
           "n,,n=alice,r=abc,=x",     // bad extension
           "n,,n=alice,r=abc,1x=y", "n,,n=alice,r=abc,x=",
           "n,,n=alice,r=abc,tokenauth=true",  // delegation tokens
           "n,,n=alice,r=abc,tokenauth=TRUE", "n,a=,n=alice,r=abc",
           "n,,n=al\xc3\xa9,r=abc",  // non-ASCII, as Kafka's patterns
       }) {
    ScramServer server(ScramMechanism::kSha256,
                       users({{"alice", make_credential(ScramMechanism::kSha256, "pw")}}));
    auto r = server.step(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message, kGeneric256) << bad;
  }
}

TEST(ScramServer, UnknownExtensionsAreIgnored) {
  ScramServer server(ScramMechanism::kSha256,
                     users({{"alice", make_credential(ScramMechanism::kSha256, "pw")}}));
  TestClient c{ScramMechanism::kSha256, "alice", "pw"};
  c.extensions = ",tokenauth=false,foo=b=ar";
  auto first = server.step(c.first());
  ASSERT_TRUE(first) << first.error().detail;
  ASSERT_TRUE(server.step(c.final(*first)));
}

TEST(ScramServer, OverlongMessagesAreRefused) {
  ScramServer server(ScramMechanism::kSha256,
                     users({{"alice", make_credential(ScramMechanism::kSha256, "pw")}}));
  const std::string nonce(kScramMessageBytesMax, 'x');
  EXPECT_FALSE(server.step("n,,n=alice,r=" + nonce));
}

TEST(ScramServer, RandomBytesNeverCrash) {
  std::mt19937 rng(7);
  auto lookup = users({{"alice", make_credential(ScramMechanism::kSha256, "pw")}});
  TestClient c{ScramMechanism::kSha256, "alice", "pw"};
  for (int i = 0; i < 2000; ++i) {
    std::string junk(rng() % 64, '\0');
    for (auto& ch : junk) ch = char(rng() % 4 == 0 ? "n,=ar"[rng() % 5] : rng() % 256);
    ScramServer first_only(ScramMechanism::kSha256, lookup);
    (void)first_only.step(junk);
    ScramServer server(ScramMechanism::kSha256, lookup);
    ASSERT_TRUE(server.step(c.first()));
    EXPECT_FALSE(server.step(junk));
  }
}

}  // namespace
}  // namespace strata::security

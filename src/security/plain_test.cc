#include "security/plain.h"

#include <gtest/gtest.h>

#include <random>

namespace strata::security {
namespace {

using namespace std::string_literals;

constexpr std::string_view kGeneric =
    "Authentication failed during authentication due to invalid credentials with SASL "
    "mechanism PLAIN";
constexpr std::string_view kInvalid = "Authentication failed: Invalid username or password";

const PlainPasswords kUsers = {{"admin", "admin-secret"}, {"alice", "alice-secret"}};

TEST(Plain, ParsesTheThreeTokens) {
  auto m = parse_plain("authz\0alice\0pw"s);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->authzid, "authz");
  EXPECT_EQ(m->username, "alice");
  EXPECT_EQ(m->password, "pw");
}

TEST(Plain, GoodPassword) {
  EXPECT_EQ(plain_authenticate("\0alice\0alice-secret"s, kUsers).value(), "alice");
  EXPECT_EQ(plain_authenticate("alice\0alice\0alice-secret"s, kUsers).value(), "alice");
}

TEST(Plain, WrongPasswordAndUnknownUserLookTheSame) {
  for (auto msg : {"\0alice\0admin-secret"s, "\0alice\0alice-secre"s, "\0alice\0alice-secrets"s,
                   "\0mallory\0alice-secret"s, "\0ALICE\0alice-secret"s}) {
    auto r = plain_authenticate(msg, kUsers);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, kInvalid);
  }
}

TEST(Plain, AuthzidOtherThanTheUser) {
  auto r = plain_authenticate("admin\0alice\0alice-secret"s, kUsers);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "Authentication failed: Client requested an authorization id that is different "
            "from username");
  // The password is checked first, as Kafka does.
  EXPECT_EQ(plain_authenticate("admin\0alice\0wrong"s, kUsers).error().message, kInvalid);
}

TEST(Plain, MalformedMessagesGetTheGenericText) {
  for (auto msg : {""s, "alice"s, "\0alice"s, "\0alice\0"s, "\0\0pw"s, "\0alice\0pw\0"s,
                   "\0alice\0alice-secret\0x"s}) {
    auto r = plain_authenticate(msg, kUsers);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, kGeneric);
  }
  EXPECT_EQ(parse_plain("\0alice\0pw\0x"s).error().detail,
            "Invalid SASL/PLAIN response: expected 3 tokens, got 4");
  EXPECT_EQ(parse_plain("\0\0pw"s).error().detail, "Authentication failed: username not specified");
  EXPECT_EQ(parse_plain("\0u\0"s).error().detail, "Authentication failed: password not specified");
}

TEST(Plain, OverlongMessage) {
  const std::string pw(kPlainMessageBytesMax, 'p');
  EXPECT_FALSE(parse_plain("\0alice\0"s + pw));
}

TEST(Plain, RandomBytesNeverCrash) {
  std::mt19937 rng(11);
  for (int i = 0; i < 5000; ++i) {
    std::string junk(rng() % 32, '\0');
    for (auto& c : junk) c = char(rng() % 3 == 0 ? 0 : rng() % 256);
    (void)plain_authenticate(junk, kUsers);
  }
}

}  // namespace
}  // namespace strata::security

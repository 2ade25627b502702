// DescribeUserScramCredentials (key 50): which SCRAM mechanisms (and iterations) each
// user has a credential for; never the credential itself (KIP-554). Null users: all.
//
// Follows Kafka's schema for version 0 (Kafka 4.0-SNAPSHOT, Oct 2024), flexible.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DescribeUserScramCredentialsRequest {
  static constexpr int16_t kApiKey = 50;
  static constexpr Versions kVersions{0, 0};
  static constexpr int16_t kFlexibleFrom = 0;

  struct User {
    std::string name;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
    }
  };

  std::optional<std::vector<User>> users;  // null: every user

  template <class V>
  void visit(V& v) {
    v(users, F{.versions = {0}, .nullable = {0}});
  }
};

struct DescribeUserScramCredentialsResponse {
  static constexpr int16_t kApiKey = DescribeUserScramCredentialsRequest::kApiKey;
  static constexpr Versions kVersions = DescribeUserScramCredentialsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DescribeUserScramCredentialsRequest::kFlexibleFrom;

  struct CredentialInfo {
    int8_t mechanism = 0;  // 1 SCRAM-SHA-256, 2 SCRAM-SHA-512
    int32_t iterations = 0;
    template <class V>
    void visit(V& v) {
      v(mechanism, F{{0}});
      v(iterations, F{{0}});
    }
  };
  struct Result {
    std::string user;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::vector<CredentialInfo> credential_infos;
    template <class V>
    void visit(V& v) {
      v(user, F{{0}});
      v(error_code, F{{0}});
      v(error_message, F{.versions = {0}, .nullable = {0}});
      v(credential_infos, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<Result> results;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(error_code, F{{0}});
    v(error_message, F{.versions = {0}, .nullable = {0}});
    v(results, F{{0}});
  }
};

}  // namespace strata::protocol

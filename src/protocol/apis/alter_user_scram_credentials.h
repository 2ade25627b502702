// AlterUserScramCredentials (key 51): deletes and upserts SCRAM credentials (KIP-554).
// An upsertion carries the salted password (Hi(password, salt, iterations)), never the
// password; the broker derives the stored and server keys from it.
//
// Follows Kafka's schema for version 0 (Kafka 4.0-SNAPSHOT, Oct 2024), flexible.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct AlterUserScramCredentialsRequest {
  static constexpr int16_t kApiKey = 51;
  static constexpr Versions kVersions{0, 0};
  static constexpr int16_t kFlexibleFrom = 0;

  struct Deletion {
    std::string name;
    int8_t mechanism = 0;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(mechanism, F{{0}});
    }
  };
  struct Upsertion {
    std::string name;
    int8_t mechanism = 0;
    int32_t iterations = 0;
    std::vector<uint8_t> salt;
    std::vector<uint8_t> salted_password;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(mechanism, F{{0}});
      v(iterations, F{{0}});
      v(salt, F{{0}});
      v(salted_password, F{{0}});
    }
  };

  std::vector<Deletion> deletions;
  std::vector<Upsertion> upsertions;

  template <class V>
  void visit(V& v) {
    v(deletions, F{{0}});
    v(upsertions, F{{0}});
  }
};

struct AlterUserScramCredentialsResponse {
  static constexpr int16_t kApiKey = AlterUserScramCredentialsRequest::kApiKey;
  static constexpr Versions kVersions = AlterUserScramCredentialsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = AlterUserScramCredentialsRequest::kFlexibleFrom;

  struct Result {
    std::string user;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    template <class V>
    void visit(V& v) {
      v(user, F{{0}});
      v(error_code, F{{0}});
      v(error_message, F{.versions = {0}, .nullable = {0}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<Result> results;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(results, F{{0}});
  }
};

}  // namespace strata::protocol

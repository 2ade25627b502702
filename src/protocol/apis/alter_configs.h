// AlterConfigs (key 33): replace the whole set of dynamic configs of each resource
// (settings not listed revert to their defaults). IncrementalAlterConfigs is the
// per-key alternative.
//
// Follows Kafka 4.0's schema: versions 0-2, flexible from 2. v1 is v0.
//
// Defaults are Kafka's: a nullable string with no stated default starts as "".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct AlterConfigsRequest {
  static constexpr int16_t kApiKey = 33;
  static constexpr Versions kVersions{0, 2};
  static constexpr int16_t kFlexibleFrom = 2;

  struct Config {
    std::string name;
    std::optional<std::string> value = "";
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(value, F{{0}, {0}});
    }
  };
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
    template <class V>
    void visit(V& v) {
      v(resource_type, F{{0}});
      v(resource_name, F{{0}});
      v(configs, F{{0}});
    }
  };

  std::vector<Resource> resources;
  bool validate_only = false;

  template <class V>
  void visit(V& v) {
    v(resources, F{{0}});
    v(validate_only, F{{0}});
  }
};

struct AlterConfigsResponse {
  static constexpr int16_t kApiKey = AlterConfigsRequest::kApiKey;
  static constexpr Versions kVersions = AlterConfigsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = AlterConfigsRequest::kFlexibleFrom;

  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message = "";
    int8_t resource_type = 0;
    std::string resource_name;
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(error_message, F{{0}, {0}});
      v(resource_type, F{{0}});
      v(resource_name, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<Result> responses;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(responses, F{{0}});
  }
};

}  // namespace strata::protocol

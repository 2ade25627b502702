// DescribeConfigs (key 32): read the configs of topics, brokers and broker loggers,
// with their sources, synonyms and (v3+) types and documentation.
//
// Follows Kafka 4.0's schema: versions 0-4 (0 deprecated), flexible from 4.
// v1 adds include_synonyms and, in the response, config_source (replacing is_default)
// and synonyms; v2 is v1; v3 adds include_documentation, config_type and documentation.
//
// Defaults are Kafka's: a nullable string with no stated default starts as "", a
// nullable array as empty, not null.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct DescribeConfigsRequest {
  static constexpr int16_t kApiKey = 32;
  static constexpr Versions kVersions{0, 4};
  static constexpr int16_t kFlexibleFrom = 4;

  struct Resource {
    int8_t resource_type = 0;  // 2 topic, 4 broker, 8 broker logger, 16 client metrics, 32 group
    std::string resource_name;
    std::optional<std::vector<std::string>> configuration_keys{std::in_place};  // null: all
    template <class V>
    void visit(V& v) {
      v(resource_type, F{{0}});
      v(resource_name, F{{0}});
      v(configuration_keys, F{{0}, {0}});
    }
  };

  std::vector<Resource> resources;
  bool include_synonyms = false;
  bool include_documentation = false;

  template <class V>
  void visit(V& v) {
    v(resources, F{{0}});
    v(include_synonyms, F{{1}});
    v(include_documentation, F{{3}});
  }
};

struct DescribeConfigsResponse {
  static constexpr int16_t kApiKey = DescribeConfigsRequest::kApiKey;
  static constexpr Versions kVersions = DescribeConfigsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = DescribeConfigsRequest::kFlexibleFrom;

  // Another place the same setting is defined, in order of precedence.
  struct Synonym {
    std::string name;
    std::optional<std::string> value = "";
    int8_t source = 0;
    template <class V>
    void visit(V& v) {
      v(name, F{{1}});
      v(value, F{{1}, {1}});
      v(source, F{{1}});
    }
  };
  struct Config {
    std::string name;
    std::optional<std::string> value = "";
    bool read_only = false;
    bool is_default = false;  // v0 only
    // v1+. Kafka's -1 is a placeholder: what a v0 answer implies depends on the resource.
    int8_t config_source = -1;
    bool is_sensitive = false;
    std::vector<Synonym> synonyms;
    int8_t config_type = 0;
    std::optional<std::string> documentation = "";
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(value, F{{0}, {0}});
      v(read_only, F{{0}});
      v(is_default, F{{0, 0}});
      v(config_source, F{{1}});
      v(is_sensitive, F{{0}});
      v(synonyms, F{{1}});
      v(config_type, F{{3}});
      v(documentation, F{{3}, {3}});
    }
  };
  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message = "";
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
    template <class V>
    void visit(V& v) {
      v(error_code, F{{0}});
      v(error_message, F{{0}, {0}});
      v(resource_type, F{{0}});
      v(resource_name, F{{0}});
      v(configs, F{{0}});
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

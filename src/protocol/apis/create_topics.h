// CreateTopics (key 19): create topics, each with a partition count and replication
// factor or an explicit replica assignment, plus topic config overrides.
//
// Follows Kafka 4.0's schema: versions 0-7 (0-1 deprecated), flexible from 5.
// v1 adds validate_only; v2 the throttle time; v4 lets num_partitions and
// replication_factor be -1 (broker defaults) without an assignment; v5 returns the new
// topic's partition count, replication factor and configs; v6 may answer
// THROTTLING_QUOTA_EXCEEDED; v7 returns the topic id.
//
// Defaults are Kafka's: a nullable string with no stated default starts as "", a
// nullable array as empty, not null.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct CreateTopicsRequest {
  static constexpr int16_t kApiKey = 19;
  static constexpr Versions kVersions{0, 7};
  static constexpr int16_t kFlexibleFrom = 5;

  // The replicas of one partition, leader preferred first.
  struct Assignment {
    int32_t partition_index = 0;
    std::vector<int32_t> broker_ids;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(broker_ids, F{{0}});
    }
  };
  struct Config {
    std::string name;
    std::optional<std::string> value = "";
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(value, F{{0}, {0}});
    }
  };
  struct Topic {
    std::string name;
    int32_t num_partitions = 0;           // -1: from assignments or the broker default
    int16_t replication_factor = 0;       // -1: from assignments or the broker default
    std::vector<Assignment> assignments;  // empty: the broker places replicas
    std::vector<Config> configs;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(num_partitions, F{{0}});
      v(replication_factor, F{{0}});
      v(assignments, F{{0}});
      v(configs, F{{0}});
    }
  };

  std::vector<Topic> topics;
  int32_t timeout_ms = 60000;
  bool validate_only = false;

  template <class V>
  void visit(V& v) {
    v(topics, F{{0}});
    v(timeout_ms, F{{0}});
    v(validate_only, F{{1}});
  }
};

struct CreateTopicsResponse {
  static constexpr int16_t kApiKey = CreateTopicsRequest::kApiKey;
  static constexpr Versions kVersions = CreateTopicsRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = CreateTopicsRequest::kFlexibleFrom;

  struct Config {
    std::string name;
    std::optional<std::string> value = "";
    bool read_only = false;
    int8_t config_source = -1;
    bool is_sensitive = false;
    template <class V>
    void visit(V& v) {
      v(name, F{{5}});
      v(value, F{{5}, {5}});
      v(read_only, F{{5}});
      v(config_source, F{{5}});
      v(is_sensitive, F{{5}});
    }
  };
  struct Topic {
    std::string name;
    Uuid topic_id;
    int16_t error_code = 0;
    std::optional<std::string> error_message = "";
    int16_t topic_config_error_code = 0;  // set when configs could not be returned
    int32_t num_partitions = -1;
    int16_t replication_factor = -1;
    std::optional<std::vector<Config>> configs{std::in_place};
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(topic_id, F{{7}});
      v(error_code, F{{0}});
      v(error_message, F{{1}, {1}});
      v(topic_config_error_code, F{.versions = {5}, .tag = 0, .tagged = {5}});
      v(num_partitions, F{{5}});
      v(replication_factor, F{{5}});
      v(configs, F{{5}, {5}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{2}});
    v(topics, F{{0}});
  }
};

}  // namespace strata::protocol

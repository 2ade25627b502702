// ApiVersions (key 18): what the broker supports, asked first by every client.
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct ApiVersionsRequest {
  static constexpr int16_t kApiKey = 18;
  static constexpr Versions kVersions{0, 4};
  static constexpr int16_t kFlexibleFrom = 3;

  std::string client_software_name;
  std::string client_software_version;

  template <class V>
  void visit(V& v) {
    v(client_software_name, F{{3}});
    v(client_software_version, F{{3}});
  }
};

struct ApiVersionsResponse {
  static constexpr int16_t kFlexibleFrom = ApiVersionsRequest::kFlexibleFrom;
  struct ApiVersion {
    int16_t api_key = 0;
    int16_t min_version = 0;
    int16_t max_version = 0;
    template <class V>
    void visit(V& v) {
      v(api_key, F{{0}});
      v(min_version, F{{0}});
      v(max_version, F{{0}});
    }
  };
  struct Feature {
    std::string name;
    int16_t min_version = 0;
    int16_t max_version = 0;
    template <class V>
    void visit(V& v) {
      v(name, F{{3}});
      v(min_version, F{{3}});
      v(max_version, F{{3}});
    }
  };
  struct FinalizedFeature {
    std::string name;
    int16_t max_version_level = 0;
    int16_t min_version_level = 0;
    template <class V>
    void visit(V& v) {
      v(name, F{{3}});
      v(max_version_level, F{{3}});
      v(min_version_level, F{{3}});
    }
  };

  int16_t error_code = 0;
  std::vector<ApiVersion> api_keys;
  int32_t throttle_time_ms = 0;
  std::vector<Feature> supported_features;
  int64_t finalized_features_epoch = -1;
  std::vector<FinalizedFeature> finalized_features;
  bool zk_migration_ready = false;

  template <class V>
  void visit(V& v) {
    v(error_code, F{{0}});
    v(api_keys, F{{0}});
    v(throttle_time_ms, F{{1}});
    v(supported_features, F{.versions = {3}, .tag = 0, .tagged = {3}});
    v(finalized_features_epoch, F{.versions = {3}, .tag = 1, .tagged = {3}, .tag_default = -1});
    v(finalized_features, F{.versions = {3}, .tag = 2, .tagged = {3}});
    v(zk_migration_ready, F{.versions = {3}, .tag = 3, .tagged = {3}});
  }
};

}  // namespace strata::protocol

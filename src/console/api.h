// The console's JSON answers (docs/formats/console-api.md), one function per route, each
// given the request's ClusterReader (connected as the page's user). console.cc routes
// HTTP requests to them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/result.h"
#include "console/cluster_reader.h"

namespace strata::console {

// A route's failure: the HTTP status and the text the page shows.
struct Failure {
  int status = 502;
  std::string message;
};
template <class T>
using Answer = Result<T, Failure>;

// 502: the cluster failed or refused; 403 when it refused this user (an authorization error).
Failure cluster_failure(std::string message);
Failure bad_request(std::string message);      // 400

// Where the message browser starts: `offset`, else `timestamp`, else the newest
// records when `newest`, else the oldest; at most `limit`, kept when `filter` is found.
struct Browse {
  std::optional<int64_t> offset;
  std::optional<int64_t> timestamp;
  bool newest = false;
  int64_t limit = 50;
  std::string filter;
};

Answer<nlohmann::json> cluster(ClusterReader& c);
Answer<nlohmann::json> topics(ClusterReader& c);
Answer<nlohmann::json> topic(ClusterReader& c, const std::string& name);
Answer<nlohmann::json> batches(ClusterReader& c, const std::string& topic, int32_t partition, int64_t offset);
Answer<nlohmann::json> batch(ClusterReader& c, const std::string& topic, int32_t partition, int64_t offset);
Answer<nlohmann::json> messages(ClusterReader& c, const std::string& topic, int32_t partition, const Browse& q);
Answer<nlohmann::json> groups(ClusterReader& c);
Answer<nlohmann::json> group(ClusterReader& c, const std::string& id);

// Writes; `body` is the request's JSON object (a missing or mistyped field: a 400).
Answer<nlohmann::json> create(ClusterReader& c, const nlohmann::json& body);
Answer<nlohmann::json> remove(ClusterReader& c, const std::string& name);
Answer<nlohmann::json> grow(ClusterReader& c, const std::string& name, const nlohmann::json& body);
Answer<nlohmann::json> configure(ClusterReader& c, const std::string& name, const nlohmann::json& body);
Answer<nlohmann::json> forget(ClusterReader& c, const std::string& group);
Answer<nlohmann::json> reset(ClusterReader& c, const std::string& group, const nlohmann::json& body);

}  // namespace strata::console

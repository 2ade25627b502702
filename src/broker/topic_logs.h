// Making and removing a topic's partition logs (create_topic.cc): shared by the single
// node's topic lifecycle and the cluster's (cluster_topics.cc), which makes only the
// partitions this broker holds a replica of.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "broker/broker.h"

namespace strata::broker {

// The first error, if any; the caller removes what was made.
asio::awaitable<std::optional<std::string>> make_logs(Broker& broker, const std::string& name,
                                                      const Uuid& id, const std::vector<int32_t>& parts,
                                                      const storage::LogConfig& config);
asio::awaitable<void> remove_logs(Broker& broker, const std::string& name, const Uuid& id,
                                  const std::vector<int32_t>& parts);

}  // namespace strata::broker

// The topics of this broker: name, id, partition count and topic-config overrides,
// persisted in <log.dir>/strata-topics.json (atomic rewrite on every change). On a
// single node this file is the metadata Kafka keeps in its KRaft metadata log.
// Thread-safe. The durable record only: requests read the published MetadataSnapshot
// (metadata_snapshot.h), which Broker::publish_metadata rebuilds from here.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "protocol/types.h"

namespace strata::broker {

// Kafka's internal topics: written only by their coordinators, marked internal in
// Metadata.
inline bool is_internal_topic(const std::string& name) {
  return name == "__consumer_offsets" || name == "__transaction_state";
}


struct TopicInfo {
  std::string name;
  protocol::Uuid id;
  int32_t partitions = 1;
  std::map<std::string, std::string> configs;  // overrides only
};

// A new random topic id (version 4 UUID, as Java's randomUUID).
protocol::Uuid new_topic_id();

class Topics {
 public:
  // Reads the file if it exists.
  Result<void, std::string> load(const std::string& path);
  std::optional<TopicInfo> get(const std::string& name) const;
  std::optional<TopicInfo> get(const protocol::Uuid& id) const;
  std::vector<TopicInfo> all() const;
  // Adds a topic with id `id` (fails if it exists); persists.
  Result<TopicInfo, std::string> add(const std::string& name, const protocol::Uuid& id,
                                     int32_t partitions, std::map<std::string, std::string> configs);
  Result<void, std::string> remove(const std::string& name);
  Result<void, std::string> set_partitions(const std::string& name, int32_t partitions);
  Result<void, std::string> set_configs(const std::string& name,
                                        std::map<std::string, std::string> configs);

 private:
  Result<void, std::string> save_locked() const;
  mutable std::mutex mu_;
  std::string path_;
  std::map<std::string, TopicInfo> topics_;
};

}  // namespace strata::broker

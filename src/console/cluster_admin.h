// The console's writes, as Kafka's admin client makes them: CreateTopics, DeleteTopics,
// CreatePartitions and IncrementalAlterConfigs sent to the broker it was given (Strata
// applies them cluster-wide), DeleteGroups and OffsetCommit (an offset reset) sent to the
// group's coordinator. Each returns nothing or the Kafka error's name and message.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "console/cluster_reader.h"

namespace strata::console {

using Done = Result<void, std::string>;

struct NewTopic {
  std::string name;
  int32_t partitions = -1;          // -1: the broker's num.partitions
  int16_t replication_factor = -1;  // -1: the broker's default.replication.factor
  std::map<std::string, std::string> configs;
};

Done create_topic(ClusterReader& c, const NewTopic& topic);
Done delete_topic(ClusterReader& c, const std::string& name);
// Grows `name` to `count` partitions.
Done add_partitions(ClusterReader& c, const std::string& name, int32_t count);
// Sets a topic config, or removes its override when `value` is nullopt.
Done alter_topic_config(ClusterReader& c, const std::string& name, const std::string& key,
                        const std::optional<std::string>& value);
Done delete_group(ClusterReader& c, const std::string& group);
// Commits `offsets` for `group` (which must have no members, as kafka-consumer-groups.sh
// --reset-offsets requires).
Done commit_offsets(ClusterReader& c, const std::string& group, const std::vector<GroupOffset>& offsets);

}  // namespace strata::console

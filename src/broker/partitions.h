// Looking up (and auto-creating) the partitions a request names, on behalf of handlers.
#pragma once

#include <optional>
#include <string>

#include "broker/broker.h"
#include "storage/checkpoint.h"

namespace strata::broker {

struct PartitionRef {
  storage::TopicPartition tp;
  storage::Log* log = nullptr;
  size_t shard = 0;
};

// The log of `topic`/`partition`, creating the topic first when `auto_create` and the
// broker allows it. On failure, the Kafka error to answer with.
struct Lookup {
  std::optional<PartitionRef> ref;
  int16_t error = 0;
};
Lookup find_partition(Broker& broker, const std::string& topic, int32_t partition,
                      bool auto_create);

}  // namespace strata::broker

#include "broker/partitions.h"

#include "broker/errors.h"

namespace strata::broker {

Lookup find_partition(Broker& broker, const std::string& topic, int32_t partition,
                      bool auto_create) {
  Lookup out;
  auto info = broker.topics().get(topic);
  if (!info && auto_create && broker.config().auto_create_topics_enable) {
    if (!storage::valid_topic_name(topic)) {
      out.error = kafka_error::kInvalidTopic;
      return out;
    }
    auto created = broker.create_topic(topic, broker.config().num_partitions, {}, false);
    if (created) {
      info = *created;
    } else {
      info = broker.topics().get(topic);  // created concurrently by another request
    }
  }
  if (!info || partition < 0 || partition >= info->partitions) {
    out.error = kafka_error::kUnknownTopicOrPartition;
    return out;
  }
  storage::TopicPartition tp{topic, PartitionId(partition)};
  storage::Log* log = broker.logs().get(tp);
  if (log == nullptr) {
    out.error = kafka_error::kUnknownTopicOrPartition;
    return out;
  }
  out.ref = PartitionRef{tp, log, broker.owner_shard(tp)};
  return out;
}

}  // namespace strata::broker

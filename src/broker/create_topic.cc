// Topic creation and deletion shared by CreateTopics, DeleteTopics and auto-creation.
#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/errors.h"
#include "storage/checkpoint.h"

namespace strata::broker {

Result<TopicInfo, std::pair<int16_t, std::string>> Broker::create_topic(
    const std::string& name, int32_t partitions, const std::map<std::string, std::string>& configs,
    bool validate_only) {
  using Err = std::pair<int16_t, std::string>;
  if (!storage::valid_topic_name(name)) {
    return fail(Err{kafka_error::kInvalidTopic, "Topic name \"" + name + "\" is illegal"});
  }
  if (topics_.get(name)) {
    return fail(Err{kafka_error::kTopicAlreadyExists, "Topic '" + name + "' already exists."});
  }
  if (partitions <= 0) {
    return fail(Err{kafka_error::kInvalidPartitions, "Number of partitions must be larger than 0."});
  }
  storage::LogConfig check = config_.log_defaults;
  if (auto r = check.apply(configs); !r) return fail(Err{kafka_error::kInvalidConfig, r.error()});
  if (validate_only) return TopicInfo{name, {}, partitions, configs};
  auto added = topics_.add(name, partitions, configs);
  if (!added) return fail(Err{kafka_error::kTopicAlreadyExists, added.error()});
  for (int32_t p = 0; p < partitions; ++p) {
    auto log = logs_->create({name, PartitionId(p)}, check, now_ms());
    if (!log) return fail(Err{kafka_error::kKafkaStorageError, log.error().message()});
  }
  spdlog::info("created topic {} with {} partitions", name, partitions);
  return *added;
}

}  // namespace strata::broker

// What replay has seen of one __consumer_offsets partition so far. Private to
// src/group (coordinator.cc, coordinator_txn.cc).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "group/coordinator.h"

namespace strata::group {

// What replay has seen of one partition so far: the last value of every key.
struct GroupCoordinator::Loading {
  std::map<std::string, std::optional<GroupValue>> groups;  // nullopt: tombstoned
  std::map<std::string, std::map<TopicPartitionKey, CommittedOffset>> offsets;
  // Transactional commits not yet ended: producer id -> group -> offsets.
  std::map<int64_t, std::map<std::string, std::map<TopicPartitionKey, CommittedOffset>>> pending;
  // Consumer-protocol groups: the last value of each of their keys.
  struct Consumer {
    std::optional<ConsumerGroupMetadataValue> metadata;
    std::optional<int32_t> assignment_epoch;
    std::map<std::string, ConsumerMemberValue> members;
    std::map<std::string, TargetMemberValue> targets;
    std::map<std::string, CurrentAssignmentValue> current;
    std::map<std::string, RegexValue> regexes;
  };
  std::map<std::string, Consumer> consumer;
};

}  // namespace strata::group

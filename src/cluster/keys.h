// The cluster's keys in etcd and their JSON values, as docs/formats/etcd.md lays them
// out (Kafka's ZooKeeper layout under the chroot of etcd.connect). Pure functions: the
// decoders are fuzzed (fuzz/fuzz_etcd_json.cc) and read whatever another broker, an
// older Strata or an operator with etcdctl may have written, so every field is checked.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace strata::cluster {

// Key names under one root (the chroot: "" or "/name").
class Keys {
 public:
  explicit Keys(std::string chroot) : root_(std::move(chroot)) {}
  const std::string& root() const { return root_; }
  // Every key of the cluster: the prefix the brokers read and watch.
  std::string all() const { return root_ + "/"; }
  std::string cluster_id() const { return root_ + "/cluster/id"; }
  std::string brokers() const { return root_ + "/brokers/ids/"; }
  std::string broker(int32_t node_id) const { return brokers() + std::to_string(node_id); }
  std::string controller() const { return root_ + "/controller"; }
  std::string topics() const { return root_ + "/brokers/topics/"; }
  std::string topic(std::string_view name) const { return topics() + std::string(name); }
  std::string partition_state(std::string_view topic, int32_t p) const {
    return topic_sub(topic) + "partitions/" + std::to_string(p) + "/state";
  }
  // A topic's sub-keys (its partition states): the topic key plus '/'.
  std::string topic_sub(std::string_view name) const { return topic(name) + "/"; }
  std::string topic_configs() const { return root_ + "/config/topics/"; }
  std::string topic_config(std::string_view name) const { return topic_configs() + std::string(name); }
  std::string producer_id_block() const { return root_ + "/latest_producer_id_block"; }
  // Dynamic broker configs (Kafka's /config/brokers/<id> and /config/brokers/<default>).
  std::string broker_configs() const { return root_ + "/config/brokers/"; }
  std::string broker_config(std::string_view entity) const { return broker_configs() + std::string(entity); }
  static constexpr std::string_view kDefaultEntity = "<default>";

  // What a key under all() names.
  struct Parsed {
    enum class Kind {
      kOther, kClusterId, kBroker, kController, kTopic, kPartitionState, kTopicConfig, kProducerIds, kBrokerConfig
    };
    Kind kind = Kind::kOther;
    int32_t node_id = -1;   // kBroker
    std::string topic;      // kTopic, kPartitionState, kTopicConfig
    int32_t partition = -1; // kPartitionState
    std::string entity;     // kBrokerConfig: "<default>" or a node id
  };
  Parsed parse(std::string_view key) const;

 private:
  std::string root_;
};

struct Endpoint {
  std::string listener = "PLAINTEXT";
  std::string host;
  int32_t port = 0;
};

// /brokers/ids/<id>
struct BrokerRegistration {
  int32_t node_id = -1;
  std::vector<Endpoint> endpoints;  // the first is the one clients are given
  std::optional<std::string> rack;
  int64_t timestamp_ms = 0;
  std::string directory_id;  // the log dir's directory.id
};
std::string encode_registration(const BrokerRegistration& r);
Result<BrokerRegistration, std::string> decode_registration(int32_t node_id, std::string_view json);

// /controller
struct ControllerRecord {
  int32_t broker_id = -1;
  int64_t broker_epoch = 0;
  int64_t timestamp_ms = 0;
};
std::string encode_controller(const ControllerRecord& c);
Result<ControllerRecord, std::string> decode_controller(std::string_view json);

// /cluster/id
std::string encode_cluster_id(std::string_view id);
Result<std::string, std::string> decode_cluster_id(std::string_view json);

// /brokers/topics/<topic>
struct TopicAssignment {
  std::string topic_id;                       // Kafka's Uuid, base64url (22 characters)
  std::vector<std::vector<int32_t>> replicas;  // per partition, preferred leader first
  // Partitions being reassigned (KIP-455): their `replicas` are the full set, the
  // target first; adding = target - origin, removing = origin - target.
  std::map<int32_t, std::vector<int32_t>> adding;
  std::map<int32_t, std::vector<int32_t>> removing;
  bool moving(int32_t p) const { return adding.count(p) != 0 || removing.count(p) != 0; }
};
std::string encode_assignment(const TopicAssignment& a);
Result<TopicAssignment, std::string> decode_assignment(std::string_view json);

// /brokers/topics/<topic>/partitions/<p>/state
struct PartitionState {
  int32_t leader = -1;
  int32_t leader_epoch = 0;
  std::vector<int32_t> isr;
  int32_t partition_epoch = 0;
  int64_t controller_epoch = 0;
  bool operator==(const PartitionState&) const = default;
};
std::string encode_partition_state(const PartitionState& s);
Result<PartitionState, std::string> decode_partition_state(std::string_view json);

// /latest_producer_id_block (Kafka's ProducerIdBlockZNode: ids as strings)
struct ProducerIdBlock {
  int32_t broker = -1;
  int64_t start = 0;
  int64_t end = -1;  // inclusive
};
std::string encode_producer_id_block(const ProducerIdBlock& b);
Result<ProducerIdBlock, std::string> decode_producer_id_block(std::string_view json);

// /config/topics/<topic> and /config/brokers/<entity>: {"version":1,"config":{K:V,...}}
std::string encode_topic_config(const std::map<std::string, std::string>& configs);
Result<std::map<std::string, std::string>, std::string> decode_topic_config(std::string_view json);

}  // namespace strata::cluster

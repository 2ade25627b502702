// A broker's view of the cluster: what its root in etcd held at one revision, decoded
// (keys.h). Immutable once built; ClusterNode publishes a new one per batch of watch
// events. A value that does not decode is logged and left out, as if the key were
// absent (corruption is data: one bad key must not stop a broker).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/etcd_json.h"
#include "cluster/keys.h"

namespace strata::cluster {

struct LiveBroker {
  BrokerRegistration registration;
  int64_t epoch = 0;  // the key's create_revision: Kafka's broker epoch
  int64_t lease = 0;
};

struct Controller {
  int32_t broker_id = -1;
  int64_t epoch = 0;  // the key's create_revision
};

struct TopicEntry {
  TopicAssignment assignment;
  int64_t create_revision = 0;  // the incarnation: a re-created topic has a new one
  int64_t mod_revision = 0;
};

struct StateEntry {
  PartitionState state;
  int64_t mod_revision = 0;
};

struct ConfigEntry {
  std::map<std::string, std::string> values;  // the topic's (or broker's) overrides
  int64_t mod_revision = 0;
};

struct ClusterView {
  int64_t revision = 0;  // etcd's revision this view is as of
  std::string cluster_id;
  std::map<int32_t, LiveBroker> brokers;
  std::optional<Controller> controller;
  std::map<std::string, TopicEntry> topics;
  std::map<std::pair<std::string, int32_t>, StateEntry> states;
  std::map<std::string, ConfigEntry> configs;
  std::map<std::string, ConfigEntry> broker_configs;  // by entity: "<default>" or a node id
  // ACL keys (/kafka-acl/..., /kafka-acl-extended/..., below the root) and their values,
  // as written (security/acl.h decodes them).
  std::map<std::string, std::string> acls;

  bool alive(int32_t node) const { return brokers.count(node) != 0; }
  const StateEntry* state(const std::string& topic, int32_t p) const {
    auto it = states.find({topic, p});
    return it == states.end() ? nullptr : &it->second;
  }
};

// Applies keys and deletions to a view.
class ViewBuilder {
 public:
  explicit ViewBuilder(const Keys& keys) : keys_(keys) {}
  void put(ClusterView& v, const KeyValue& kv) const;
  void erase(ClusterView& v, const std::string& key) const;
  void apply(ClusterView& v, const WatchMessage& m) const;
  std::optional<std::string> acl_key(const std::string& key) const;

 private:
  const Keys& keys_;
};

}  // namespace strata::cluster

#include "cluster/view.h"

#include <spdlog/spdlog.h>

#include "common/log_limit.h"

namespace strata::cluster {

namespace {

// A key that keeps failing to decode is reported, not repeated at every event.
void skipped(const std::string& key, const std::string& why) {
  static LogLimit limit("etcd key ignored");
  limit.warn("etcd key {} ignored: {}", key, why);
}

}  // namespace

void ViewBuilder::put(ClusterView& v, const KeyValue& kv) const {
  const Keys::Parsed p = keys_.parse(kv.key);
  using Kind = Keys::Parsed::Kind;
  switch (p.kind) {
    case Kind::kClusterId: {
      auto id = decode_cluster_id(kv.value);
      if (!id) return skipped(kv.key, id.error());
      v.cluster_id = std::move(*id);
      return;
    }
    case Kind::kBroker: {
      auto r = decode_registration(p.node_id, kv.value);
      if (!r) return skipped(kv.key, r.error());
      v.brokers[p.node_id] = LiveBroker{std::move(*r), kv.create_revision, kv.lease};
      return;
    }
    case Kind::kController: {
      auto c = decode_controller(kv.value);
      if (!c) return skipped(kv.key, c.error());
      v.controller = Controller{c->broker_id, kv.create_revision};
      return;
    }
    case Kind::kTopic: {
      auto a = decode_assignment(kv.value);
      if (!a) return skipped(kv.key, a.error());
      v.topics[p.topic] = TopicEntry{std::move(*a), kv.create_revision, kv.mod_revision};
      return;
    }
    case Kind::kPartitionState: {
      auto s = decode_partition_state(kv.value);
      if (!s) return skipped(kv.key, s.error());
      v.states[{p.topic, p.partition}] = StateEntry{std::move(*s), kv.mod_revision};
      return;
    }
    case Kind::kTopicConfig: {
      auto c = decode_topic_config(kv.value);
      if (!c) return skipped(kv.key, c.error());
      v.configs[p.topic] = ConfigEntry{std::move(*c), kv.mod_revision};
      return;
    }
    case Kind::kBrokerConfig: {
      auto c = decode_topic_config(kv.value);
      if (!c) return skipped(kv.key, c.error());
      v.broker_configs[p.entity] = ConfigEntry{std::move(*c), kv.mod_revision};
      return;
    }
    case Kind::kProducerIds:
      return;
    case Kind::kOther:
      if (auto acl = acl_key(kv.key)) v.acls[*acl] = kv.value;
      return;
  }
}

// A key under the root's ACL prefixes: the part below the root.
std::optional<std::string> ViewBuilder::acl_key(const std::string& key) const {
  const std::string& root = keys_.root();
  if (!key.starts_with(root)) return std::nullopt;
  std::string rest = key.substr(root.size());
  if (rest.starts_with("/kafka-acl/") || rest.starts_with("/kafka-acl-extended/")) return rest;
  return std::nullopt;
}

void ViewBuilder::erase(ClusterView& v, const std::string& key) const {
  const Keys::Parsed p = keys_.parse(key);
  using Kind = Keys::Parsed::Kind;
  switch (p.kind) {
    case Kind::kClusterId: v.cluster_id.clear(); return;
    case Kind::kBroker: v.brokers.erase(p.node_id); return;
    case Kind::kController: v.controller.reset(); return;
    case Kind::kTopic: v.topics.erase(p.topic); return;
    case Kind::kPartitionState: v.states.erase({p.topic, p.partition}); return;
    case Kind::kTopicConfig: v.configs.erase(p.topic); return;
    case Kind::kBrokerConfig: v.broker_configs.erase(p.entity); return;
    case Kind::kProducerIds:
      return;
    case Kind::kOther:
      if (auto acl = acl_key(key)) v.acls.erase(*acl);
      return;
  }
}

void ViewBuilder::apply(ClusterView& v, const WatchMessage& m) const {
  for (const WatchEvent& e : m.events) {
    if (e.is_delete) {
      erase(v, e.kv.key);
    } else {
      put(v, e.kv);
    }
  }
  if (m.revision > v.revision) v.revision = m.revision;
}

}  // namespace strata::cluster

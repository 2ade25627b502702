// The broker as a member of a cluster on etcd (src/cluster): the cluster id before the
// log dir is opened, the registration once the listener is bound, and every view the
// cluster node publishes turned into the shards' metadata snapshot.
#include <spdlog/spdlog.h>

#include <cassert>

#include "broker/broker.h"
#include "broker/authorizer.h"
#include "broker/replica_fetcher.h"
#include "client/peer_pool.h"
#include "cluster/node.h"
#include "storage/partition_metadata.h"

namespace strata::broker {

namespace {

std::shared_ptr<const ClusterMeta> meta_of(const cluster::ClusterView& v, const std::string& fallback_id) {
  auto m = std::make_shared<ClusterMeta>();
  m->cluster_id = v.cluster_id.empty() ? fallback_id : v.cluster_id;
  m->controller_id = v.controller ? v.controller->broker_id : -1;
  for (const auto& [id, b] : v.brokers) {
    const auto& e = b.registration.endpoints.front();  // decode_registration: never empty
    BrokerMeta meta{id, e.host, e.port, b.registration.rack, {}};
    for (const auto& x : b.registration.endpoints) meta.endpoints.push_back({x.listener, x.host, x.port});
    m->brokers.push_back(std::move(meta));
  }
  return m;
}

}  // namespace

// Reads (or, first of all brokers, creates) the cluster's id, which the log dir must carry.
Result<std::string, std::string> cluster_id_from_etcd(const BrokerConfig& config) {
  auto connect = cluster::parse_etcd_connect(config.etcd_connect);
  if (!connect) return fail(connect.error());
  const auto timeout = std::chrono::milliseconds(config.etcd_connection_timeout_ms);
  cluster::EtcdClient etcd({connect->endpoints, std::min(timeout, std::chrono::milliseconds(2000)), timeout});
  return cluster::fetch_cluster_id(etcd, cluster::Keys(connect->chroot), storage::uuid_to_base64(new_topic_id()));
}

Result<void, std::string> Broker::join_cluster() {
  auto connect = cluster::parse_etcd_connect(config_.etcd_connect);
  if (!connect) return fail(connect.error());
  cluster::NodeOptions o;
  o.connect = *connect;
  o.node_id = config_.node_id;
  if (!config_.broker_rack.empty()) o.rack = config_.broker_rack;
  o.endpoints = advertised_endpoints();
  o.directory_id = logs_->directory_id();
  o.session_timeout = std::chrono::milliseconds(config_.etcd_session_timeout_ms);
  o.request_timeout = std::chrono::milliseconds(config_.etcd_connection_timeout_ms);
  o.unclean_election = [fallback = config_.log_defaults.unclean_leader_election_enable](
                           const std::map<std::string, std::string>& overrides) {
    auto it = overrides.find("unclean.leader.election.enable");
    if (it == overrides.end()) return fallback;
    storage::LogConfig c;  // the override was validated when it was written
    return c.apply({*it}) && c.unclean_leader_election_enable;
  };
  cluster_ = std::make_unique<cluster::ClusterNode>(std::move(o));
  client::PeerPoolConfig peers;
  peers.connect_timeout_ms = config_.socket_connection_setup_timeout_ms;
  peers.request_timeout_ms = config_.request_timeout_ms;
  peers.client_id = "strata-broker-" + std::to_string(config_.node_id);
  peers.security = inter_broker_security_;
  peers_ = std::make_unique<client::PeerPool>(std::move(peers));
  fetchers_ = std::make_unique<ReplicaFetchers>(*this);
  producer_ids_.reserve_from([this] {
    return cluster::allocate_producer_ids(cluster_->etcd(), cluster_->keys(), config_.node_id,
                                          ProducerIds::kBlockSize);
  });
  auto joined = cluster_->join([this](const std::shared_ptr<const cluster::ClusterView>& v) { on_cluster_view(v); });
  if (!joined) return joined;
  if (auto ids = producer_ids_.prefetch(); !ids) spdlog::warn("producer ids: {}", ids.error());
  fetchers_->update(*metadata());
  return {};
}

client::PeerPool& Broker::peers() {
  assert(peers_ != nullptr && "the inter-broker channel exists in a cluster only");
  return *peers_;
}

// On the cluster node's threads: the view is kept for publish_metadata (membership and
// partition states) and handed to sync_topics.
void Broker::on_cluster_view(const std::shared_ptr<const cluster::ClusterView>& view) {
  auto meta = meta_of(*view, logs_->cluster_id());
  dynamic_.update(config_.node_id, *view);
  if (authorizer_) authorizer_->on_view(view->acls);
  {
    std::lock_guard lock(publish_mu_);
    cluster_view_ = view;
    const ClusterMeta* old = cluster_meta_.get();
    const bool same = old && old->controller_id == meta->controller_id && old->cluster_id == meta->cluster_id &&
                      old->brokers.size() == meta->brokers.size() &&
                      std::equal(old->brokers.begin(), old->brokers.end(), meta->brokers.begin(),
                                 [](const BrokerMeta& a, const BrokerMeta& b) {
                                   return a.node_id == b.node_id && a.host == b.host && a.port == b.port &&
                                          a.rack == b.rack && a.endpoints.size() == b.endpoints.size() &&
                                          std::equal(a.endpoints.begin(), a.endpoints.end(), b.endpoints.begin(),
                                                     [](const auto& x, const auto& y) {
                                                       return x.listener == y.listener && x.host == y.host &&
                                                              x.port == y.port;
                                                     });
                                 });
    if (!same) cluster_meta_ = std::move(meta);
  }
  // Topics, partitions and leaders: applied on shard 0 (logs to make or remove), which
  // publishes the snapshot.
  schedule_sync();
}

// What this broker advertises, the inter-broker listener first (advertised.listeners, or
// each listener's own address and bound port).
std::vector<cluster::Endpoint> Broker::advertised_endpoints() const {
  std::vector<cluster::Endpoint> out;
  const SecurityConfig& security = config_.security;
  for (const ListenerSpec& l : security.listeners) {
    ListenerSpec a = security.advertised_for(l, port_of(l.name));
    if (l.name == security.inter_broker().name) {
      a.host = config_.advertised_host_or_listener();
      a.port = config_.advertised_port != 0 ? config_.advertised_port : port();
      out.insert(out.begin(), {a.name, a.host, int32_t(a.port)});
    } else {
      out.push_back({a.name, a.host, int32_t(a.port)});
    }
  }
  return out;
}

// The embedded single node: itself alone, its own controller.
void Broker::publish_single_node_meta() {
  auto m = std::make_shared<ClusterMeta>();
  m->cluster_id = logs_->cluster_id();
  m->controller_id = config_.node_id;
  BrokerMeta self{config_.node_id, "", 0,
                  config_.broker_rack.empty() ? std::nullopt : std::optional(config_.broker_rack), {}};
  for (const cluster::Endpoint& e : advertised_endpoints()) self.endpoints.push_back({e.listener, e.host, e.port});
  self.host = self.endpoints.front().host;
  self.port = self.endpoints.front().port;
  m->brokers.push_back(std::move(self));
  {
    std::lock_guard lock(publish_mu_);
    cluster_meta_ = std::move(m);
  }
  publish_metadata();
}

}  // namespace strata::broker

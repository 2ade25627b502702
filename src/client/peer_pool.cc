#include "client/peer_pool.h"

namespace strata::client {

PeerPool::PeerPool(PeerPoolConfig config) : config_(std::move(config)), threads_(config_.threads) {}

PeerPool::~PeerPool() { stop(); }

std::string PeerPool::key_of(const HostPort& at) { return at.host + ":" + std::to_string(at.port); }

ClientError PeerPool::stopped_error() {
  return ClientError{ClientError::Kind::kNetwork, "the inter-broker channel is stopped"};
}

PeerPool::Lease PeerPool::take(const HostPort& at) {
  const std::string key = key_of(at);
  {
    std::lock_guard lk(mu_);
    if (stopped_.load()) return {nullptr, stopped_error()};
    auto& idle = idle_[key];
    if (!idle.empty()) {
      Lease l{std::move(idle.back()), {}};
      idle.pop_back();
      busy_.insert(l.client.get());
      return l;
    }
  }
  // Connecting happens outside the lock: it may take connect_timeout_ms.
  auto connected = KafkaClient::connect(
      at, ConnectOptions{config_.connect_timeout_ms, config_.request_timeout_ms, config_.client_id, config_.security});
  if (!connected) return {nullptr, connected.error()};
  connects_.fetch_add(1);
  auto client = std::make_unique<KafkaClient>(std::move(*connected));
  std::lock_guard lk(mu_);
  if (stopped_.load()) return {nullptr, stopped_error()};
  busy_.insert(client.get());
  return {std::move(client), {}};
}

void PeerPool::give_back(const HostPort& at, std::unique_ptr<KafkaClient> client, bool healthy) {
  std::lock_guard lk(mu_);
  busy_.erase(client.get());
  if (!healthy || stopped_.load()) return;
  auto& idle = idle_[key_of(at)];
  if (idle.size() < config_.idle_per_peer) idle.push_back(std::move(client));
}

void PeerPool::stop() {
  {
    std::lock_guard lk(mu_);
    if (stopped_.exchange(true)) return;
    for (KafkaClient* c : busy_) c->abort();
    idle_.clear();
  }
  threads_.join();
}

}  // namespace strata::client

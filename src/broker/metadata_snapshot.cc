#include "broker/metadata_snapshot.h"

#include "common/shard.h"

namespace strata::broker {

MetadataSnapshot::MetadataSnapshot(uint64_t version,
                                   std::vector<std::shared_ptr<const TopicMeta>> topics,
                                   std::shared_ptr<const ClusterMeta> cluster)
    : version_(version),
      cluster_(cluster ? std::move(cluster) : std::make_shared<const ClusterMeta>()),
      sorted_(std::move(topics)) {
  by_name_.reserve(sorted_.size());
  by_id_.reserve(sorted_.size());
  for (const auto& t : sorted_) {
    by_name_.emplace(t->name, t.get());
    if (!t->id.is_zero()) by_id_.emplace(t->id, t.get());
  }
}

const TopicMeta* MetadataSnapshot::topic(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const TopicMeta* MetadataSnapshot::topic(const Uuid& id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

namespace {

std::atomic<uint64_t> g_next_publisher_id{1};

struct ThreadCache {
  uint64_t publisher = 0;
  uint64_t version = 0;
  std::shared_ptr<const MetadataSnapshot> snapshot;
};
thread_local ThreadCache t_cache;

}  // namespace

MetadataPublisher::MetadataPublisher()
    : id_(g_next_publisher_id.fetch_add(1)),
      current_(std::make_shared<MetadataSnapshot>(0, std::vector<std::shared_ptr<const TopicMeta>>{})) {}

std::shared_ptr<const MetadataSnapshot> MetadataPublisher::current() const {
  ThreadCache& c = t_cache;
  if (c.publisher == id_ && c.version == version_.load(std::memory_order_acquire)) {
    return c.snapshot;
  }
  std::lock_guard lock(mu_);
  c.publisher = id_;
  c.snapshot = current_;
  c.version = current_->version();
  return c.snapshot;
}

void MetadataPublisher::publish(std::shared_ptr<const MetadataSnapshot> next) {
  std::lock_guard lock(mu_);
  STRATA_ASSERT(next->version() > current_->version());
  current_ = std::move(next);
  version_.store(current_->version(), std::memory_order_release);
}

}  // namespace strata::broker

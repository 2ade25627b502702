// The group coordinator's view of the cluster's topics (group::TopicView) over one
// metadata snapshot, for consumer-protocol groups and the classic members they host.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "broker/metadata_snapshot.h"
#include "group/consumer_api.h"

namespace strata::broker {

// The coordinator's view of the topics: one metadata snapshot, less the topics the
// requesting principal may not describe (so a regex resolves only to topics the member
// could see, as Kafka filters its resolution).
class SnapshotTopics final : public group::TopicView {
 public:
  SnapshotTopics(std::shared_ptr<const MetadataSnapshot> snapshot, std::function<bool(const std::string&)> visible)
      : snapshot_(std::move(snapshot)), visible_(std::move(visible)) {}
  std::optional<group::TopicInfo> find(const std::string& name) const override {
    return info(snapshot_->topic(name));
  }
  std::optional<group::TopicInfo> find(const Uuid& id) const override { return info(snapshot_->topic(id)); }
  void each(const std::function<void(const group::TopicInfo&)>& f) const override {
    for (const auto& t : snapshot_->topics()) {
      if (t->internal || !visible_(t->name)) continue;
      f(group::TopicInfo{t->id, t->name, t->partition_count()});
    }
  }

 private:
  static std::optional<group::TopicInfo> info(const TopicMeta* t) {
    if (t == nullptr) return std::nullopt;
    return group::TopicInfo{t->id, t->name, t->partition_count()};
  }
  std::shared_ptr<const MetadataSnapshot> snapshot_;
  std::function<bool(const std::string&)> visible_;
};

}  // namespace strata::broker

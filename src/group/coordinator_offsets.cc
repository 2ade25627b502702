// OffsetCommit, OffsetFetch, OffsetDelete and offset retention.
#include <spdlog/spdlog.h>

#include "group/coordinator.h"
#include "group/errors.h"

namespace strata::group {

// Kafka's classic checks of a commit: a static member replaced by a newer one, a member
// unknown or of another generation, a generation whose assignment is not synced yet; a
// "simple" commit (generation -1 to an empty group) passes.
KafkaError GroupCoordinator::check_classic_commit(const GroupPtr& g, const MemberRef& member) {
  if (g->is_static_member_fenced(member.group_instance_id, member.member_id)) return errc::kFencedInstanceId;
  const bool simple = member.generation < 0 && g->state == GroupState::kEmpty;
  if (simple) return errc::kNone;
  Member* m = g->find(member.member_id);
  if (m == nullptr) return errc::kUnknownMemberId;
  if (member.generation != g->generation) return errc::kIllegalGeneration;
  // The member has the new generation but the leader has not synced yet.
  if (g->state == GroupState::kCompletingRebalance) return errc::kRebalanceInProgress;
  touch(*m);
  arm(g);
  return errc::kNone;
}

void GroupCoordinator::commit(const MemberRef& member, std::vector<CommitPartition> partitions,
                              std::function<void(std::vector<KafkaError>)> done) {
  auto all = [&](KafkaError e) { done(std::vector<KafkaError>(partitions.size(), e)); };
  GroupPtr g = find(member.group_id);
  if (!g) {
    // Only a group not managed by Kafka (generation -1, "simple" consumers) may start
    // by committing; anything else is a request from a gone generation (OffsetCommit
    // v9+: from a group that does not exist).
    if (member.generation >= 0) return all(member.epoch_aware ? errc::kGroupIdNotFound : errc::kIllegalGeneration);
    g = get_or_create(member.group_id);
  }
  if (g->state == GroupState::kDead) return all(errc::kCoordinatorNotAvailable);
  if (g->consumer) {
    if (const KafkaError e = check_consumer_commit(*g, member); e != errc::kNone) return all(e);
  } else if (const KafkaError e = check_classic_commit(g, member); e != errc::kNone) {
    return all(e);
  }
  std::vector<KafkaError> errors(partitions.size(), errc::kNone);
  std::vector<OffsetsLog::Record> records;
  std::vector<size_t> written;
  const int64_t now = wall_ms();
  for (size_t i = 0; i < partitions.size(); ++i) {
    const CommitPartition& p = partitions[i];
    if (p.metadata.size() > size_t(config_.offset_metadata_max_bytes)) {
      errors[i] = errc::kOffsetMetadataTooLarge;
      continue;
    }
    OffsetValue v{p.offset, p.leader_epoch, p.metadata, now, p.expire_timestamp};
    records.push_back({encode_key(OffsetKey{g->id, p.topic, p.partition}), encode_value(v)});
    written.push_back(i);
  }
  if (records.empty()) return done(std::move(errors));
  log_.append(g->partition, std::move(records),
              [g, now, errors = std::move(errors), written = std::move(written),
               partitions = std::move(partitions), done = std::move(done)](KafkaError error) mutable {
                const KafkaError e = commit_store_error(error);
                for (size_t i : written) {
                  errors[i] = e;
                  if (e != errc::kNone) continue;
                  const CommitPartition& p = partitions[i];
                  g->offsets[{p.topic, p.partition}] =
                      CommittedOffset{p.offset, p.leader_epoch, p.metadata, now, p.expire_timestamp};
                }
                done(std::move(errors));
              });
}

std::vector<FetchedOffset> GroupCoordinator::fetch_offsets(
    const std::string& group_id,
    const std::optional<std::vector<std::pair<std::string, std::vector<int32_t>>>>& which,
    bool require_stable) const {
  std::vector<FetchedOffset> out;
  GroupPtr g = find(group_id);
  auto lookup = [&](const std::string& topic, int32_t partition) {
    FetchedOffset f{topic, partition, -1, -1, "", errc::kNone};
    if (g && require_stable && g->has_pending_txn_offset({topic, partition})) {
      f.error = errc::kUnstableOffsetCommit;
      return f;
    }
    if (g) {
      auto it = g->offsets.find({topic, partition});
      if (it != g->offsets.end()) {
        f.offset = it->second.offset;
        f.leader_epoch = it->second.leader_epoch;
        f.metadata = it->second.metadata;
      }
    }
    return f;
  };
  if (which) {
    for (const auto& [topic, parts] : *which) {
      for (int32_t p : parts) out.push_back(lookup(topic, p));
    }
  } else if (g) {
    for (const auto& [tp, o] : g->offsets) out.push_back(lookup(tp.first, tp.second));
  }
  return out;
}

void GroupCoordinator::delete_offsets(const std::string& group_id,
                                      std::vector<std::pair<std::string, int32_t>> partitions,
                                      std::function<void(KafkaError, std::vector<KafkaError>)> done) {
  GroupPtr g = find(group_id);
  if (!g || g->state == GroupState::kDead) return done(errc::kGroupIdNotFound, {});
  // A consumer group with members keeps the offsets of topics it subscribes to (all
  // topics, when the subscriptions cannot be read).
  std::optional<std::set<std::string>> subscribed;
  const bool active = g->state != GroupState::kEmpty;
  if (active) subscribed = g->subscribed_topics();
  std::vector<KafkaError> errors(partitions.size(), errc::kNone);
  std::vector<OffsetsLog::Record> records;
  std::vector<TopicPartitionKey> removed;
  for (size_t i = 0; i < partitions.size(); ++i) {
    const auto& [topic, partition] = partitions[i];
    if (active && (!subscribed || subscribed->count(topic) != 0)) {
      errors[i] = errc::kGroupSubscribedToTopic;
      continue;
    }
    if (g->offsets.count({topic, partition}) == 0) continue;
    records.push_back({encode_key(OffsetKey{g->id, topic, partition}), std::nullopt});
    removed.emplace_back(topic, partition);
  }
  if (records.empty()) return done(errc::kNone, std::move(errors));
  log_.append(g->partition, std::move(records),
              [g, removed = std::move(removed), errors = std::move(errors),
               done = std::move(done)](KafkaError error) mutable {
                if (error != errc::kNone) return done(commit_store_error(error), {});
                for (const auto& tp : removed) g->offsets.erase(tp);
                done(errc::kNone, std::move(errors));
              });
}

// Kafka's rules (GroupMetadata.removeExpiredOffsets): an empty group's offsets expire
// offsets.retention.minutes after the group became empty; a stable consumer group's
// offsets of topics it no longer subscribes to expire that long after their commit; a
// group used only for offsets expires them that long after their commit. Commits
// that carried an explicit expiry (v1) use it instead.
void GroupCoordinator::expire(int32_t partition, int64_t now_ms) {
  const int64_t retention = config_.offsets_retention_minutes * 60 * 1000;
  std::vector<GroupPtr> groups;
  for (const auto& [id, g] : groups_[size_t(partition)]) groups.push_back(g);
  for (const GroupPtr& g : groups) {
    std::optional<std::set<std::string>> keep;
    enum { kNo, kSinceEmpty, kSinceCommit } rule = kNo;
    if (g->protocol_type && !g->protocol_type->empty() && g->state == GroupState::kEmpty) {
      rule = kSinceEmpty;
    } else if (g->protocol_type == "consumer" && g->state == GroupState::kStable) {
      keep = g->subscribed_topics();
      if (keep) rule = kSinceCommit;
    } else if (!g->protocol_type || g->protocol_type->empty()) {
      rule = kSinceCommit;
    }
    std::vector<TopicPartitionKey> expired;
    if (rule != kNo) {
      for (const auto& [tp, o] : g->offsets) {
        if (keep && keep->count(tp.first) != 0) continue;
        const int64_t base = rule == kSinceEmpty && g->state_timestamp >= 0 ? g->state_timestamp
                                                                            : o.commit_timestamp;
        const bool due = o.expire_timestamp >= 0 ? now_ms >= o.expire_timestamp
                                                 : now_ms - base >= retention;
        if (due) expired.push_back(tp);
      }
    }
    // An empty group goes with its last offset, unless a member is between the two
    // joins of KIP-394.
    const bool remove_group = g->state == GroupState::kEmpty && g->pending_members.empty() &&
                              g->pending_txn_offsets.empty() &&
                              g->offsets.size() == expired.size();
    if (expired.empty() && !remove_group) continue;
    std::vector<OffsetsLog::Record> records;
    for (const auto& tp : expired) {
      records.push_back({encode_key(OffsetKey{g->id, tp.first, tp.second}), std::nullopt});
      g->offsets.erase(tp);
    }
    if (remove_group) {
      if (g->consumer) {
        for (auto& r : consumer_tombstones(*g)) records.push_back(std::move(r));
      } else {
        records.push_back({encode_key(GroupKey{g->id}), std::nullopt});
      }
      transition(*g, GroupState::kDead);
      erase(*g);
    }
    spdlog::info("group {}: expired {} offsets{}", g->id, expired.size(),
                 remove_group ? "; group removed" : "");
    log_.append(partition, std::move(records), [](KafkaError) {});
  }
}

}  // namespace strata::group

// OffsetCommit, OffsetFetch and OffsetDelete: committed offsets of consumer groups,
// stored as records of __consumer_offsets by group::GroupCoordinator.
// Errors: UNKNOWN_TOPIC_OR_PARTITION (no such partition), OFFSET_METADATA_TOO_LARGE,
// ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, FENCED_INSTANCE_ID,
// GROUP_ID_NOT_FOUND, GROUP_SUBSCRIBED_TO_TOPIC, COORDINATOR_NOT_AVAILABLE;
// UNSTABLE_OFFSET_COMMIT (OffsetFetch v7+ require_stable, a transactional commit pending).
#include "broker/handlers/authorize.h"
#include "broker/handlers/group_common.h"

namespace strata::broker {

using namespace protocol;

asio::awaitable<OffsetCommitResponse> handle_offset_commit(Broker& broker, RequestContext& ctx,
                                                           OffsetCommitRequest& request) {
  OffsetCommitResponse r;
  const int16_t version = ctx.header.api_version;
  const bool coordinator = (co_await broker.ensure_offsets_topic());
  const KafkaError here = coordinator ? coordinator_error(broker, ctx, request.group_id) : KafkaError::kNone;
  // Kafka's checks: READ on the group, then READ on each topic.
  const bool group_ok = authorized(broker, ctx, AclOperation::kRead, ResourceType::kGroup, request.group_id);
  const int64_t now = now_ms();
  std::vector<group::CommitPartition> commits;
  std::vector<std::pair<size_t, size_t>> where;  // (topic, partition) slots in r
  for (auto& t : request.topics) {
    OffsetCommitResponse::Topic rt;
    rt.name = t.name;
    for (auto& p : t.partitions) {
      int16_t error = 0;
      if (!group_ok) {
        error = kafka_error::kGroupAuthorizationFailed;
      } else if (!authorized(broker, ctx, AclOperation::kRead, ResourceType::kTopic, t.name)) {
        error = kafka_error::kTopicAuthorizationFailed;
      } else if (!coordinator) {
        error = kafka_error::kCoordinatorNotAvailable;
      } else if (here != KafkaError::kNone) {
        error = code_of(here);
      } else if (!partition_exists(broker, t.name, p.partition_index)) {
        error = kafka_error::kUnknownTopicOrPartition;
      } else {
        group::CommitPartition c;
        c.topic = t.name;
        c.partition = p.partition_index;
        c.offset = p.committed_offset;
        c.leader_epoch = p.committed_leader_epoch;
        c.metadata = p.committed_metadata.value_or("");
        // v2-4 may ask for a retention of their own: Kafka's explicit expiry.
        if (version >= 2 && version <= 4 && request.retention_time_ms >= 0) {
          c.expire_timestamp = now + request.retention_time_ms;
        }
        commits.push_back(std::move(c));
        where.emplace_back(r.topics.size(), rt.partitions.size());
      }
      rt.partitions.push_back({p.partition_index, error});
    }
    r.topics.push_back(std::move(rt));
  }
  if (commits.empty()) co_return r;
  group::MemberRef member{request.group_id, request.member_id, request.group_instance_id,
                          version >= 1 ? request.generation_id_or_member_epoch : -1, version >= 9};
  group::GroupCoordinator& coord = broker.groups();
  std::vector<KafkaError> errors = co_await broker.on_shard_async<std::vector<KafkaError>>(
      broker.group_shard(request.group_id),
      [&coord, &member, &commits](std::function<void(std::vector<KafkaError>)> done) {
        coord.commit(member, std::move(commits), std::move(done));
      });
  for (size_t i = 0; i < where.size() && i < errors.size(); ++i) {
    r.topics[where[i].first].partitions[where[i].second].error_code = code_of(errors[i]);
  }
  co_return r;
}

namespace {

using Wanted = std::optional<std::vector<std::pair<std::string, std::vector<int32_t>>>>;

Wanted wanted_of(const std::optional<std::vector<OffsetFetchRequest::Topic>>& topics) {
  if (!topics) return std::nullopt;
  std::vector<std::pair<std::string, std::vector<int32_t>>> out;
  for (const auto& t : *topics) out.emplace_back(t.name, t.partition_indexes);
  return out;
}

asio::awaitable<std::vector<OffsetFetchResponse::Topic>> fetch_group(Broker& broker,
                                                                     const std::string& group_id,
                                                                     const Wanted& wanted,
                                                                     bool require_stable) {
  group::GroupCoordinator& coord = broker.groups();
  std::vector<group::FetchedOffset> got = co_await broker.on_shard(
      broker.group_shard(group_id), [&coord, &group_id, &wanted, require_stable] {
        return coord.fetch_offsets(group_id, wanted, require_stable);
      });
  std::vector<OffsetFetchResponse::Topic> topics;
  for (auto& f : got) {
    if (topics.empty() || topics.back().name != f.topic) topics.push_back({f.topic, {}});
    OffsetFetchResponse::Partition p;
    p.partition_index = f.partition;
    p.committed_offset = f.offset;
    p.committed_leader_epoch = f.leader_epoch;
    p.metadata = std::move(f.metadata);
    p.error_code = code_of(f.error);
    topics.back().partitions.push_back(std::move(p));
  }
  co_return topics;
}

// Kafka's topic check of OffsetFetch: DESCRIBE on each topic; named topics without it
// answer TOPIC_AUTHORIZATION_FAILED, and when all were asked for they are left out.
void authorize_topics(Broker& broker, const RequestContext& ctx, bool named,
                      std::vector<OffsetFetchResponse::Topic>& topics) {
  if (!broker.authorizer().enabled()) return;
  std::vector<OffsetFetchResponse::Topic> kept;
  for (auto& t : topics) {
    if (authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kTopic, t.name)) {
      kept.push_back(std::move(t));
      continue;
    }
    if (!named) continue;
    for (auto& p : t.partitions) {
      p.committed_offset = -1;
      p.committed_leader_epoch = -1;
      p.metadata = "";
      p.error_code = kafka_error::kTopicAuthorizationFailed;
    }
    kept.push_back(std::move(t));
  }
  topics = std::move(kept);
}

// A whole-request error. v0 and v1 have no field for it: as Kafka's getErrorResponse,
// every partition asked for carries it (a client of those versions otherwise sees no
// partitions and no error, and takes the group for one without offsets).
void fail_request(const OffsetFetchRequest& request, int16_t version, int16_t error,
                  OffsetFetchResponse& r) {
  r.error_code = error;
  if (version >= 2 || !request.topics) return;
  for (const auto& t : *request.topics) {
    OffsetFetchResponse::Topic rt;
    rt.name = t.name;
    for (int32_t index : t.partition_indexes) {
      OffsetFetchResponse::Partition p;
      p.partition_index = index;
      p.committed_offset = -1;
      p.committed_leader_epoch = -1;
      p.metadata = "";
      p.error_code = error;
      rt.partitions.push_back(std::move(p));
    }
    r.topics.push_back(std::move(rt));
  }
}

}  // namespace

asio::awaitable<OffsetFetchResponse> handle_offset_fetch(Broker& broker, RequestContext& ctx,
                                                         OffsetFetchRequest& request) {
  OffsetFetchResponse r;
  const bool coordinator = (co_await broker.ensure_offsets_topic());
  if (ctx.header.api_version >= 8) {
    for (const auto& g : request.groups) {
      OffsetFetchResponse::Group rg;
      rg.group_id = g.group_id;
      const KafkaError here = coordinator ? coordinator_error(broker, ctx, g.group_id) : KafkaError::kNone;
      if (!authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kGroup, g.group_id)) {
        rg.error_code = kafka_error::kGroupAuthorizationFailed;
      } else if (here != KafkaError::kNone) {
        rg.error_code = code_of(here);
      } else if (coordinator) {
        // v9+: a consumer-protocol member must be current (KIP-848).
        group::GroupCoordinator& coord = broker.groups();
        const KafkaError member = co_await broker.on_shard(broker.group_shard(g.group_id), [&coord, &g] {
          return coord.check_offset_fetch(g.group_id, g.member_id, g.member_epoch);
        });
        if (member != KafkaError::kNone) {
          rg.error_code = code_of(member);
          r.groups.push_back(std::move(rg));
          continue;
        }
        rg.topics = co_await fetch_group(broker, g.group_id, wanted_of(g.topics), request.require_stable);
        authorize_topics(broker, ctx, g.topics.has_value(), rg.topics);
      } else {
        rg.error_code = kafka_error::kCoordinatorNotAvailable;
      }
      r.groups.push_back(std::move(rg));
    }
    co_return r;
  }
  const int16_t version = ctx.header.api_version;
  if (!authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kGroup, request.group_id)) {
    fail_request(request, version, kafka_error::kGroupAuthorizationFailed, r);
    co_return r;
  }
  if (!coordinator) {
    fail_request(request, version, kafka_error::kCoordinatorNotAvailable, r);
    co_return r;
  }
  if (const KafkaError here = coordinator_error(broker, ctx, request.group_id); here != KafkaError::kNone) {
    fail_request(request, version, code_of(here), r);
    co_return r;
  }
  r.topics = co_await fetch_group(broker, request.group_id, wanted_of(request.topics),
                                request.require_stable);
  authorize_topics(broker, ctx, request.topics.has_value(), r.topics);
  co_return r;
}

asio::awaitable<OffsetDeleteResponse> handle_offset_delete(Broker& broker, RequestContext& ctx,
                                                           OffsetDeleteRequest& request) {
  OffsetDeleteResponse r;
  // Kafka's checks: DELETE on the group, READ on each topic.
  if (!authorized(broker, ctx, AclOperation::kDelete, ResourceType::kGroup, request.group_id)) {
    r.error_code = kafka_error::kGroupAuthorizationFailed;
    co_return r;
  }
  if (!(co_await broker.ensure_offsets_topic())) {
    r.error_code = kafka_error::kCoordinatorNotAvailable;
    co_return r;
  }
  std::vector<std::pair<std::string, int32_t>> partitions;
  std::vector<std::pair<size_t, size_t>> where;
  for (const auto& t : request.topics) {
    OffsetDeleteResponse::Topic rt;
    rt.name = t.name;
    for (const auto& p : t.partitions) {
      int16_t error = 0;
      if (!authorized(broker, ctx, AclOperation::kRead, ResourceType::kTopic, t.name)) {
        error = kafka_error::kTopicAuthorizationFailed;
      } else if (!partition_exists(broker, t.name, p.partition_index)) {
        error = kafka_error::kUnknownTopicOrPartition;
      } else {
        partitions.emplace_back(t.name, p.partition_index);
        where.emplace_back(r.topics.size(), rt.partitions.size());
      }
      rt.partitions.push_back({p.partition_index, error});
    }
    r.topics.push_back(std::move(rt));
  }
  using Answer = std::pair<KafkaError, std::vector<KafkaError>>;
  group::GroupCoordinator& coord = broker.groups();
  const std::string& id = request.group_id;
  Answer a = co_await broker.on_shard_async<Answer>(
      broker.group_shard(id), [&coord, &id, &partitions](std::function<void(Answer)> done) {
        coord.delete_offsets(id, std::move(partitions), [done](KafkaError e, std::vector<KafkaError> errors) {
          done(Answer{e, std::move(errors)});
        });
      });
  r.error_code = code_of(a.first);
  if (a.first != KafkaError::kNone) {
    r.topics.clear();
    co_return r;
  }
  for (size_t i = 0; i < where.size() && i < a.second.size(); ++i) {
    r.topics[where[i].first].partitions[where[i].second].error_code = code_of(a.second[i]);
  }
  co_return r;
}

}  // namespace strata::broker

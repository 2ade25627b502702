#include "broker/partitions.h"

#include "broker/handlers/authorize.h"
#include "broker/poll_until.h"

namespace strata::broker {
namespace {

// How long a request naming a topic the cluster has but this broker's view does not
// show yet waits for the view (it normally follows etcd within milliseconds).
constexpr std::chrono::milliseconds kViewCatchUp{5000};

}  // namespace

PartitionRef resolve_partition(const Broker& broker, const TopicMeta* topic, int32_t partition) {
  PartitionRef out;
  if (topic == nullptr || partition < 0 || partition >= topic->partition_count()) {
    out.error = kafka_error::kUnknownTopicOrPartition;
    if (topic != nullptr) out.tp.topic = topic->name;
    out.tp.partition = PartitionId(partition);
    return out;
  }
  out.tp = {topic->name, PartitionId(partition)};
  out.topic_id = topic->id;
  out.meta = topic;
  out.shard = broker.owner_shard(out.tp);
  // In a cluster only the leader serves a partition's data (no leader at all: the same
  // answer, and the client refreshes its metadata).
  if (topic->partitions[size_t(partition)].leader != broker.config().node_id) {
    out.error = kafka_error::kNotLeaderOrFollower;
  }
  return out;
}

PartitionRef resolve_partition(const Broker& broker, const MetadataSnapshot& snapshot,
                               const std::string& topic, int32_t partition) {
  PartitionRef out = resolve_partition(broker, snapshot.topic(topic), partition);
  out.tp.topic = topic;
  return out;
}

asio::awaitable<int16_t> auto_create(Broker& broker, RequestContext& ctx, const std::string& topic) {
  if (ctx.metadata->topic(topic) != nullptr) co_return kafka_error::kNone;
  if (!broker.config().auto_create_topics_enable) co_return kafka_error::kUnknownTopicOrPartition;
  if (!storage::valid_topic_name(topic)) co_return kafka_error::kInvalidTopic;
  // With an authorizer, creating needs CREATE on the cluster or the topic (Kafka's rule).
  if (!cluster_authorized(broker, ctx, AclOperation::kCreate) &&
      !authorized(broker, ctx, AclOperation::kCreate, ResourceType::kTopic, topic)) {
    co_return kafka_error::kUnknownTopicOrPartition;
  }
  const std::map<std::string, std::string> no_configs;
  auto created = co_await broker.create_topic(topic, broker.config().num_partitions, no_configs, false);
  // Created here or, meanwhile, by another request: either way the newest snapshot has it.
  ctx.metadata = broker.metadata();
  if (ctx.metadata->topic(topic) != nullptr) co_return kafka_error::kNone;
  // Created by another broker, which this one's view does not show yet (a cluster): the
  // request waits for the view, holding its connection's turn, then goes on. Answering
  // at once with a retriable error would let the connection's next request (pipelined,
  // and served once the view arrives) succeed first: an idempotent producer's first
  // batch to a partition is then lost, since the broker takes any sequence from a
  // producer it has no state for and librdkafka counts the failed earlier batch as
  // written once a later one is (its implicit ack). Past the wait: retriable, as Kafka
  // answers for a topic still being created.
  if (!created && created.error().first == kafka_error::kTopicAlreadyExists) {
    const bool seen = co_await poll_until([&broker, &topic] { return broker.metadata()->topic(topic) != nullptr; },
                                          kViewCatchUp);
    ctx.metadata = broker.metadata();
    co_return seen && ctx.metadata->topic(topic) != nullptr ? kafka_error::kNone : kafka_error::kLeaderNotAvailable;
  }
  co_return created ? kafka_error::kUnknownTopicOrPartition : created.error().first;
}

}  // namespace strata::broker

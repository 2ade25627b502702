// ListGroups, DescribeGroups and DeleteGroups.
// Errors: GROUP_ID_NOT_FOUND and NON_EMPTY_GROUP (DeleteGroups); an unknown group is
// described as Kafka does: state "Dead", no error. In a cluster each broker lists the
// groups it coordinates (the admin client asks every broker, as of Kafka) and answers
// NOT_COORDINATOR for a group it does not (DescribeGroups, DeleteGroups).
#include <algorithm>

#include "broker/handlers/authorize.h"
#include "broker/handlers/group_common.h"
#include "common/ascii.h"

namespace strata::broker {

using namespace protocol;

namespace {

bool wanted(const std::vector<std::string>& filter, const std::string& value) {
  if (filter.empty()) return true;
  return std::any_of(filter.begin(), filter.end(),
                     [&](const std::string& f) { return ascii_lower(f) == ascii_lower(value); });
}

}  // namespace

asio::awaitable<ListGroupsResponse> handle_list_groups(Broker& broker, RequestContext& ctx,
                                                       ListGroupsRequest& request) {
  ListGroupsResponse r;
  if (!broker.topics().get(group::kOffsetsTopic)) co_return r;  // no group ever existed
  const bool all_visible = cluster_authorized(broker, ctx, AclOperation::kDescribe);
  group::GroupCoordinator& coord = broker.groups();
  const MetadataSnapshot* snapshot = ctx.metadata.get();
  for (size_t s = 0; s < broker.shard_count(); ++s) {
    std::vector<group::GroupListing> listed = co_await broker.on_shard(s, [&broker, &coord, s, snapshot] {
      std::vector<group::GroupListing> out;
      const int32_t self = broker.config().node_id;
      for (int32_t p = 0; p < coord.partitions(); ++p) {
        if (broker.offsets_partition_shard(p) != s) continue;
        if (broker.in_cluster() && snapshot->leader(group::kOffsetsTopic, p) != self) continue;
        auto some = coord.list(p);
        out.insert(out.end(), some.begin(), some.end());
      }
      return out;
    });
    for (const auto& g : listed) {
      if (!wanted(request.states_filter, g.state) || !wanted(request.types_filter, g.type)) continue;
      // Kafka's check: DESCRIBE on the cluster lists every group, else DESCRIBE on each.
      if (!all_visible && !authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kGroup, g.group_id)) {
        continue;
      }
      r.groups.push_back({g.group_id, g.protocol_type, g.state, g.type});
    }
  }
  co_return r;
}

asio::awaitable<DescribeGroupsResponse> handle_describe_groups(Broker& broker, RequestContext& ctx,
                                                               DescribeGroupsRequest& request) {
  DescribeGroupsResponse r;
  // Describing creates nothing: without __consumer_offsets no group exists, and an
  // unknown group is described as Kafka does (Dead, no members, no error).
  const bool any_groups = broker.topics().get(group::kOffsetsTopic).has_value();
  group::GroupCoordinator& coord = broker.groups();
  for (const std::string& id : request.groups) {
    DescribeGroupsResponse::Group g;
    g.group_id = id;
    if (request.include_authorized_operations) {
      g.authorized_operations = authorized_operations(broker, ctx, ResourceType::kGroup, id);
    }
    // Kafka's check: DESCRIBE on the group.
    if (!authorized(broker, ctx, AclOperation::kDescribe, ResourceType::kGroup, id)) {
      g.error_code = kafka_error::kGroupAuthorizationFailed;
      g.authorized_operations = INT32_MIN;
      r.groups.push_back(std::move(g));
      continue;
    }
    if (!any_groups) {
      g.group_state = group::to_string(group::GroupState::kDead);
      r.groups.push_back(std::move(g));
      continue;
    }
    if (const KafkaError here = coordinator_error(broker, ctx, id); here != KafkaError::kNone) {
      g.error_code = code_of(here);
      r.groups.push_back(std::move(g));
      continue;
    }
    group::GroupDescription d =
        co_await broker.on_shard(broker.group_shard(id), [&coord, &id] { return coord.describe(id); });
    g.group_state = group::to_string(d.state);
    g.protocol_type = d.protocol_type;
    g.protocol_data = d.protocol_name;
    for (auto& m : d.members) {
      g.members.push_back({m.member_id, m.group_instance_id, m.client_id, m.client_host,
                           std::move(m.metadata), std::move(m.assignment)});
    }
    r.groups.push_back(std::move(g));
  }
  co_return r;
}

asio::awaitable<DeleteGroupsResponse> handle_delete_groups(Broker& broker, RequestContext& ctx,
                                                           DeleteGroupsRequest& request) {
  DeleteGroupsResponse r;
  const bool coordinator = broker.topics().get(group::kOffsetsTopic).has_value();
  group::GroupCoordinator& coord = broker.groups();
  for (const std::string& id : request.groups_names) {
    // Kafka's check: DELETE on the group.
    if (!authorized(broker, ctx, AclOperation::kDelete, ResourceType::kGroup, id)) {
      r.results.push_back({id, kafka_error::kGroupAuthorizationFailed});
      continue;
    }
    KafkaError error = KafkaError::kGroupIdNotFound;
    const KafkaError here = coordinator ? coordinator_error(broker, ctx, id) : KafkaError::kNone;
    if (here != KafkaError::kNone) {
      error = here;
    } else if (coordinator) {
      error = co_await broker.on_shard_async<KafkaError>(
          broker.group_shard(id), [&coord, &id](std::function<void(KafkaError)> done) {
            coord.delete_group(id, std::move(done));
          });
    }
    r.results.push_back({id, code_of(error)});
  }
  co_return r;
}

}  // namespace strata::broker

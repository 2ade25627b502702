#include "console/cluster_reader.h"

#include <fmt/format.h>

#include "common/kafka_errors.h"
#include "protocol/apis/describe_log_dirs.h"
#include "protocol/apis/find_coordinator.h"
#include "protocol/apis/list_groups.h"
#include "protocol/apis/list_offsets.h"
#include "protocol/apis/offset_fetch.h"

namespace strata::console {

using namespace strata::protocol;

namespace {

constexpr int64_t kEarliest = -2;  // ListOffsets' special timestamps
constexpr int64_t kLatest = -1;

std::string text(const client::ClientError& e) { return e.message; }

const MetadataResponse::Partition* find_partition(const MetadataResponse& m, const std::string& topic,
                                                  int32_t partition) {
  for (const auto& t : m.topics) {
    if (t.name != topic) continue;
    for (const auto& p : t.partitions) {
      if (p.partition_index == partition) return &p;
    }
  }
  return nullptr;
}

}  // namespace

std::string kafka_text(int16_t code, const std::optional<std::string>& message) {
  std::string out = client::kafka_error_name(code);
  if (message && !message->empty()) out += ": " + *message;
  return out;
}

Result<ClusterReader, client::ClientError> ClusterReader::connect(const std::string& bootstrap,
                                                                  const client::ConnectOptions& options) {
  auto at = client::parse_host_port(bootstrap);
  if (!at) return fail(client::ClientError{client::ClientError::Kind::kNetwork, at.error()});
  auto c = client::KafkaClient::connect(*at, options);
  if (!c) {
    return fail(client::ClientError{c.error().kind,
                                    fmt::format("cannot reach the cluster at {}: {}", bootstrap, text(c.error()))});
  }
  return ClusterReader(std::move(*c));
}

Result<MetadataResponse, std::string> ClusterReader::metadata(const std::vector<std::string>& topics) {
  MetadataRequest request;
  request.allow_auto_topic_creation = false;
  for (const auto& t : topics) request.topics->push_back({Uuid{}, t});
  auto r = bootstrap_.call<MetadataResponse>(request);
  if (!r) return fail(text(r.error()));
  return std::move(*r);
}

Result<MetadataResponse, std::string> ClusterReader::all_topics() {
  MetadataRequest request;
  request.allow_auto_topic_creation = false;
  request.topics.reset();  // every topic
  auto r = bootstrap_.call<MetadataResponse>(request);
  if (!r) return fail(text(r.error()));
  return std::move(*r);
}

Result<client::KafkaClient*, std::string> ClusterReader::at(const std::string& host, int32_t port) {
  auto key = std::make_pair(host, port);
  if (auto it = by_address_.find(key); it != by_address_.end()) return &it->second;
  if (auto it = unreachable_.find(key); it != unreachable_.end()) return fail(it->second);
  auto c = client::KafkaClient::connect({host, uint16_t(port)}, bootstrap_.options());
  if (!c) {
    std::string why = fmt::format("cannot reach {}:{}: {}", host, port, text(c.error()));
    unreachable_[key] = why;
    return fail(why);
  }
  return &by_address_.emplace(key, std::move(*c)).first->second;
}

Result<client::KafkaClient*, std::string> ClusterReader::broker(const MetadataResponse& m, int32_t node) {
  for (const auto& b : m.brokers) {
    if (b.node_id == node) return at(b.host, b.port);
  }
  return fail(fmt::format("broker {} is not live", node));
}

Result<client::KafkaClient*, std::string> ClusterReader::leader_of(const MetadataResponse& m, const std::string& topic,
                                                                   int32_t partition) {
  const MetadataResponse::Partition* p = find_partition(m, topic, partition);
  if (p == nullptr) return fail(fmt::format("no partition {}-{}", topic, partition));
  if (p->leader_id < 0) return fail(fmt::format("{}-{} has no leader", topic, partition));
  return broker(m, p->leader_id);
}

namespace {

using Partitions = std::vector<std::pair<std::string, int32_t>>;

// One ListOffsets of `timestamp` for `partitions` (all led by the broker `c` speaks to):
// each partition's offset, or its error.
std::map<std::pair<std::string, int32_t>, Result<int64_t, std::string>> list_offsets(
    client::KafkaClient& c, const Partitions& partitions, int64_t timestamp) {
  ListOffsetsRequest request;
  request.replica_id = -1;
  for (const auto& [topic, p] : partitions) {
    if (request.topics.empty() || request.topics.back().name != topic) request.topics.push_back({topic, {}});
    request.topics.back().partitions.push_back({p, -1, timestamp, 1});
  }
  std::map<std::pair<std::string, int32_t>, Result<int64_t, std::string>> out;
  auto r = c.call<ListOffsetsResponse>(request);
  for (const auto& tp : partitions) out.emplace(tp, fail(r ? std::string("no answer") : text(r.error())));
  if (!r) return out;
  for (const auto& t : r->topics) {
    for (const auto& p : t.partitions) {
      auto it = out.find({t.name, p.partition_index});
      if (it == out.end()) continue;
      if (p.error_code != 0) it->second = fail(kafka_text(p.error_code));
      else it->second = p.offset;
    }
  }
  return out;
}

}  // namespace

std::map<std::pair<std::string, int32_t>, Watermarks> ClusterReader::watermarks(const MetadataResponse& m,
                                                                                std::optional<int32_t> only) {
  std::map<std::pair<std::string, int32_t>, Watermarks> out;
  std::map<int32_t, Partitions> by_leader;
  for (const auto& t : m.topics) {
    if (!t.name || t.error_code != 0) continue;
    for (const auto& p : t.partitions) {
      if (only && p.partition_index != *only) continue;
      if (p.leader_id < 0) {
        out[{*t.name, p.partition_index}].error = fmt::format("{}-{} has no leader", *t.name, p.partition_index);
        continue;
      }
      by_leader[p.leader_id].emplace_back(*t.name, p.partition_index);
    }
  }
  for (const auto& [leader, partitions] : by_leader) {
    auto c = broker(m, leader);
    if (!c) {
      for (const auto& tp : partitions) out[tp].error = c.error();
      continue;
    }
    auto starts = list_offsets(**c, partitions, kEarliest);
    auto highs = list_offsets(**c, partitions, kLatest);
    for (const auto& tp : partitions) {
      Watermarks& w = out[tp];
      const auto& start = starts.at(tp);
      const auto& high = highs.at(tp);
      if (!start || !high) {
        w.error = !start ? start.error() : high.error();
        continue;
      }
      w.log_start = *start;
      w.high = *high;
    }
  }
  return out;
}

Result<int64_t, std::string> ClusterReader::offset_for_time(const MetadataResponse& m, const std::string& topic,
                                                            int32_t partition, int64_t timestamp_ms) {
  auto leader = leader_of(m, topic, partition);
  if (!leader) return fail(leader.error());
  auto r = list_offsets(**leader, {{topic, partition}}, timestamp_ms);
  return r.at({topic, partition});
}

std::map<std::tuple<std::string, int32_t, int32_t>, int64_t> ClusterReader::replica_sizes(const MetadataResponse& m) {
  std::map<std::tuple<std::string, int32_t, int32_t>, int64_t> out;
  DescribeLogDirsRequest request;
  for (const auto& t : m.topics) {
    if (!t.name || t.error_code != 0) continue;
    DescribeLogDirsRequest::Topic topic{*t.name, {}};
    for (const auto& p : t.partitions) topic.partitions.push_back(p.partition_index);
    request.topics->push_back(std::move(topic));
  }
  if (request.topics->empty()) return out;
  for (const auto& b : m.brokers) {
    auto c = at(b.host, b.port);
    if (!c) continue;
    auto r = (*c)->call<DescribeLogDirsResponse>(request);
    if (!r || r->error_code != 0) continue;
    for (const auto& dir : r->results) {
      for (const auto& t : dir.topics) {
        for (const auto& p : t.partitions) {
          if (!p.is_future_key) out[{t.name, p.partition_index, b.node_id}] += p.partition_size;
        }
      }
    }
  }
  return out;
}

Result<std::vector<DescribeConfigsResponse::Config>, std::string> ClusterReader::topic_configs(
    const std::string& topic) {
  DescribeConfigsRequest request;
  DescribeConfigsRequest::Resource resource;
  resource.resource_type = 2;  // topic
  resource.resource_name = topic;
  resource.configuration_keys.reset();  // all
  request.resources.push_back(std::move(resource));
  auto r = bootstrap_.call<DescribeConfigsResponse>(request);
  if (!r) return fail(text(r.error()));
  if (r->results.size() != 1) return fail(std::string("DescribeConfigs answered nothing"));
  if (r->results[0].error_code != 0) return fail(kafka_text(r->results[0].error_code, r->results[0].error_message));
  return std::move(r->results[0].configs);
}

Result<FetchedPartition, std::string> ClusterReader::fetch(const MetadataResponse& m, const std::string& topic,
                                                           int32_t partition, int64_t offset, int32_t max_bytes) {
  auto leader = leader_of(m, topic, partition);
  if (!leader) return fail(leader.error());
  Uuid id;
  for (const auto& t : m.topics) {
    if (t.name == topic) id = t.topic_id;
  }
  FetchRequest request;
  request.replica_id = -1;
  request.max_wait_ms = 0;
  request.min_bytes = 0;
  request.max_bytes = max_bytes;
  request.isolation_level = 0;
  FetchRequest::FetchPartition fp;
  fp.partition = partition;
  fp.fetch_offset = offset;
  fp.partition_max_bytes = max_bytes;
  request.topics.push_back({topic, id, {fp}});
  std::vector<uint8_t> keep;
  auto r = (*leader)->call<FetchResponse>(request, keep);
  if (!r) return fail(text(r.error()));
  if (r->error_code != 0) return fail(kafka_text(r->error_code));
  if (r->responses.size() != 1 || r->responses[0].partitions.size() != 1) {
    return fail(std::string("Fetch answered nothing"));
  }
  auto& p = r->responses[0].partitions[0];
  if (p.error_code != 0) return fail(kafka_text(p.error_code));
  FetchedPartition out;
  out.high_watermark = p.high_watermark;
  out.last_stable_offset = p.last_stable_offset;
  out.log_start_offset = p.log_start_offset;
  if (p.aborted_transactions) out.aborted = *p.aborted_transactions;
  if (p.records.data) out.records.assign(p.records.data->begin(), p.records.data->end());
  return out;
}

Result<std::vector<GroupListing>, std::string> ClusterReader::groups(const MetadataResponse& m) {
  std::vector<GroupListing> out;
  for (const auto& b : m.brokers) {
    auto c = at(b.host, b.port);
    if (!c) return fail(c.error());
    ListGroupsRequest request;
    auto r = (*c)->call<ListGroupsResponse>(request);
    if (!r) return fail(text(r.error()));
    if (r->error_code != 0) return fail(kafka_text(r->error_code));
    for (auto& g : r->groups) out.push_back({g.group_id, g.protocol_type, g.group_state});
  }
  return out;
}

Result<client::KafkaClient*, std::string> ClusterReader::coordinator(const std::string& group) {
  if (auto it = coordinators_.find(group); it != coordinators_.end()) return it->second;
  auto c = find_coordinator(group);
  if (c) coordinators_[group] = *c;
  return c;
}

Result<client::KafkaClient*, std::string> ClusterReader::find_coordinator(const std::string& group) {
  FindCoordinatorRequest request;
  request.key = group;
  request.key_type = 0;
  request.coordinator_keys.push_back(group);
  auto r = bootstrap_.call<FindCoordinatorResponse>(request);
  if (!r) return fail(text(r.error()));
  if (!r->coordinators.empty()) {
    const auto& c = r->coordinators[0];
    if (c.error_code != 0) return fail(kafka_text(c.error_code, c.error_message));
    return at(c.host, c.port);
  }
  if (r->error_code != 0) return fail(kafka_text(r->error_code, r->error_message));
  return at(r->host, r->port);
}

Result<DescribeGroupsResponse::Group, std::string> ClusterReader::describe_group(const std::string& group) {
  auto c = coordinator(group);
  if (!c) return fail(c.error());
  DescribeGroupsRequest request;
  request.groups.push_back(group);
  auto r = (*c)->call<DescribeGroupsResponse>(request);
  if (!r) return fail(text(r.error()));
  if (r->groups.size() != 1) return fail(std::string("DescribeGroups answered nothing"));
  if (r->groups[0].error_code != 0) return fail(kafka_text(r->groups[0].error_code));
  return std::move(r->groups[0]);
}

Result<std::optional<ConsumerGroupDescribeResponse::Group>, std::string> ClusterReader::describe_consumer_group(
    const std::string& group) {
  using Answer = std::optional<ConsumerGroupDescribeResponse::Group>;
  auto c = coordinator(group);
  if (!c) return fail(c.error());
  if (!(*c)->version<ConsumerGroupDescribeRequest>()) return Answer();
  ConsumerGroupDescribeRequest request;
  request.group_ids.push_back(group);
  auto r = (*c)->call<ConsumerGroupDescribeResponse>(request);
  if (!r) return fail(text(r.error()));
  if (r->groups.size() != 1) return fail(std::string("ConsumerGroupDescribe answered nothing"));
  auto& g = r->groups[0];
  if (g.error_code == kafka_error::kGroupIdNotFound) return Answer();
  if (g.error_code != 0) return fail(kafka_text(g.error_code, g.error_message));
  return Answer(std::move(g));
}

Result<std::vector<GroupOffset>, std::string> ClusterReader::group_offsets(const std::string& group) {
  auto c = coordinator(group);
  if (!c) return fail(c.error());
  const std::optional<int16_t> v = (*c)->version<OffsetFetchRequest>();
  OffsetFetchRequest request;
  request.group_id = group;
  request.topics.reset();  // all
  request.groups.push_back({group, std::nullopt, -1, std::nullopt});
  auto r = (*c)->call<OffsetFetchResponse>(request);
  if (!r) return fail(text(r.error()));
  int16_t error = r->error_code;
  const std::vector<OffsetFetchResponse::Topic>* topics = &r->topics;
  if (v && *v >= 8) {
    if (r->groups.size() != 1) return fail(std::string("OffsetFetch answered no group"));
    error = r->groups[0].error_code;
    topics = &r->groups[0].topics;
  }
  if (error != 0) return fail(kafka_text(error));
  std::vector<GroupOffset> out;
  for (const auto& t : *topics) {
    for (const auto& p : t.partitions) {
      if (p.error_code == 0 && p.committed_offset >= 0) out.push_back({t.name, p.partition_index, p.committed_offset});
    }
  }
  return out;
}

}  // namespace strata::console

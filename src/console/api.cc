#include "console/api.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

#include "console/batch_json.h"
#include "console/cluster_admin.h"
#include "record/log_scanner.h"
#include "record/validate.h"
#include "tools/consumer_protocol.h"

namespace strata::console {

using nlohmann::json;

namespace {

constexpr int32_t kFetchBytes = 1 << 20;     // one Fetch of the inspector or the browser
constexpr int kBrowseFetchesMax = 16;        // a filtered browse reads at most this many
constexpr size_t kMessagesPerPageMax = 500;  // records one browse answers
constexpr int64_t kPartitionsMax = 1'000'000;  // what a write may ask for (Kafka has no lower bound)

// Metadata of one topic; 404 when the cluster has none the user may see (Kafka's error
// named: UNKNOWN_TOPIC_OR_PARTITION, TOPIC_AUTHORIZATION_FAILED).
Answer<protocol::MetadataResponse> topic_metadata(ClusterReader& c, const std::string& topic) {
  auto m = c.metadata({topic});
  if (!m) return fail(Failure{502, m.error()});
  if (m->topics.size() != 1) return fail(Failure{502, "Metadata answered no topic"});
  if (m->topics[0].error_code != 0) {
    return fail(Failure{404, "no topic " + topic + ": " + client::kafka_error_name(m->topics[0].error_code)});
  }
  return std::move(*m);
}

// A write's answer: `ok`, or the cluster's refusal.
Answer<json> after(const Done& r, json ok) {
  if (!r) return fail(cluster_failure(r.error()));
  return ok;
}

// The answer of one partition's ListOffsets, or null when the leader gave none.
const Watermarks* mark(const std::map<std::pair<std::string, int32_t>, Watermarks>& marks, const std::string& topic,
                       int32_t partition) {
  auto it = marks.find({topic, partition});
  return it == marks.end() || it->second.error ? nullptr : &it->second;
}

std::string why_not(const std::map<std::pair<std::string, int32_t>, Watermarks>& marks, const std::string& topic,
                    int32_t partition) {
  auto it = marks.find({topic, partition});
  return it == marks.end() || !it->second.error ? "no offsets" : *it->second.error;
}

// Metadata of one topic that has `partition`; 404 otherwise.
Answer<protocol::MetadataResponse> partition_metadata(ClusterReader& c, const std::string& topic, int32_t partition) {
  auto m = topic_metadata(c, topic);
  if (!m) return fail(m.error());
  for (const auto& p : m->topics[0].partitions) {
    if (p.partition_index == partition) return m;
  }
  return fail(Failure{404, "no partition " + topic + "-" + std::to_string(partition)});
}

// A member's partitions, from its assignment bytes when the group speaks Kafka's consumer
// protocol: [{"topic", "partitions": [...]}]; null for another protocol or bytes that do
// not decode.
json assignment_json(const std::string& protocol_type, const std::vector<uint8_t>& bytes) {
  if (protocol_type != "consumer" || bytes.empty()) return nullptr;
  auto a = tools::decode_consumer_assignment(Bytes(bytes.data(), bytes.size()));
  if (!a) return nullptr;
  json out = json::array();
  for (const auto& tp : a->message.assigned_partitions) out.push_back({{"topic", tp.topic}, {"partitions", tp.partitions}});
  return out;
}

// An integer field of a write's body within [low, high], or `fallback` when absent.
Answer<int64_t> int_field(const json& body, const char* name, int64_t low, int64_t high, int64_t fallback) {
  auto it = body.find(name);
  if (it == body.end()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < low || it->get<int64_t>() > high) {
    return fail(bad_request(std::string(name) + ": an integer from " + std::to_string(low) + " to " +
                            std::to_string(high)));
  }
  return it->get<int64_t>();
}

// Kafka's errors that are the user's doing, and their HTTP status; any other failure of
// the cluster is a 502. The reader's and writer's failures start with Kafka's error name.
struct KafkaStatus {
  std::string_view name;
  int status;
};
constexpr KafkaStatus kKafkaStatuses[] = {
    {"TOPIC_AUTHORIZATION_FAILED", 403},  {"GROUP_AUTHORIZATION_FAILED", 403},
    {"CLUSTER_AUTHORIZATION_FAILED", 403}, {"TRANSACTIONAL_ID_AUTHORIZATION_FAILED", 403},
    {"UNKNOWN_TOPIC_OR_PARTITION", 404},  {"UNKNOWN_TOPIC_ID", 404},
    {"GROUP_ID_NOT_FOUND", 404},          {"OFFSET_OUT_OF_RANGE", 404},
    {"TOPIC_ALREADY_EXISTS", 409},        {"NON_EMPTY_GROUP", 409},
    {"UNKNOWN_MEMBER_ID", 409},           {"INVALID_PARTITIONS", 400},
    {"INVALID_REPLICATION_FACTOR", 400},  {"INVALID_REPLICA_ASSIGNMENT", 400},
    {"INVALID_CONFIG", 400},              {"INVALID_TOPIC_EXCEPTION", 400},
    {"POLICY_VIOLATION", 400},            {"INVALID_REQUEST", 400},
};

json partitions_json(const protocol::ConsumerGroupDescribeResponse::Assignment& a) {
  json out = json::array();
  for (const auto& tp : a.topic_partitions) out.push_back({{"topic", tp.topic_name}, {"partitions", tp.partitions}});
  return out;
}

// A group's description: a consumer-protocol group (KIP-848) from ConsumerGroupDescribe,
// with its epochs and each member's epoch and target assignment; any other from
// DescribeGroups. Both give "type" ("consumer" or "classic") and the same member fields.
Answer<json> group_description(ClusterReader& c, const std::string& id) {
  auto kip848 = c.describe_consumer_group(id);
  if (!kip848) return fail(cluster_failure(kip848.error()));
  json members = json::array();
  if (const auto& g = *kip848) {
    for (const auto& m : g->members) {
      members.push_back({{"member_id", m.member_id}, {"client_id", m.client_id}, {"host", m.client_host},
                         {"instance_id", m.instance_id ? json(*m.instance_id) : json(nullptr)},
                         {"assignment", partitions_json(m.assignment)}, {"member_epoch", m.member_epoch},
                         {"target_assignment", partitions_json(m.target_assignment)}});
    }
    return json{{"group", id}, {"type", "consumer"}, {"state", g->group_state}, {"protocol_type", "consumer"},
                {"protocol", g->assignor_name}, {"group_epoch", g->group_epoch},
                {"assignment_epoch", g->assignment_epoch}, {"members", std::move(members)}};
  }
  auto d = c.describe_group(id);
  if (!d) return fail(cluster_failure(d.error()));
  for (const auto& mem : d->members) {
    members.push_back({{"member_id", mem.member_id}, {"client_id", mem.client_id}, {"host", mem.client_host},
                       {"instance_id", mem.group_instance_id ? json(*mem.group_instance_id) : json(nullptr)},
                       {"assignment", assignment_json(d->protocol_type, mem.member_assignment)}});
  }
  return json{{"group", id}, {"type", "classic"}, {"state", d->group_state}, {"protocol_type", d->protocol_type},
              {"protocol", d->protocol_data}, {"members", std::move(members)}};
}

}  // namespace

Failure cluster_failure(std::string message) {
  for (const KafkaStatus& k : kKafkaStatuses) {
    if (std::string_view(message).substr(0, k.name.size()) == k.name) return Failure{k.status, std::move(message)};
  }
  return Failure{502, std::move(message)};
}
Failure bad_request(std::string message) { return Failure{400, std::move(message)}; }

Answer<json> cluster(ClusterReader& c) {
  auto m = c.metadata({});  // no topic: brokers and controller only
  if (!m) return fail(cluster_failure(m.error()));
  json brokers = json::array();
  for (const auto& b : m->brokers) {
    brokers.push_back({{"id", b.node_id}, {"host", b.host}, {"port", b.port},
                       {"rack", b.rack ? json(*b.rack) : json(nullptr)}});
  }
  return json{{"cluster_id", m->cluster_id ? json(*m->cluster_id) : json(nullptr)},
              {"controller", m->controller_id},
              {"brokers", std::move(brokers)}};
}

Answer<json> topics(ClusterReader& c) {
  auto m = c.all_topics();
  if (!m) return fail(cluster_failure(m.error()));
  auto marks = c.watermarks(*m);
  auto sizes = c.replica_sizes(*m);
  json out = json::array();
  for (const auto& t : m->topics) {
    if (!t.name) continue;
    int64_t bytes = 0;  // of the leaders' replicas
    for (const auto& p : t.partitions) {
      if (auto it = sizes.find({*t.name, p.partition_index, p.leader_id}); it != sizes.end()) bytes += it->second;
    }
    int64_t records = 0;
    int64_t high_watermarks = 0;  // their sum grows by what is written: the charts' throughput
    size_t leaderless = 0, under_replicated = 0, unanswered = 0;
    for (const auto& p : t.partitions) {
      if (const Watermarks* w = mark(marks, *t.name, p.partition_index)) {
        records += w->high - w->log_start, high_watermarks += w->high;
      } else {
        ++unanswered;  // the sums leave it out: the page's chart skips this sample
      }
      if (p.leader_id < 0) ++leaderless;
      if (p.isr_nodes.size() < p.replica_nodes.size()) ++under_replicated;
    }
    out.push_back({{"name", *t.name},
                   {"internal", t.is_internal},
                   {"partitions", t.partitions.size()},
                   {"replication_factor", t.partitions.empty() ? 0 : t.partitions[0].replica_nodes.size()},
                   {"records", records},
                   {"bytes", bytes},
                   {"high_watermarks", high_watermarks},
                   {"unanswered", unanswered},
                   {"leaderless", leaderless},
                   {"under_replicated", under_replicated}});
  }
  return json{{"topics", std::move(out)}};
}

Answer<json> topic(ClusterReader& c, const std::string& name) {
  auto m = topic_metadata(c, name);
  if (!m) return fail(m.error());
  const auto& t = m->topics[0];
  auto marks = c.watermarks(*m);
  auto sizes = c.replica_sizes(*m);
  json parts = json::array();
  for (const auto& p : t.partitions) {
    const Watermarks* w = mark(marks, name, p.partition_index);
    json part = {{"partition", p.partition_index}, {"leader", p.leader_id}, {"leader_epoch", p.leader_epoch},
                 {"replicas", p.replica_nodes}, {"isr", p.isr_nodes}, {"offline", p.offline_replicas},
                 {"log_start_offset", w ? w->log_start : -1}, {"high_watermark", w ? w->high : -1}};
    if (!w) part["error"] = why_not(marks, name, p.partition_index);
    json replica_bytes = json::object();  // by broker id
    for (int32_t r : p.replica_nodes) {
      if (auto it = sizes.find({name, p.partition_index, r}); it != sizes.end()) replica_bytes[std::to_string(r)] = it->second;
    }
    if (auto it = sizes.find({name, p.partition_index, p.leader_id}); it != sizes.end()) part["bytes"] = it->second;
    part["replica_bytes"] = std::move(replica_bytes);
    parts.push_back(std::move(part));
  }
  json configs = json::array();
  auto described = c.topic_configs(name);
  if (described) {
    for (const auto& cfg : *described) {
      configs.push_back({{"name", cfg.name},
                         {"value", cfg.value ? json(*cfg.value) : json(nullptr)},
                         {"source", cfg.config_source},
                         {"read_only", cfg.read_only},
                         {"sensitive", cfg.is_sensitive}});
    }
  }
  json out = {{"name", name}, {"internal", t.is_internal}, {"partitions", std::move(parts)},
              {"configs", std::move(configs)}};
  if (!described) out["configs_error"] = described.error();
  return out;
}

// The batches of a partition from the one holding `offset` on, one Fetch's worth.
Answer<json> batches(ClusterReader& c, const std::string& topic, int32_t partition, int64_t offset) {
  auto m = partition_metadata(c, topic, partition);
  if (!m) return fail(m.error());
  auto f = c.fetch(*m, topic, partition, offset, kFetchBytes);
  if (!f) return fail(cluster_failure(f.error()));
  json out = batch_list(f->records, std::max(offset, f->log_start_offset));
  out["high_watermark"] = f->high_watermark;
  out["last_stable_offset"] = f->last_stable_offset;
  out["log_start_offset"] = f->log_start_offset;
  json aborted = json::array();
  for (const auto& a : f->aborted) aborted.push_back({{"producer_id", a.producer_id}, {"first_offset", a.first_offset}});
  out["aborted_transactions"] = std::move(aborted);
  return out;
}

// The batch that holds `offset`, opened.
Answer<json> batch(ClusterReader& c, const std::string& topic, int32_t partition, int64_t offset) {
  auto m = partition_metadata(c, topic, partition);
  if (!m) return fail(m.error());
  auto f = c.fetch(*m, topic, partition, offset, kFetchBytes);
  if (!f) return fail(cluster_failure(f.error() + " (offset " + std::to_string(offset) + ")"));
  record::LogScanner scanner(f->records);
  while (auto entry = scanner.next()) {
    if (entry->magic != 2) continue;
    auto b = record::frame_batch(entry->bytes);
    if (!b) return fail(cluster_failure("the batch at " + std::to_string(entry->offset) + " cannot be read: " +
                                        record::to_string(b.error())));
    if (b->last_offset().value() >= offset) return batch_detail(*b, entry->position);
  }
  return fail(Failure{404, "no batch holds offset " + std::to_string(offset)});
}

// Records from where `q` says, at most `q.limit`, keeping those that hold `q.filter`;
// at most kBrowseFetchesMax fetches are read.
Answer<json> messages(ClusterReader& c, const std::string& topic, int32_t partition, const Browse& q) {
  auto m = partition_metadata(c, topic, partition);
  if (!m) return fail(m.error());
  const size_t limit = size_t(std::clamp<int64_t>(q.limit, 1, kMessagesPerPageMax));
  auto marks = c.watermarks(*m, partition);  // the one partition browsed
  const Watermarks* w = mark(marks, topic, partition);
  if (!w) return fail(cluster_failure(why_not(marks, topic, partition)));
  int64_t from = w->log_start;
  if (q.offset) {
    from = std::clamp(*q.offset, w->log_start, w->high);
  } else if (q.timestamp) {
    auto at = c.offset_for_time(*m, topic, partition, *q.timestamp);
    if (!at) return fail(cluster_failure(at.error()));
    from = *at < 0 ? w->high : *at;
  } else if (q.newest) {
    from = std::max(w->log_start, w->high - int64_t(limit));
  }
  json records = json::array();
  RecordQuery rq{from, limit, q.filter, kAnswerBytesMax, false};
  bool full = false;
  for (int round = 0; round < kBrowseFetchesMax && rq.from < w->high && !full; ++round) {
    auto f = c.fetch(*m, topic, partition, rq.from, kFetchBytes);
    if (!f) return fail(cluster_failure(f.error()));
    json page = record_list(f->records, rq);
    if (page.contains("error")) return fail(cluster_failure(page["error"].get<std::string>()));
    for (auto& r : page["records"]) records.push_back(std::move(r));
    full = page["full"].get<bool>();
    const int64_t next = page["next"].get<int64_t>();
    if (next <= rq.from) break;  // nothing more to read below the high watermark
    rq.from = next;
    rq.limit = limit - records.size();
    rq.bytes_max = kAnswerBytesMax;  // per fetch; the record limit bounds the whole
  }
  const char* end = full ? "limit" : rq.from >= w->high ? "high watermark" : "scan limit";
  return json{{"records", std::move(records)}, {"from", from}, {"next", rq.from}, {"end", end},
              {"log_start_offset", w->log_start}, {"high_watermark", w->high}};
}

Answer<json> groups(ClusterReader& c) {
  auto m = c.metadata({});
  if (!m) return fail(cluster_failure(m.error()));
  auto g = c.groups(*m);
  if (!g) return fail(cluster_failure(g.error()));
  json out = json::array();
  for (const auto& row : *g) out.push_back({{"group", row.group}, {"protocol_type", row.protocol_type}, {"state", row.state}});
  return json{{"groups", std::move(out)}};
}

// A group's members and, per partition it committed, the offset, the end and the lag.
Answer<json> group(ClusterReader& c, const std::string& id) {
  auto out = group_description(c, id);
  if (!out) return out;
  auto offsets = c.group_offsets(id);
  if (!offsets) return fail(cluster_failure(offsets.error()));
  std::vector<std::string> topics;
  for (const auto& o : *offsets) {
    if (topics.empty() || topics.back() != o.topic) topics.push_back(o.topic);
  }
  json parts = json::array();
  int64_t total = 0;
  if (!topics.empty()) {
    auto m = c.metadata(topics);
    if (!m) return fail(cluster_failure(m.error()));
    auto marks = c.watermarks(*m);
    for (const auto& o : *offsets) {
      json p = {{"topic", o.topic}, {"partition", o.partition}, {"committed", o.committed}};
      if (const Watermarks* w = mark(marks, o.topic, o.partition)) {  // none: a deleted topic, a leaderless partition
        p["high_watermark"] = w->high;
        p["lag"] = std::max<int64_t>(0, w->high - o.committed);
        total += std::max<int64_t>(0, w->high - o.committed);
      }
      parts.push_back(std::move(p));
    }
  }
  (*out)["offsets"] = std::move(parts);
  (*out)["lag"] = total;
  return out;
}

// --- Writes (cluster_admin.h); `body` is the request's JSON.

Answer<json> create(ClusterReader& c, const json& body) {
  NewTopic t;
  auto name = body.find("name");
  if (name == body.end() || !name->is_string()) return fail(bad_request("name: a string"));
  t.name = name->get<std::string>();
  auto partitions = int_field(body, "partitions", -1, kPartitionsMax, -1);
  auto replicas = int_field(body, "replication_factor", -1, INT16_MAX, -1);
  if (!partitions) return fail(partitions.error());
  if (!replicas) return fail(replicas.error());
  t.partitions = int32_t(*partitions);
  t.replication_factor = int16_t(*replicas);
  if (auto configs = body.find("configs"); configs != body.end()) {
    if (!configs->is_object()) return fail(bad_request("configs: an object of strings"));
    for (const auto& [k, v] : configs->items()) {
      if (!v.is_string()) return fail(bad_request("configs: " + k + " is not a string"));
      t.configs[k] = v.get<std::string>();
    }
  }
  return after(create_topic(c, t), {{"created", t.name}});
}

Answer<json> remove(ClusterReader& c, const std::string& name) {
  return after(delete_topic(c, name), {{"deleted", name}});
}

Answer<json> grow(ClusterReader& c, const std::string& name, const json& body) {
  auto total = int_field(body, "count", 1, kPartitionsMax, 0);
  if (!total || *total == 0) return fail(total ? bad_request("count: the new total") : total.error());
  const auto count = int32_t(*total);
  return after(add_partitions(c, name, count), {{"partitions", count}});
}

Answer<json> configure(ClusterReader& c, const std::string& name, const json& body) {
  auto name_field = body.find("name");
  if (name_field == body.end() || !name_field->is_string()) return fail(bad_request("name: the config's name"));
  const std::string key = name_field->get<std::string>();
  std::optional<std::string> value;
  if (auto v = body.find("value"); v != body.end() && !v->is_null()) {
    if (!v->is_string()) return fail(bad_request("value: a string, or null to remove the override"));
    value = v->get<std::string>();
  }
  return after(alter_topic_config(c, name, key, value), {{"config", key}, {"value", value ? json(*value) : json(nullptr)}});
}

Answer<json> forget(ClusterReader& c, const std::string& group) {
  return after(delete_group(c, group), {{"deleted", group}});
}

// {"topic": T, "to": "earliest" | "latest" | offset, "partition": P (default: all)}.
Answer<json> reset(ClusterReader& c, const std::string& group, const json& body) {
  auto topic_field = body.find("topic");
  if (topic_field == body.end() || !topic_field->is_string()) return fail(bad_request("topic: a string"));
  auto to_field = body.find("to");
  if (to_field == body.end()) return fail(bad_request("to: earliest, latest or an offset"));
  const json& target = *to_field;
  auto only = int_field(body, "partition", 0, kPartitionsMax, -1);
  if (!only) return fail(only.error());
  const std::string topic = topic_field->get<std::string>();
  auto m = topic_metadata(c, topic);
  if (!m) return fail(m.error());
  auto marks = c.watermarks(*m, *only >= 0 ? std::optional<int32_t>(int32_t(*only)) : std::nullopt);
  std::vector<GroupOffset> offsets;
  for (const auto& p : m->topics[0].partitions) {
    if (*only >= 0 && *only != p.partition_index) continue;
    const Watermarks* w = mark(marks, topic, p.partition_index);
    if (!w) return fail(cluster_failure(why_not(marks, topic, p.partition_index)));
    int64_t to = 0;
    if (target == "earliest") {
      to = w->log_start;
    } else if (target == "latest") {
      to = w->high;
    } else if (target.is_number_integer()) {
      to = std::clamp(target.get<int64_t>(), w->log_start, w->high);
    } else {
      return fail(bad_request("to: earliest, latest or an offset"));
    }
    offsets.push_back({topic, p.partition_index, to});
  }
  if (offsets.empty()) return fail(bad_request("no such partition"));
  if (auto done = commit_offsets(c, group, offsets); !done) return fail(cluster_failure(done.error()));
  json out = json::array();
  for (const auto& o : offsets) out.push_back({{"topic", o.topic}, {"partition", o.partition}, {"offset", o.committed}});
  return json{{"group", group}, {"offsets", std::move(out)}};
}

}  // namespace strata::console

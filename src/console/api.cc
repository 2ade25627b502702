#include "console/api.h"

#include <algorithm>

#include "console/batch_json.h"
#include "console/cluster_admin.h"
#include "record/log_scanner.h"
#include "record/validate.h"

namespace strata::console {

using nlohmann::json;

namespace {

constexpr int32_t kFetchBytes = 1 << 20;     // one Fetch of the inspector or the browser
constexpr int kBrowseFetchesMax = 16;        // a filtered browse reads at most this many
constexpr size_t kMessagesPerPageMax = 500;  // records one browse answers

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

bool contains(const json& v, const std::string& needle) {
  return v.is_object() && v["text"].is_string() && v["text"].get<std::string>().find(needle) != std::string::npos;
}
bool matches(const json& r, const std::string& filter) {
  if (filter.empty() || contains(r["key"], filter) || contains(r["value"], filter)) return true;
  for (const auto& h : r["headers"]) {
    if (contains(h["value"], filter)) return true;
  }
  return false;
}

}  // namespace

Failure cluster_failure(std::string message) {
  // Kafka's *_AUTHORIZATION_FAILED: the cluster answered, and refused this user.
  const int status = message.find("AUTHORIZATION_FAILED") != std::string::npos ? 403 : 502;
  return Failure{status, std::move(message)};
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
  json out = json::array();
  for (const auto& t : m->topics) {
    if (!t.name) continue;
    int64_t records = 0;
    int64_t high_watermarks = 0;  // their sum grows by what is written: the charts' throughput
    size_t leaderless = 0, under_replicated = 0;
    for (const auto& p : t.partitions) {
      const Watermarks& w = marks[{*t.name, p.partition_index}];
      if (!w.error) records += w.high - w.log_start, high_watermarks += w.high;
      if (p.leader_id < 0) ++leaderless;
      if (p.isr_nodes.size() < p.replica_nodes.size()) ++under_replicated;
    }
    out.push_back({{"name", *t.name},
                   {"internal", t.is_internal},
                   {"partitions", t.partitions.size()},
                   {"replication_factor", t.partitions.empty() ? 0 : t.partitions[0].replica_nodes.size()},
                   {"records", records},
                   {"high_watermarks", high_watermarks},
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
  json parts = json::array();
  for (const auto& p : t.partitions) {
    const Watermarks& w = marks[{name, p.partition_index}];
    json part = {{"partition", p.partition_index}, {"leader", p.leader_id}, {"leader_epoch", p.leader_epoch},
                 {"replicas", p.replica_nodes}, {"isr", p.isr_nodes}, {"offline", p.offline_replicas},
                 {"log_start_offset", w.log_start}, {"high_watermark", w.high}};
    if (w.error) part["error"] = *w.error;
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
  auto m = topic_metadata(c, topic);
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
  auto m = topic_metadata(c, topic);
  if (!m) return fail(m.error());
  auto f = c.fetch(*m, topic, partition, offset, kFetchBytes);
  if (!f && f.error() == "OFFSET_OUT_OF_RANGE") {
    return fail(Failure{404, "offset " + std::to_string(offset) + " is not in the log (OFFSET_OUT_OF_RANGE)"});
  }
  if (!f) return fail(cluster_failure(f.error()));
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

// Records from `start` ("offset", "timestamp", "oldest", "newest"), at most `limit`,
// keeping those whose key, value or a header value contains `filter`.
Answer<json> messages(ClusterReader& c, const std::string& topic, int32_t partition, const Browse& q) {
  auto m = topic_metadata(c, topic);
  if (!m) return fail(m.error());
  const size_t limit = size_t(std::clamp<int64_t>(q.limit, 1, kMessagesPerPageMax));
  const std::string& filter = q.filter;
  auto marks = c.watermarks(*m);
  const Watermarks& w = marks[{topic, partition}];
  if (w.error) return fail(cluster_failure(*w.error));
  int64_t from = w.log_start;
  if (q.offset) {
    from = std::max(*q.offset, w.log_start);
  } else if (q.timestamp) {
    auto o2 = c.offset_for_time(*m, topic, partition, *q.timestamp);
    if (!o2) return fail(cluster_failure(o2.error()));
    from = *o2 < 0 ? w.high : *o2;
  } else if (q.newest) {
    from = std::max(w.log_start, w.high - int64_t(limit));
  }
  json records = json::array();
  std::string end = "high watermark";
  int64_t next = from;
  for (int round = 0; round < kBrowseFetchesMax && next < w.high && records.size() < limit; ++round) {
    auto f = c.fetch(*m, topic, partition, next, kFetchBytes);
    if (!f) return fail(cluster_failure(f.error()));
    json page = record_list(f->records, next, limit * 4, false);
    if (page.contains("error")) return fail(cluster_failure(page["error"].get<std::string>()));
    const int64_t before = next;
    for (auto& r : page["records"]) {
      next = r["offset"].get<int64_t>() + 1;
      if (records.size() < limit && matches(r, filter)) records.push_back(std::move(r));
    }
    // A fetch with only control batches or a compacted gap: past its last batch.
    auto listed = batch_list(f->records, next);
    if (!listed["batches"].empty()) next = std::max(next, listed["batches"].back()["last_offset"].get<int64_t>() + 1);
    if (next == before) break;
  }
  if (records.size() >= limit) end = "limit";
  else if (next < w.high) end = "scan limit";
  return json{{"records", std::move(records)}, {"from", from}, {"next", next}, {"end", end},
              {"log_start_offset", w.log_start}, {"high_watermark", w.high}};
}

Answer<json> groups(ClusterReader& c) {
  auto m = c.metadata({});
  if (!m) return fail(cluster_failure(m.error()));
  auto g = c.groups(*m);
  if (!g) return fail(cluster_failure(g.error()));
  json out = json::array();
  for (const auto& row : *g) out.push_back({{"group", row[0]}, {"protocol_type", row[1]}, {"state", row[2]}});
  return json{{"groups", std::move(out)}};
}

// A group's members and, per partition it committed, the offset, the end and the lag.
Answer<json> group(ClusterReader& c, const std::string& id) {
  auto d = c.describe_group(id);
  if (!d) return fail(cluster_failure(d.error()));
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
      const Watermarks& w = marks[{o.topic, o.partition}];
      json p = {{"topic", o.topic}, {"partition", o.partition}, {"committed", o.committed}};
      if (!w.error) {
        p["high_watermark"] = w.high;
        p["lag"] = std::max<int64_t>(0, w.high - o.committed);
        total += std::max<int64_t>(0, w.high - o.committed);
      }
      parts.push_back(std::move(p));
    }
  }
  json members = json::array();
  for (const auto& mem : d->members) {
    members.push_back({{"member_id", mem.member_id}, {"client_id", mem.client_id}, {"host", mem.client_host},
                       {"instance_id", mem.group_instance_id ? json(*mem.group_instance_id) : json(nullptr)}});
  }
  return json{{"group", id}, {"state", d->group_state}, {"protocol_type", d->protocol_type},
              {"protocol", d->protocol_data}, {"members", std::move(members)}, {"offsets", std::move(parts)},
              {"lag", total}};
}

// --- Writes (cluster_admin.h); `body` is the request's JSON.

Answer<json> create(ClusterReader& c, const json& body) {
  NewTopic t;
  if (!body.contains("name") || !body["name"].is_string()) return fail(bad_request("name: a string"));
  t.name = body["name"];
  if (body.contains("partitions")) t.partitions = body["partitions"].get<int32_t>();
  if (body.contains("replication_factor")) t.replication_factor = body["replication_factor"].get<int16_t>();
  if (body.contains("configs")) {
    for (const auto& [k, v] : body["configs"].items()) t.configs[k] = v.get<std::string>();
  }
  return after(create_topic(c, t), {{"created", t.name}});
}

Answer<json> remove(ClusterReader& c, const std::string& name) {
  return after(delete_topic(c, name), {{"deleted", name}});
}

Answer<json> grow(ClusterReader& c, const std::string& name, const json& body) {
  if (!body.contains("count") || !body["count"].is_number_integer()) return fail(bad_request("count: the new total"));
  const auto count = body["count"].get<int32_t>();
  return after(add_partitions(c, name, count), {{"partitions", count}});
}

Answer<json> configure(ClusterReader& c, const std::string& name, const json& body) {
  if (!body.contains("name") || !body["name"].is_string()) return fail(bad_request("name: the config's name"));
  const std::string key = body["name"];
  std::optional<std::string> value;
  if (body.contains("value") && !body["value"].is_null()) value = body["value"].get<std::string>();
  return after(alter_topic_config(c, name, key, value), {{"config", key}, {"value", value ? json(*value) : json(nullptr)}});
}

Answer<json> forget(ClusterReader& c, const std::string& group) {
  return after(delete_group(c, group), {{"deleted", group}});
}

// {"topic": T, "to": "earliest" | "latest" | offset, "partition": P (default: all)}.
Answer<json> reset(ClusterReader& c, const std::string& group, const json& body) {
  if (!body.contains("topic") || !body["topic"].is_string()) return fail(bad_request("topic: a string"));
  if (!body.contains("to")) return fail(bad_request("to: earliest, latest or an offset"));
  const std::string topic = body["topic"];
  auto m = topic_metadata(c, topic);
  if (!m) return fail(m.error());
  auto marks = c.watermarks(*m);
  std::vector<GroupOffset> offsets;
  for (const auto& p : m->topics[0].partitions) {
    if (body.contains("partition") && body["partition"] != p.partition_index) continue;
    const Watermarks& w = marks[{topic, p.partition_index}];
    if (w.error) return fail(cluster_failure(*w.error));
    int64_t to = 0;
    if (body["to"] == "earliest") {
      to = w.log_start;
    } else if (body["to"] == "latest") {
      to = w.high;
    } else if (body["to"].is_number_integer()) {
      to = std::clamp(body["to"].get<int64_t>(), w.log_start, w.high);
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

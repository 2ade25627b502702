#include "console/console.h"

#include <httplib.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>

#include "console/assets.h"
#include "console/batch_json.h"
#include "console/cluster_admin.h"
#include "console/cluster_reader.h"
#include "record/log_scanner.h"
#include "record/validate.h"

namespace strata::console {

using nlohmann::json;

namespace {

constexpr int32_t kFetchBytes = 1 << 20;     // one Fetch of the inspector or the browser
constexpr int kBrowseFetchesMax = 16;        // a filtered browse reads at most this many
constexpr size_t kMessagesPerPageMax = 500;  // records one browse answers
constexpr const char* kJson = "application/json";

// A handler's failure: the HTTP status and the text the page shows.
struct Failure {
  int status = 502;
  std::string message;
};

template <class T>
using Answer = Result<T, Failure>;

Failure cluster_failure(std::string message) { return Failure{502, std::move(message)}; }
Failure bad_request(std::string message) { return Failure{400, std::move(message)}; }

std::optional<int64_t> int_param(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) return std::nullopt;
  const std::string v = req.get_param_value(name);
  int64_t out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return out;
}

class Api {
 public:
  explicit Api(ConsoleTarget target) : target_(std::move(target)) {}

  Answer<ClusterReader> reader() const {
    auto r = ClusterReader::connect(target_.bootstrap, target_.options);
    if (!r) return fail(cluster_failure(r.error()));
    return std::move(*r);
  }

  Answer<json> cluster() const {
    auto c = reader();
    if (!c) return fail(c.error());
    auto m = c->metadata({});  // no topic: brokers and controller only
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

  Answer<json> topics() const {
    auto c = reader();
    if (!c) return fail(c.error());
    auto m = c->all_topics();
    if (!m) return fail(cluster_failure(m.error()));
    auto marks = c->watermarks(*m);
    json out = json::array();
    for (const auto& t : m->topics) {
      if (!t.name) continue;
      int64_t records = 0;
      size_t leaderless = 0, under_replicated = 0;
      for (const auto& p : t.partitions) {
        const Watermarks& w = marks[{*t.name, p.partition_index}];
        if (!w.error) records += w.high - w.log_start;
        if (p.leader_id < 0) ++leaderless;
        if (p.isr_nodes.size() < p.replica_nodes.size()) ++under_replicated;
      }
      out.push_back({{"name", *t.name},
                     {"internal", t.is_internal},
                     {"partitions", t.partitions.size()},
                     {"replication_factor", t.partitions.empty() ? 0 : t.partitions[0].replica_nodes.size()},
                     {"records", records},
                     {"leaderless", leaderless},
                     {"under_replicated", under_replicated}});
    }
    return json{{"topics", std::move(out)}};
  }

  Answer<json> topic(const std::string& name) const {
    auto c = reader();
    if (!c) return fail(c.error());
    auto m = c->metadata({name});
    if (!m) return fail(cluster_failure(m.error()));
    if (m->topics.size() != 1 || m->topics[0].error_code != 0) {
      return fail(Failure{404, "no topic " + name + (m->topics.empty() ? "" : ": " + client::kafka_error_name(m->topics[0].error_code))});
    }
    const auto& t = m->topics[0];
    auto marks = c->watermarks(*m);
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
    auto described = c->topic_configs(name);
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
  Answer<json> batches(const std::string& topic, int32_t partition, int64_t offset) const {
    auto c = reader();
    if (!c) return fail(c.error());
    auto m = c->metadata({topic});
    if (!m) return fail(cluster_failure(m.error()));
    auto f = c->fetch(*m, topic, partition, offset, kFetchBytes);
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
  Answer<json> batch(const std::string& topic, int32_t partition, int64_t offset) const {
    auto c = reader();
    if (!c) return fail(c.error());
    auto m = c->metadata({topic});
    if (!m) return fail(cluster_failure(m.error()));
    auto f = c->fetch(*m, topic, partition, offset, kFetchBytes);
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
  Answer<json> messages(const std::string& topic, int32_t partition, const httplib::Request& req) const {
    auto c = reader();
    if (!c) return fail(c.error());
    auto m = c->metadata({topic});
    if (!m) return fail(cluster_failure(m.error()));
    const size_t limit = size_t(std::clamp<int64_t>(int_param(req, "limit").value_or(50), 1, kMessagesPerPageMax));
    const std::string filter = req.has_param("filter") ? req.get_param_value("filter") : "";
    auto marks = c->watermarks(*m);
    const Watermarks& w = marks[{topic, partition}];
    if (w.error) return fail(cluster_failure(*w.error));
    int64_t from = w.log_start;
    if (auto o = int_param(req, "offset")) {
      from = std::max(*o, w.log_start);
    } else if (auto ts = int_param(req, "timestamp")) {
      auto o2 = c->offset_for_time(*m, topic, partition, *ts);
      if (!o2) return fail(cluster_failure(o2.error()));
      from = *o2 < 0 ? w.high : *o2;
    } else if (req.get_param_value("from") == "newest") {
      from = std::max(w.log_start, w.high - int64_t(limit));
    }
    json records = json::array();
    std::string end = "high watermark";
    int64_t next = from;
    for (int round = 0; round < kBrowseFetchesMax && next < w.high && records.size() < limit; ++round) {
      auto f = c->fetch(*m, topic, partition, next, kFetchBytes);
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

  Answer<json> groups() const {
    auto c = reader();
    if (!c) return fail(c.error());
    auto m = c->metadata({});
    if (!m) return fail(cluster_failure(m.error()));
    auto g = c->groups(*m);
    if (!g) return fail(cluster_failure(g.error()));
    json out = json::array();
    for (const auto& row : *g) out.push_back({{"group", row[0]}, {"protocol_type", row[1]}, {"state", row[2]}});
    return json{{"groups", std::move(out)}};
  }

  // A group's members and, per partition it committed, the offset, the end and the lag.
  Answer<json> group(const std::string& id) const {
    auto c = reader();
    if (!c) return fail(c.error());
    auto d = c->describe_group(id);
    if (!d) return fail(cluster_failure(d.error()));
    auto offsets = c->group_offsets(id);
    if (!offsets) return fail(cluster_failure(offsets.error()));
    std::vector<std::string> topics;
    for (const auto& o : *offsets) {
      if (topics.empty() || topics.back() != o.topic) topics.push_back(o.topic);
    }
    json parts = json::array();
    int64_t total = 0;
    if (!topics.empty()) {
      auto m = c->metadata(topics);
      if (!m) return fail(cluster_failure(m.error()));
      auto marks = c->watermarks(*m);
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

  Answer<json> create(const json& body) const {
    NewTopic t;
    if (!body.contains("name") || !body["name"].is_string()) return fail(bad_request("name: a string"));
    t.name = body["name"];
    if (body.contains("partitions")) t.partitions = body["partitions"].get<int32_t>();
    if (body.contains("replication_factor")) t.replication_factor = body["replication_factor"].get<int16_t>();
    if (body.contains("configs")) {
      for (const auto& [k, v] : body["configs"].items()) t.configs[k] = v.get<std::string>();
    }
    return run([&t](ClusterReader& c) { return create_topic(c, t); }, {{"created", t.name}});
  }

  Answer<json> remove(const std::string& name) const {
    return run([&name](ClusterReader& c) { return delete_topic(c, name); }, {{"deleted", name}});
  }

  Answer<json> grow(const std::string& name, const json& body) const {
    if (!body.contains("count") || !body["count"].is_number_integer()) return fail(bad_request("count: the new total"));
    const auto count = body["count"].get<int32_t>();
    return run([&](ClusterReader& c) { return add_partitions(c, name, count); }, {{"partitions", count}});
  }

  Answer<json> configure(const std::string& name, const json& body) const {
    if (!body.contains("name") || !body["name"].is_string()) return fail(bad_request("name: the config's name"));
    const std::string key = body["name"];
    std::optional<std::string> value;
    if (body.contains("value") && !body["value"].is_null()) value = body["value"].get<std::string>();
    return run([&](ClusterReader& c) { return alter_topic_config(c, name, key, value); },
               {{"config", key}, {"value", value ? json(*value) : json(nullptr)}});
  }

  Answer<json> forget(const std::string& group) const {
    return run([&group](ClusterReader& c) { return delete_group(c, group); }, {{"deleted", group}});
  }

  // {"topic": T, "to": "earliest" | "latest" | offset, "partition": P (default: all)}.
  Answer<json> reset(const std::string& group, const json& body) const {
    if (!body.contains("topic") || !body["topic"].is_string()) return fail(bad_request("topic: a string"));
    if (!body.contains("to")) return fail(bad_request("to: earliest, latest or an offset"));
    const std::string topic = body["topic"];
    auto c = reader();
    if (!c) return fail(c.error());
    auto m = c->metadata({topic});
    if (!m) return fail(cluster_failure(m.error()));
    if (m->topics.size() != 1 || m->topics[0].error_code != 0) return fail(Failure{404, "no topic " + topic});
    auto marks = c->watermarks(*m);
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
    if (auto done = commit_offsets(*c, group, offsets); !done) return fail(cluster_failure(done.error()));
    json out = json::array();
    for (const auto& o : offsets) out.push_back({{"topic", o.topic}, {"partition", o.partition}, {"offset", o.committed}});
    return json{{"group", group}, {"offsets", std::move(out)}};
  }

 private:
  template <class F>
  Answer<json> run(F&& write, json done) const {
    auto c = reader();
    if (!c) return fail(c.error());
    if (auto r = write(*c); !r) return fail(cluster_failure(r.error()));
    return done;
  }

  static bool contains(const json& v, const std::string& needle) {
    return v.is_object() && v["text"].is_string() && v["text"].get<std::string>().find(needle) != std::string::npos;
  }
  static bool matches(const json& r, const std::string& filter) {
    if (filter.empty() || contains(r["key"], filter) || contains(r["value"], filter)) return true;
    for (const auto& h : r["headers"]) {
      if (contains(h["value"], filter)) return true;
    }
    return false;
  }

  ConsoleTarget target_;
};

void answer(httplib::Response& res, const Answer<json>& a) {
  if (a) {
    res.set_content(a->dump(), kJson);
  } else {
    res.status = a.error().status;
    res.set_content(json{{"error", a.error().message}}.dump(), kJson);
  }
}

std::optional<int32_t> partition_of(const httplib::Request& req) {
  int32_t p = 0;
  const std::string s = req.matches[2];
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), p);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return p;
}

// Writes are refused in read-only mode, and from other sites: a write must come as JSON
// (which a cross-site form cannot send without the browser asking first, a question this
// server never answers) and, when the browser names its origin, from this very host.
std::optional<Failure> refused(const httplib::Request& req, const ConsoleSettings& settings, bool with_body) {
  if (settings.read_only) return Failure{403, "the console is read-only (strata.console.read.only=true)"};
  if (with_body && req.get_header_value("Content-Type").rfind("application/json", 0) != 0) {
    return Failure{415, "a write is sent as application/json"};
  }
  const std::string origin = req.get_header_value("Origin");
  if (!origin.empty() && origin != "http://" + req.get_header_value("Host")) {
    return Failure{403, "a write from another site (" + origin + ") is refused"};
  }
  return std::nullopt;
}

// Runs `write(body)` unless the request is refused or its body is not a JSON object.
template <class F>
void write_route(const httplib::Request& req, httplib::Response& res, const ConsoleSettings& settings, bool with_body,
                 F&& write) {
  if (auto no = refused(req, settings, with_body)) return answer(res, fail(*no));
  json body = json::object();
  if (with_body) {
    body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) return answer(res, fail(bad_request("the body is not a JSON object")));
  }
  try {
    answer(res, write(body));
  } catch (const json::exception& e) {  // a field of the wrong type
    answer(res, fail(bad_request(std::string("bad field: ") + e.what())));
  }
}

}  // namespace

void install_console(httplib::Server& server, ConsoleTarget target, ConsoleSettings settings) {
  auto api = std::make_shared<Api>(std::move(target));
  for (const Asset& a : assets()) {
    server.Get(std::string(a.path), [a](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(a.body), std::string(a.content_type));
    });
  }
  server.Get("/api/settings", [settings](const httplib::Request&, httplib::Response& res) {
    res.set_content(json{{"read_only", settings.read_only}}.dump(), kJson);
  });
  server.Get("/api/cluster", [api](const httplib::Request&, httplib::Response& res) { answer(res, api->cluster()); });
  server.Get("/api/topics", [api](const httplib::Request&, httplib::Response& res) { answer(res, api->topics()); });
  static const std::string kTopic = "([A-Za-z0-9._-]{1,249})";
  server.Get("/api/topics/" + kTopic, [api](const httplib::Request& req, httplib::Response& res) {
    answer(res, api->topic(req.matches[1]));
  });
  // /api/topics/T/partitions/P/batches[?offset=N]: the log's batches from N.
  server.Get("/api/topics/" + kTopic + "/partitions/([0-9]{1,9})/batches",
             [api](const httplib::Request& req, httplib::Response& res) {
               auto p = partition_of(req);
               if (!p) return answer(res, fail(bad_request("bad partition")));
               answer(res, api->batches(req.matches[1], *p, int_param(req, "offset").value_or(0)));
             });
  // /api/topics/T/partitions/P/batches/N: the batch holding offset N, opened.
  server.Get("/api/topics/" + kTopic + "/partitions/([0-9]{1,9})/batches/([0-9]{1,19})",
             [api](const httplib::Request& req, httplib::Response& res) {
               auto p = partition_of(req);
               const std::string s = req.matches[3];
               int64_t offset = 0;
               auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), offset);
               if (!p || ec != std::errc()) return answer(res, fail(bad_request("bad partition or offset")));
               answer(res, api->batch(req.matches[1], *p, offset));
             });
  server.Get("/api/topics/" + kTopic + "/partitions/([0-9]{1,9})/messages",
             [api](const httplib::Request& req, httplib::Response& res) {
               auto p = partition_of(req);
               if (!p) return answer(res, fail(bad_request("bad partition")));
               answer(res, api->messages(req.matches[1], *p, req));
             });
  server.Get("/api/groups", [api](const httplib::Request&, httplib::Response& res) { answer(res, api->groups()); });
  server.Post("/api/topics", [api, settings](const httplib::Request& req, httplib::Response& res) {
    write_route(req, res, settings, true, [&](const json& b) { return api->create(b); });
  });
  server.Delete("/api/topics/" + kTopic, [api, settings](const httplib::Request& req, httplib::Response& res) {
    write_route(req, res, settings, false, [&](const json&) { return api->remove(req.matches[1]); });
  });
  server.Post("/api/topics/" + kTopic + "/partitions", [api, settings](const httplib::Request& req, httplib::Response& res) {
    write_route(req, res, settings, true, [&](const json& b) { return api->grow(req.matches[1], b); });
  });
  server.Post("/api/topics/" + kTopic + "/configs", [api, settings](const httplib::Request& req, httplib::Response& res) {
    write_route(req, res, settings, true, [&](const json& b) { return api->configure(req.matches[1], b); });
  });
  server.Delete("/api/group", [api, settings](const httplib::Request& req, httplib::Response& res) {
    write_route(req, res, settings, false, [&](const json&) -> Answer<json> {
      if (!req.has_param("id")) return fail(bad_request("no id"));
      return api->forget(req.get_param_value("id"));
    });
  });
  server.Post("/api/group/offsets", [api, settings](const httplib::Request& req, httplib::Response& res) {
    write_route(req, res, settings, true, [&](const json& b) -> Answer<json> {
      if (!req.has_param("id")) return fail(bad_request("no id"));
      return api->reset(req.get_param_value("id"), b);
    });
  });
  // /api/group?id=G: a group id may hold any character, so it is a parameter.
  server.Get("/api/group", [api](const httplib::Request& req, httplib::Response& res) {
    if (!req.has_param("id")) return answer(res, fail(bad_request("no id")));
    answer(res, api->group(req.get_param_value("id")));
  });
}

}  // namespace strata::console

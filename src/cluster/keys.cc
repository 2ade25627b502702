#include "cluster/keys.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace strata::cluster {

using nlohmann::json;

namespace {

// JSON text of `j`; bytes that are not UTF-8 are replaced, never thrown about.
std::string text_of(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Bounds on what a value may claim, so a hostile or corrupt key cannot make a broker
// allocate without limit: Kafka's own limits are far below these.
constexpr size_t kPartitionsMax = 1'000'000;
constexpr size_t kReplicasMax = 1'000;
constexpr size_t kEndpointsMax = 64;
constexpr size_t kConfigsMax = 1'000;

Result<json, std::string> object_of(std::string_view text, const char* what) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail(std::string(what) + ": not a JSON object");
  return j;
}

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// An integer field written as a number or, as Kafka writes timestamps, a string.
Result<int64_t, std::string> int_field(const json& j, const char* name, const char* what,
                                       std::optional<int64_t> missing = std::nullopt) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) {
    if (missing) return *missing;
    return fail(std::string(what) + ": no '" + name + "'");
  }
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_string()) {
    if (auto v = parse_int(it->get_ref<const std::string&>())) return *v;
  }
  return fail(std::string(what) + ": '" + name + "' is not an integer");
}

Result<int32_t, std::string> int32_field(const json& j, const char* name, const char* what,
                                         std::optional<int64_t> missing = std::nullopt) {
  auto v = int_field(j, name, what, missing);
  if (!v) return fail(v.error());
  if (*v < INT32_MIN || *v > INT32_MAX)
    return fail(std::string(what) + ": '" + name + "' out of range");
  return int32_t(*v);
}

Result<std::vector<int32_t>, std::string> node_list(const json& j, const char* what) {
  if (!j.is_array()) return fail(std::string(what) + ": a replica list is not an array");
  if (j.size() > kReplicasMax) return fail(std::string(what) + ": too many replicas");
  std::vector<int32_t> out;
  out.reserve(j.size());
  for (const json& e : j) {
    if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > INT32_MAX) {
      return fail(std::string(what) + ": a node id is not a non-negative integer");
    }
    out.push_back(int32_t(e.get<int64_t>()));
  }
  return out;
}

// "PLAINTEXT://host:port" (IPv6 hosts in brackets).
std::optional<Endpoint> parse_endpoint(std::string_view text) {
  const size_t sep = text.find("://");
  const size_t colon = text.rfind(':');
  if (sep == std::string_view::npos || colon == std::string_view::npos || colon <= sep + 2)
    return std::nullopt;
  Endpoint e;
  e.listener = std::string(text.substr(0, sep));
  e.host = std::string(text.substr(sep + 3, colon - sep - 3));
  if (e.host.size() >= 2 && e.host.front() == '[' && e.host.back() == ']')
    e.host = e.host.substr(1, e.host.size() - 2);
  auto port = parse_int(text.substr(colon + 1));
  if (!port || *port <= 0 || *port > 65535) return std::nullopt;
  e.port = int32_t(*port);
  return e;
}

std::string endpoint_text(const Endpoint& e) {
  const bool v6 = e.host.find(':') != std::string::npos;
  return e.listener + "://" + (v6 ? "[" + e.host + "]" : e.host) + ":" + std::to_string(e.port);
}

}  // namespace

Keys::Parsed Keys::parse(std::string_view key) const {
  Parsed p;
  if (key.substr(0, root_.size()) != root_) return p;
  std::string_view rest = key.substr(root_.size());
  auto starts = [&rest](std::string_view prefix) {
    if (rest.substr(0, prefix.size()) != prefix) return false;
    rest.remove_prefix(prefix.size());
    return true;
  };
  if (rest == "/cluster/id") {
    p.kind = Parsed::Kind::kClusterId;
  } else if (rest == "/controller") {
    p.kind = Parsed::Kind::kController;
  } else if (rest == "/latest_producer_id_block") {
    p.kind = Parsed::Kind::kProducerIds;
  } else if (starts("/brokers/ids/")) {
    auto id = parse_int(rest);
    if (id && *id >= 0 && *id <= INT32_MAX) {
      p.kind = Parsed::Kind::kBroker;
      p.node_id = int32_t(*id);
    }
  } else if (starts("/config/topics/")) {
    if (!rest.empty() && rest.find('/') == std::string_view::npos) {
      p.kind = Parsed::Kind::kTopicConfig;
      p.topic = std::string(rest);
    }
  } else if (starts("/config/brokers/")) {
    auto id = parse_int(rest);
    if (rest == kDefaultEntity || (id && *id >= 0 && *id <= INT32_MAX)) {
      p.kind = Parsed::Kind::kBrokerConfig;
      p.entity = std::string(rest);
    }
  } else if (starts("/brokers/topics/")) {
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) {
      if (!rest.empty()) {
        p.kind = Parsed::Kind::kTopic;
        p.topic = std::string(rest);
      }
      return p;
    }
    std::string_view topic = rest.substr(0, slash);
    rest.remove_prefix(slash);
    if (topic.empty() || !starts("/partitions/")) return p;
    const size_t end = rest.find('/');
    if (end == std::string_view::npos || rest.substr(end) != "/state") return p;
    auto part = parse_int(rest.substr(0, end));
    if (part && *part >= 0 && *part < int64_t(kPartitionsMax)) {
      p.kind = Parsed::Kind::kPartitionState;
      p.topic = std::string(topic);
      p.partition = int32_t(*part);
    }
  }
  return p;
}

std::string encode_registration(const BrokerRegistration& r) {
  json endpoints = json::array();
  json protocols = json::object();
  for (const Endpoint& e : r.endpoints) {
    endpoints.push_back(endpoint_text(e));
    protocols[e.listener] = e.listener;
  }
  const Endpoint first = r.endpoints.empty() ? Endpoint{} : r.endpoints.front();
  json j{{"version", 5},
         {"host", first.host},
         {"port", first.port},
         {"endpoints", endpoints},
         {"listener_security_protocol_map", protocols},
         {"rack", r.rack ? json(*r.rack) : json(nullptr)},
         {"timestamp", std::to_string(r.timestamp_ms)},
         {"directory_id", r.directory_id}};
  return text_of(j);
}

Result<BrokerRegistration, std::string> decode_registration(int32_t node_id,
                                                            std::string_view text) {
  constexpr const char* what = "broker registration";
  auto j = object_of(text, what);
  if (!j) return fail(j.error());
  BrokerRegistration r;
  r.node_id = node_id;
  auto endpoints = j->find("endpoints");
  if (endpoints == j->end() || !endpoints->is_array() || endpoints->empty()) {
    return fail(std::string(what) + ": no endpoints");
  }
  if (endpoints->size() > kEndpointsMax) return fail(std::string(what) + ": too many endpoints");
  for (const json& e : *endpoints) {
    auto parsed = e.is_string() ? parse_endpoint(e.get_ref<const std::string&>()) : std::nullopt;
    if (!parsed) return fail(std::string(what) + ": an endpoint is not LISTENER://host:port");
    r.endpoints.push_back(std::move(*parsed));
  }
  if (auto rack = j->find("rack"); rack != j->end() && rack->is_string())
    r.rack = rack->get<std::string>();
  auto ts = int_field(*j, "timestamp", what, 0);
  if (!ts) return fail(ts.error());
  r.timestamp_ms = *ts;
  if (auto d = j->find("directory_id"); d != j->end() && d->is_string())
    r.directory_id = d->get<std::string>();
  return r;
}

std::string encode_controller(const ControllerRecord& c) {
  return text_of(json{{"version", 2},
                      {"brokerid", c.broker_id},
                      {"timestamp", std::to_string(c.timestamp_ms)},
                      {"broker_epoch", c.broker_epoch}});
}

Result<ControllerRecord, std::string> decode_controller(std::string_view text) {
  constexpr const char* what = "controller";
  auto j = object_of(text, what);
  if (!j) return fail(j.error());
  ControllerRecord c;
  auto id = int32_field(*j, "brokerid", what);
  if (!id) return fail(id.error());
  if (*id < 0) return fail(std::string(what) + ": negative brokerid");
  c.broker_id = *id;
  auto epoch = int_field(*j, "broker_epoch", what, 0);
  if (!epoch) return fail(epoch.error());
  c.broker_epoch = *epoch;
  auto ts = int_field(*j, "timestamp", what, 0);
  if (!ts) return fail(ts.error());
  c.timestamp_ms = *ts;
  return c;
}

std::string encode_cluster_id(std::string_view id) {
  return text_of(json{{"version", "1"}, {"id", std::string(id)}});
}

Result<std::string, std::string> decode_cluster_id(std::string_view text) {
  auto j = object_of(text, "cluster id");
  if (!j) return fail(j.error());
  auto id = j->find("id");
  if (id == j->end() || !id->is_string() || id->get_ref<const std::string&>().empty() ||
      id->get_ref<const std::string&>().size() > 64) {
    return fail(std::string("cluster id: no 'id'"));
  }
  return id->get<std::string>();
}

std::string encode_assignment(const TopicAssignment& a) {
  json partitions = json::object();
  for (size_t p = 0; p < a.replicas.size(); ++p) partitions[std::to_string(p)] = a.replicas[p];
  auto by_partition = [](const std::map<int32_t, std::vector<int32_t>>& m) {
    json o = json::object();
    for (const auto& [p, nodes] : m) o[std::to_string(p)] = nodes;
    return o;
  };
  return text_of(json{{"version", 3},
                      {"topic_id", a.topic_id},
                      {"partitions", partitions},
                      {"adding_replicas", by_partition(a.adding)},
                      {"removing_replicas", by_partition(a.removing)}});
}

namespace {

// `adding_replicas` / `removing_replicas`: {"p": [nodes]} for partitions of the topic;
// absent is empty (Kafka's older znode versions).
Result<std::map<int32_t, std::vector<int32_t>>, std::string> moving_replicas(const json& j, const char* field,
                                                                            size_t partitions) {
  std::map<int32_t, std::vector<int32_t>> out;
  auto m = j.find(field);
  if (m == j.end() || m->is_null()) return out;
  if (!m->is_object()) return fail(std::string("topic assignment: ") + field + " is not an object");
  for (auto it = m->begin(); it != m->end(); ++it) {
    auto p = parse_int(it.key());
    if (!p || *p < 0 || size_t(*p) >= partitions) {
      return fail(std::string("topic assignment: ") + field + " names partition " + it.key());
    }
    auto nodes = node_list(it.value(), field);
    if (!nodes) return fail(nodes.error());
    out[int32_t(*p)] = std::move(*nodes);
  }
  return out;
}

}  // namespace

// The partitions are "0".."n-1", each once (a gap is a corrupt assignment).
Result<TopicAssignment, std::string> decode_assignment(std::string_view text) {
  constexpr const char* what = "topic assignment";
  auto j = object_of(text, what);
  if (!j) return fail(j.error());
  TopicAssignment a;
  if (auto id = j->find("topic_id"); id != j->end() && id->is_string())
    a.topic_id = id->get<std::string>();
  auto parts = j->find("partitions");
  if (parts == j->end() || !parts->is_object()) return fail(std::string(what) + ": no partitions");
  if (parts->size() > kPartitionsMax) return fail(std::string(what) + ": too many partitions");
  a.replicas.resize(parts->size());
  std::vector<bool> seen(parts->size(), false);
  for (auto it = parts->begin(); it != parts->end(); ++it) {
    auto p = parse_int(it.key());
    if (!p || *p < 0 || size_t(*p) >= a.replicas.size() || seen[size_t(*p)]) {
      return fail(std::string(what) + ": partitions are not 0.." +
                  std::to_string(a.replicas.size() - 1));
    }
    auto nodes = node_list(it.value(), what);
    if (!nodes) return fail(nodes.error());
    if (nodes->empty()) return fail(std::string(what) + ": a partition without replicas");
    seen[size_t(*p)] = true;
    a.replicas[size_t(*p)] = std::move(*nodes);
  }
  auto adding = moving_replicas(*j, "adding_replicas", a.replicas.size());
  if (!adding) return fail(adding.error());
  auto removing = moving_replicas(*j, "removing_replicas", a.replicas.size());
  if (!removing) return fail(removing.error());
  a.adding = std::move(*adding);
  a.removing = std::move(*removing);
  return a;
}

std::string encode_partition_state(const PartitionState& s) {
  return text_of(json{{"controller_epoch", s.controller_epoch},
                      {"leader", s.leader},
                      {"version", 1},
                      {"leader_epoch", s.leader_epoch},
                      {"isr", s.isr},
                      {"partition_epoch", s.partition_epoch}});
}

Result<PartitionState, std::string> decode_partition_state(std::string_view text) {
  constexpr const char* what = "partition state";
  auto j = object_of(text, what);
  if (!j) return fail(j.error());
  PartitionState s;
  auto leader = int32_field(*j, "leader", what);
  if (!leader) return fail(leader.error());
  if (*leader < -1) return fail(std::string(what) + ": leader below -1");
  s.leader = *leader;
  auto epoch = int32_field(*j, "leader_epoch", what);
  if (!epoch) return fail(epoch.error());
  if (*epoch < 0) return fail(std::string(what) + ": negative leader_epoch");
  s.leader_epoch = *epoch;
  auto pe = int32_field(*j, "partition_epoch", what, 0);
  if (!pe) return fail(pe.error());
  s.partition_epoch = *pe;
  auto ce = int_field(*j, "controller_epoch", what, 0);
  if (!ce) return fail(ce.error());
  s.controller_epoch = *ce;
  auto isr = j->find("isr");
  if (isr == j->end()) return fail(std::string(what) + ": no isr");
  auto nodes = node_list(*isr, what);
  if (!nodes) return fail(nodes.error());
  s.isr = std::move(*nodes);
  return s;
}

std::string encode_producer_id_block(const ProducerIdBlock& b) {
  return text_of(json{{"version", 1},
                      {"broker", b.broker},
                      {"block_start", std::to_string(b.start)},
                      {"block_end", std::to_string(b.end)}});
}

Result<ProducerIdBlock, std::string> decode_producer_id_block(std::string_view text) {
  constexpr const char* what = "producer id block";
  auto j = object_of(text, what);
  if (!j) return fail(j.error());
  ProducerIdBlock b;
  auto broker = int32_field(*j, "broker", what, -1);
  if (!broker) return fail(broker.error());
  b.broker = *broker;
  auto start = int_field(*j, "block_start", what);
  if (!start) return fail(start.error());
  auto end = int_field(*j, "block_end", what);
  if (!end) return fail(end.error());
  if (*start < 0 || *end < *start - 1) return fail(std::string(what) + ": a bad range");
  b.start = *start;
  b.end = *end;
  return b;
}

std::string encode_topic_config(const std::map<std::string, std::string>& configs) {
  return text_of(json{{"version", 1}, {"config", configs}});
}

Result<std::map<std::string, std::string>, std::string> decode_topic_config(std::string_view text) {
  constexpr const char* what = "topic config";
  auto j = object_of(text, what);
  if (!j) return fail(j.error());
  std::map<std::string, std::string> out;
  auto c = j->find("config");
  if (c == j->end() || c->is_null()) return out;
  if (!c->is_object()) return fail(std::string(what) + ": 'config' is not an object");
  if (c->size() > kConfigsMax) return fail(std::string(what) + ": too many entries");
  for (auto it = c->begin(); it != c->end(); ++it) {
    if (!it.value().is_string())
      return fail(std::string(what) + ": '" + it.key() + "' is not a string");
    out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

}  // namespace strata::cluster

#include "cluster/etcd_json.h"

#include <charconv>
#include <nlohmann/json.hpp>

#include "cluster/base64.h"

namespace strata::cluster {

using nlohmann::json;

namespace {

// JSON text of `j`; bytes that are not UTF-8 are replaced, never thrown about.
std::string text_of(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Reads an int64 the gateway wrote as a string (its int64 mapping) or as a number; 0
// when absent (a zero field is left out).
Result<int64_t, std::string> int64_field(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return int64_t{0};
  if (it->is_number_integer()) return it->get<int64_t>();
  if (!it->is_string()) return fail(std::string("etcd: field '") + name + "' is not an integer");
  const std::string& s = it->get_ref<const std::string&>();
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) {
    return fail(std::string("etcd: field '") + name + "' is not an integer: '" + s + "'");
  }
  return v;
}

bool bool_field(const json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::string string_field(const json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Result<std::string, std::string> bytes_field(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return std::string();
  if (!it->is_string()) return fail(std::string("etcd: field '") + name + "' is not base64 text");
  auto decoded = base64_decode(it->get_ref<const std::string&>());
  if (!decoded) return fail(std::string("etcd: field '") + name + "': " + decoded.error());
  return std::move(*decoded);
}

bool is_error_object(const json& j) {
  return j.is_object() && (j.contains("error") || (j.contains("code") && j.contains("message")));
}

// Unary answers carry {"error": text, "message": text}; a stream ends with {"error":
// {"message": text, ...}} (a member without a leader: "etcdserver: no leader").
std::string error_text(const json& j) {
  std::string message = string_field(j, "message");
  if (message.empty()) message = string_field(j, "error");
  if (auto e = j.find("error"); message.empty() && e != j.end() && e->is_object()) {
    message = string_field(*e, "message");
  }
  if (message.empty()) message = "an error without a message";
  return message;
}

// The object of a parsed body, or the reason it is not one (the gateway's error object
// included).
Result<json, std::string> parse_object(std::string_view body) {
  json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail(std::string("etcd: the answer is not a JSON object"));
  if (is_error_object(j)) return fail("etcd: " + error_text(j));
  return j;
}

Result<KeyValue, std::string> parse_kv(const json& j) {
  if (!j.is_object()) return fail(std::string("etcd: a key-value is not an object"));
  KeyValue kv;
  auto key = bytes_field(j, "key");
  if (!key) return fail(key.error());
  auto value = bytes_field(j, "value");
  if (!value) return fail(value.error());
  kv.key = std::move(*key);
  kv.value = std::move(*value);
  for (auto [name, field] : {std::pair{"create_revision", &kv.create_revision},
                             std::pair{"mod_revision", &kv.mod_revision},
                             std::pair{"version", &kv.version}, std::pair{"lease", &kv.lease}}) {
    auto v = int64_field(j, name);
    if (!v) return fail(v.error());
    *field = *v;
  }
  return kv;
}

Result<int64_t, std::string> header_revision(const json& j) {
  auto it = j.find("header");
  if (it == j.end() || !it->is_object()) return int64_t{0};
  return int64_field(*it, "revision");
}

Result<RangeResult, std::string> range_of(const json& j) {
  RangeResult r;
  auto rev = header_revision(j);
  if (!rev) return fail(rev.error());
  r.revision = *rev;
  auto count = int64_field(j, "count");
  if (!count) return fail(count.error());
  r.count = *count;
  r.more = bool_field(j, "more");
  if (auto it = j.find("kvs"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return fail(std::string("etcd: 'kvs' is not an array"));
    r.kvs.reserve(it->size());
    for (const json& e : *it) {
      auto kv = parse_kv(e);
      if (!kv) return fail(kv.error());
      r.kvs.push_back(std::move(*kv));
    }
  }
  return r;
}

const char* target_name(Compare::Target t) {
  switch (t) {
    case Compare::Target::kVersion:
      return "VERSION";
    case Compare::Target::kCreate:
      return "CREATE";
    case Compare::Target::kMod:
      return "MOD";
    case Compare::Target::kValue:
      return "VALUE";
  }
  return "VERSION";
}

const char* result_name(Compare::Result r) {
  switch (r) {
    case Compare::Result::kEqual:
      return "EQUAL";
    case Compare::Result::kGreater:
      return "GREATER";
    case Compare::Result::kLess:
      return "LESS";
    case Compare::Result::kNotEqual:
      return "NOT_EQUAL";
  }
  return "EQUAL";
}

json compare_json(const Compare& c) {
  json j{{"key", base64_encode(c.key)},
         {"target", target_name(c.target)},
         {"result", result_name(c.result)}};
  switch (c.target) {
    case Compare::Target::kVersion:
      j["version"] = std::to_string(c.number);
      break;
    case Compare::Target::kCreate:
      j["create_revision"] = std::to_string(c.number);
      break;
    case Compare::Target::kMod:
      j["mod_revision"] = std::to_string(c.number);
      break;
    case Compare::Target::kValue:
      j["value"] = base64_encode(c.value);
      break;
  }
  return j;
}

json op_json(const Op& op) {
  json body{{"key", base64_encode(op.key)}};
  switch (op.kind) {
    case Op::Kind::kPut:
      body["value"] = base64_encode(op.value);
      if (op.lease != 0) body["lease"] = std::to_string(op.lease);
      return json{{"request_put", body}};
    case Op::Kind::kRange:
      if (!op.range_end.empty()) body["range_end"] = base64_encode(op.range_end);
      return json{{"request_range", body}};
    case Op::Kind::kDelete:
      if (!op.range_end.empty()) body["range_end"] = base64_encode(op.range_end);
      return json{{"request_delete_range", body}};
  }
  return body;
}

json ops_json(const std::vector<Op>& ops) {
  json a = json::array();
  for (const Op& op : ops) a.push_back(op_json(op));
  return a;
}

}  // namespace

std::string prefix_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key: etcd's "\0" range end
}

std::string range_body(std::string_view key, std::string_view range_end, int64_t revision) {
  json j{{"key", base64_encode(key)}};
  if (!range_end.empty()) j["range_end"] = base64_encode(range_end);
  if (revision > 0) j["revision"] = std::to_string(revision);
  return text_of(j);
}

std::string txn_body(const TxnRequest& txn) {
  json compare = json::array();
  for (const Compare& c : txn.compare) compare.push_back(compare_json(c));
  json j{
      {"compare", compare}, {"success", ops_json(txn.success)}, {"failure", ops_json(txn.failure)}};
  return text_of(j);
}

std::string lease_grant_body(int64_t ttl_s) {
  return text_of(json{{"TTL", std::to_string(ttl_s)}});
}

std::string lease_id_body(int64_t id) {
  return text_of(json{{"ID", std::to_string(id)}});
}

std::string watch_body(std::string_view key, std::string_view range_end, int64_t start_revision) {
  // progress_notify: an idle watch still hears from etcd now and then (its interval is
  // the server's, 10 minutes by default), which tells a live stream from a dead one.
  json create{{"key", base64_encode(key)}, {"prev_kv", false}, {"progress_notify", true}};
  if (!range_end.empty()) create["range_end"] = base64_encode(range_end);
  if (start_revision > 0) create["start_revision"] = std::to_string(start_revision);
  return text_of(json{{"create_request", create}});
}

Result<RangeResult, std::string> parse_range(std::string_view body) {
  auto j = parse_object(body);
  if (!j) return fail(j.error());
  return range_of(*j);
}

Result<TxnResult, std::string> parse_txn(std::string_view body) {
  auto j = parse_object(body);
  if (!j) return fail(j.error());
  TxnResult t;
  auto rev = header_revision(*j);
  if (!rev) return fail(rev.error());
  t.revision = *rev;
  t.succeeded = bool_field(*j, "succeeded");
  if (auto it = j->find("responses"); it != j->end() && !it->is_null()) {
    if (!it->is_array()) return fail(std::string("etcd: 'responses' is not an array"));
    for (const json& r : *it) {
      if (!r.is_object()) return fail(std::string("etcd: a txn response is not an object"));
      auto range = r.find("response_range");
      if (range == r.end()) continue;
      auto rr = range_of(*range);
      if (!rr) return fail(rr.error());
      t.ranges.push_back(std::move(*rr));
    }
  }
  return t;
}

Result<LeaseGrant, std::string> parse_lease_grant(std::string_view body) {
  auto j = parse_object(body);
  if (!j) return fail(j.error());
  auto id = int64_field(*j, "ID");
  if (!id) return fail(id.error());
  auto ttl = int64_field(*j, "TTL");
  if (!ttl) return fail(ttl.error());
  if (*id == 0) return fail(std::string("etcd: lease grant without an ID"));
  return LeaseGrant{*id, *ttl};
}

Result<int64_t, std::string> parse_keepalive(std::string_view body) {
  auto j = parse_object(body);
  if (!j) return fail(j.error());
  const json* r = &*j;
  if (auto it = j->find("result"); it != j->end() && it->is_object()) r = &*it;
  return int64_field(*r, "TTL");
}

Result<WatchMessage, std::string> parse_watch_message(std::string_view line) {
  auto j = parse_object(line);
  if (!j) return fail(j.error());
  auto it = j->find("result");
  if (it == j->end() || !it->is_object())
    return fail(std::string("etcd: a watch message without 'result'"));
  const json& r = *it;
  WatchMessage m;
  auto rev = header_revision(r);
  if (!rev) return fail(rev.error());
  m.revision = *rev;
  m.created = bool_field(r, "created");
  m.canceled = bool_field(r, "canceled");
  auto compact = int64_field(r, "compact_revision");
  if (!compact) return fail(compact.error());
  m.compact_revision = *compact;
  m.cancel_reason = string_field(r, "cancel_reason");
  if (auto ev = r.find("events"); ev != r.end() && !ev->is_null()) {
    if (!ev->is_array()) return fail(std::string("etcd: 'events' is not an array"));
    for (const json& e : *ev) {
      if (!e.is_object()) return fail(std::string("etcd: an event is not an object"));
      WatchEvent w;
      w.is_delete = string_field(e, "type") == "DELETE";
      auto kv = e.find("kv");
      if (kv == e.end()) return fail(std::string("etcd: an event without 'kv'"));
      auto parsed = parse_kv(*kv);
      if (!parsed) return fail(parsed.error());
      w.kv = std::move(*parsed);
      m.events.push_back(std::move(w));
    }
  }
  return m;
}

bool is_complete_json(std::string_view body) {
  return json::accept(body.begin(), body.end());
}

std::optional<std::string> gateway_error_object(std::string_view body) {
  json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded() || !is_error_object(j)) return std::nullopt;
  return "etcd: " + error_text(j);
}

}  // namespace strata::cluster

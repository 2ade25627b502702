#include "broker/security_config.h"

#include <algorithm>
#include <charconv>

#include "broker/config_admin.h"
#include "broker/config_values.h"
#include "common/ascii.h"

namespace strata::broker {
namespace {


std::optional<net::SecurityProtocol> protocol_of(const std::string& name) {
  if (name == "PLAINTEXT") return net::SecurityProtocol::kPlaintext;
  if (name == "SSL") return net::SecurityProtocol::kSsl;
  if (name == "SASL_PLAINTEXT") return net::SecurityProtocol::kSaslPlaintext;
  if (name == "SASL_SSL") return net::SecurityProtocol::kSaslSsl;
  return std::nullopt;
}

// listener.security.protocol.map: "NAME:PROTOCOL,..." (Kafka's default maps each
// protocol's own name to itself).
Result<std::map<std::string, net::SecurityProtocol>, std::string> parse_protocol_map(const std::string& v) {
  std::map<std::string, net::SecurityProtocol> out;
  for (const char* p : {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}) out[p] = *protocol_of(p);
  for (const std::string& entry : split_list(v)) {
    const auto colon = entry.find(':');
    if (colon == std::string::npos) return fail("listener.security.protocol.map: expected NAME:PROTOCOL: " + entry);
    const auto proto = protocol_of(trim_blanks(entry.substr(colon + 1)));
    if (!proto) return fail("listener.security.protocol.map: unknown security protocol in " + entry);
    out[trim_blanks(entry.substr(0, colon))] = *proto;
  }
  return out;
}

// "NAME://host:port,..." with each name's protocol from the map; names unique.
Result<std::vector<ListenerSpec>, std::string> parse_listeners(
    const std::string& key, const std::string& v, const std::map<std::string, net::SecurityProtocol>& map) {
  std::vector<ListenerSpec> out;
  for (const std::string& entry : split_list(v)) {
    const auto scheme = entry.find("://");
    if (scheme == std::string::npos) return fail(key + ": expected NAME://host:port: " + entry);
    ListenerSpec l;
    l.name = entry.substr(0, scheme);
    const auto proto = map.find(l.name);
    if (proto == map.end()) {
      return fail(key + ": listener " + l.name + " has no security protocol (listener.security.protocol.map)");
    }
    l.protocol = proto->second;
    const std::string hostport = entry.substr(scheme + 3);
    const auto colon = hostport.rfind(':');
    if (colon == std::string::npos) return fail(key + ": missing port: " + entry);
    l.host = hostport.substr(0, colon);
    if (l.host.size() > 2 && l.host.front() == '[' && l.host.back() == ']') l.host = l.host.substr(1, l.host.size() - 2);
    if (l.host.empty()) l.host = "0.0.0.0";  // every interface, as Kafka binds an empty host
    int32_t port = -1;
    const std::string p = hostport.substr(colon + 1);
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (ec != std::errc() || end != p.data() + p.size() || port < 0 || port > 65535) {
      return fail(key + ": bad port: " + entry);
    }
    l.port = uint16_t(port);
    for (const ListenerSpec& other : out) {
      if (other.name == l.name) return fail(key + ": listener " + l.name + " named twice");
    }
    out.push_back(std::move(l));
  }
  if (out.empty()) return fail(key + ": no listener: " + v);
  return out;
}

}  // namespace

std::string protocol_name(net::SecurityProtocol p) {
  switch (p) {
    case net::SecurityProtocol::kPlaintext: return "PLAINTEXT";
    case net::SecurityProtocol::kSsl: return "SSL";
    case net::SecurityProtocol::kSaslPlaintext: return "SASL_PLAINTEXT";
    case net::SecurityProtocol::kSaslSsl: return "SASL_SSL";
  }
  return "PLAINTEXT";
}

bool is_security_setting(const std::string& key) {
  static const char* const kExact[] = {
      "listeners", "advertised.listeners", "listener.security.protocol.map",
      "inter.broker.listener.name", "security.inter.broker.protocol", "connections.max.reauth.ms",
      "connection.failed.authentication.delay.ms", "super.users", "authorizer.class.name",
      "allow.everyone.if.no.acl.found"};
  for (const char* k : kExact) {
    if (key == k) return true;
  }
  return key.starts_with("ssl.") || key.starts_with("sasl.") || key.starts_with("listener.name.");
}

Result<void, std::string> apply_security_settings(const std::map<std::string, std::string>& props,
                                                  SecurityConfig& out) {
  std::string map_text;
  if (auto it = props.find("listener.security.protocol.map"); it != props.end()) map_text = it->second;
  auto map = parse_protocol_map(map_text);
  if (!map) return fail(map.error());
  for (const auto& [key, value] : props) {
    if (!is_security_setting(key)) continue;
    if (key == "listeners") {
      auto l = parse_listeners(key, value, *map);
      if (!l) return fail(l.error());
      out.listeners = std::move(*l);
    } else if (key == "advertised.listeners") {
      auto l = parse_listeners(key, value, *map);
      if (!l) return fail(l.error());
      out.advertised = std::move(*l);
    } else if (key == "inter.broker.listener.name") {
      out.inter_broker_listener = trim_blanks(value);
    } else if (key == "security.inter.broker.protocol") {
      if (!protocol_of(trim_blanks(value))) return fail(key + ": unknown security protocol " + value);
      if (out.inter_broker_listener.empty()) out.inter_broker_listener = trim_blanks(value);
    } else if (key == "connections.max.reauth.ms") {
      if (auto r = to_at_least<int64_t>(key, value, out.connections_max_reauth_ms, 0); !r) return r;
    } else if (key == "sasl.server.max.receive.size") {
      if (auto r = to_at_least<int32_t>(key, value, out.sasl_server_max_receive_size, 1); !r) return r;
    } else if (key == "connection.failed.authentication.delay.ms") {
      if (auto r = to_at_least<int32_t>(key, value, out.failed_authentication_delay_ms, 0); !r) return r;
    } else {
      out.settings[key] = value;
    }
  }
  for (const ListenerSpec& a : out.advertised) {
    const bool known = std::any_of(out.listeners.begin(), out.listeners.end(),
                                   [&](const ListenerSpec& l) { return l.name == a.name; });
    if (!known) return fail("advertised.listeners: " + a.name + " is not in listeners");
  }
  if (!out.inter_broker_listener.empty()) {
    const bool known = std::any_of(out.listeners.begin(), out.listeners.end(), [&](const ListenerSpec& l) {
      return l.name == out.inter_broker_listener;
    });
    if (!known) return fail("inter.broker.listener.name: " + out.inter_broker_listener + " is not in listeners");
  }
  return {};
}

std::optional<std::string> SecurityConfig::value(const std::string& listener, const std::string& key) const {
  if (auto it = settings.find("listener.name." + ascii_lower(listener) + "." + key); it != settings.end()) {
    return it->second;
  }
  if (auto it = settings.find(key); it != settings.end()) return it->second;
  return std::nullopt;
}

std::string SecurityConfig::value_or(const std::string& listener, const std::string& key,
                                     const std::string& fallback) const {
  return value(listener, key).value_or(fallback);
}

ListenerSpec SecurityConfig::advertised_for(const ListenerSpec& l, uint16_t bound_port) const {
  for (const ListenerSpec& a : advertised) {
    if (a.name == l.name) return a;
  }
  ListenerSpec self = l;
  self.port = bound_port;
  return self;
}

const ListenerSpec& SecurityConfig::inter_broker() const {
  for (const ListenerSpec& l : listeners) {
    if (l.name == inter_broker_listener) return l;
  }
  return listeners.front();
}

}  // namespace strata::broker

// The broker's listeners and their security, in Kafka's names: listeners,
// advertised.listeners, listener.security.protocol.map, inter.broker.listener.name, and
// the ssl.* / sasl.* settings, each also settable per listener as
// listener.name.<listener>.<setting> (the listener's name in lower case, as Kafka writes
// it). Parsed here, turned into TLS contexts and SASL mechanisms by broker/security.cc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "net/session.h"

namespace strata::broker {

struct ListenerSpec {
  std::string name;  // upper case, as in listeners=
  net::SecurityProtocol protocol = net::SecurityProtocol::kPlaintext;
  std::string host;
  uint16_t port = 0;
};

struct SecurityConfig {
  // listeners (Kafka's default here: PLAINTEXT://127.0.0.1:9092, the embedded node).
  std::vector<ListenerSpec> listeners{{"PLAINTEXT", net::SecurityProtocol::kPlaintext, "127.0.0.1", 9092}};
  // advertised.listeners; a listener not named here advertises its own host and port.
  std::vector<ListenerSpec> advertised;
  // inter.broker.listener.name (or security.inter.broker.protocol's name); empty: the first
  // listener.
  std::string inter_broker_listener;
  // connections.max.reauth.ms (KIP-368; 0: sessions never expire).
  int64_t connections_max_reauth_ms = 0;
  // sasl.server.max.receive.size: frames before authentication.
  int32_t sasl_server_max_receive_size = 524288;
  // connection.failed.authentication.delay.ms: a failed authentication is answered this
  // much later (and the connection then closed), so password guessing is slow.
  int32_t failed_authentication_delay_ms = 100;
  // Every other ssl.*, sasl.* and listener.name.* setting as written.
  std::map<std::string, std::string> settings;

  // `key` for listener `listener`: listener.name.<listener lower case>.<key>, else `key`.
  std::optional<std::string> value(const std::string& listener, const std::string& key) const;
  std::string value_or(const std::string& listener, const std::string& key,
                       const std::string& fallback) const;
  // The listener advertised for `name` (its advertised.listeners entry, else itself with
  // `bound_port` when it was bound to port 0).
  ListenerSpec advertised_for(const ListenerSpec& l, uint16_t bound_port) const;
  const ListenerSpec& inter_broker() const;
};

// True for the keys SecurityConfig takes; apply_security_setting stores them.
bool is_security_setting(const std::string& key);
Result<void, std::string> apply_security_settings(const std::map<std::string, std::string>& props,
                                                  SecurityConfig& out);

std::string protocol_name(net::SecurityProtocol p);

}  // namespace strata::broker

// The broker's listeners and their security at start-up: a net::Listener per entry of
// `listeners` (TLS listeners with their context source and certificate principals), the
// SCRAM store (the log dir's file, or etcd in a cluster) and the SASL mechanisms.
#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/authorizer.h"
#include "broker/inter_broker_security.h"
#include "broker/sasl.h"
#include "broker/scram_store.h"
#include "broker/tls_context.h"
#include "cluster/node.h"
#include "common/log_limit.h"
#include "security/principal_rules.h"

namespace strata::broker {

namespace {

// ssl.principal.mapping.rules of a TLS listener: a certificate subject to "User:<name>";
// empty when no rule matches (the connection is then refused, as Kafka refuses it).
Result<std::function<std::string(const std::string&)>, std::string> certificate_principals(
    const SecurityConfig& security, const std::string& listener) {
  auto rules = security::parse_principal_rules(security.value_or(listener, "ssl.principal.mapping.rules", "DEFAULT"));
  if (!rules) return fail("ssl.principal.mapping.rules: " + rules.error());
  auto mapper = std::make_shared<security::PrincipalMapper>(std::move(*rules));
  return std::function<std::string(const std::string&)>([mapper](const std::string& subject) -> std::string {
    auto name = mapper->name(subject);
    if (!name) {
      static LogLimit limit("no principal for certificate");
      limit.warn("certificate subject '{}': {}", subject, name.error());
      return "";
    }
    return "User:" + *name;
  });
}

}  // namespace

Result<std::vector<net::Listener>, std::string> Broker::make_listeners() {
  const SecurityConfig& security = config_.security;
  std::vector<net::Listener> out;
  for (const ListenerSpec& spec : security.listeners) {
    net::Listener l;
    l.name = spec.name;
    l.protocol = spec.protocol;
    l.host = spec.host;
    l.port = spec.port;
    if (spec.name == security.inter_broker().name) {
      // Set directly by tests and tools; apply() keeps it equal to the parsed listener.
      l.host = config_.listener_host;
      l.port = config_.listener_port;
    }
    if (net::uses_tls(spec.protocol)) {
      auto source = TlsContextSource::create(security, spec.name);
      if (!source) return fail(source.error());
      tls_[spec.name] = *source;
      l.tls_context = [s = *source] { return s->current(); };
      if (spec.protocol == net::SecurityProtocol::kSsl) {
        auto principals = certificate_principals(security, spec.name);
        if (!principals) return fail("listener " + spec.name + ": " + principals.error());
        l.certificate_principal = std::move(*principals);
      }
    }
    out.push_back(std::move(l));
  }
  if (!config_.etcd_connect.empty()) {
    auto inter = inter_broker_client_security(security);
    if (!inter) return fail(inter.error());
    inter_broker_security_ = std::move(*inter);
  }
  return out;
}

Result<void, std::string> Broker::start_security() {
  if (cluster_) {
    scram_store_ = std::make_unique<EtcdScramStore>(cluster_->etcd(), cluster_->keys());
    authorizer_->use_etcd(cluster_->etcd(), cluster_->keys());
  } else {
    if (auto acls = authorizer_->use_file(config_.log_dir); !acls) return fail(acls.error());
    auto store = FileScramStore::open(config_.log_dir);
    if (!store) return fail(store.error());
    scram_store_ = std::move(*store);
  }
  auto sasl = SaslMechanisms::create(config_.security, *scram_store_);
  if (!sasl) return fail(sasl.error());
  sasl_ = std::move(*sasl);
  return {};
}

uint16_t Broker::port_of(const std::string& listener) const {
  const auto& specs = config_.security.listeners;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name == listener) return server_ ? server_->bound_port(i) : 0;
  }
  return 0;
}

}  // namespace strata::broker

// How a broker connects to the other brokers of its cluster (replica fetchers, the
// inter-broker channel): as a client of their inter-broker listener, with that listener's
// own settings, as Kafka's brokers do:
//
// - TLS (SSL, SASL_SSL): the listener's trust store checks the peer's certificate, its key
//   store is this broker's client certificate (the peer may require one), and
//   ssl.endpoint.identification.algorithm (default https) checks the peer's name.
// - SASL (SASL_PLAINTEXT, SASL_SSL): sasl.mechanism.inter.broker.protocol (Kafka's
//   default GSSAPI is refused: set PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512), logging in with
//   the username and password options of the listener's JAAS entry for that mechanism
//   (listener.name.<l>.<mechanism>.sasl.jaas.config, else sasl.jaas.config).
//
// The principal a broker gets on its peers must be allowed CLUSTER_ACTION (follower
// Fetch, WriteTxnMarkers) and the topic operations of replication: Kafka's practice, and
// Strata's, is to list it in super.users.
#pragma once

#include <memory>
#include <string>

#include "broker/security_config.h"
#include "client/security.h"
#include "common/result.h"

namespace strata::broker {

// The client settings for the inter-broker listener; null for PLAINTEXT.
Result<std::shared_ptr<const client::ClientSecurity>, std::string> inter_broker_client_security(
    const SecurityConfig& config);

}  // namespace strata::broker

// SASL on the broker's SASL listeners: which mechanisms each listener enables
// (sasl.enabled.mechanisms, per listener as listener.name.<l>.sasl.enabled.mechanisms)
// and one exchange per connection. PLAIN checks the users of the listener's
// plain.sasl.jaas.config (user_<name>="<password>", as Kafka's PlainLoginModule);
// SCRAM-SHA-256/512 check the credentials in the ScramStore (security/scram.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "broker/scram_store.h"
#include "broker/security_config.h"
#include "common/result.h"
#include "net/session.h"

namespace strata::broker {

// One connection's exchange, stored in its Session.
class SaslStep : public net::SaslExchange {
 public:
  // One token from the client: the server's answer, or the failure (Kafka's message).
  // Blocking (a SCRAM lookup may ask etcd): runs on the blocking pool.
  virtual Result<std::string, std::string> step(std::string_view token) = 0;
  virtual bool complete() const = 0;
  virtual std::string user() const = 0;  // once complete
  // After a failure: what went wrong, for the broker's log only (never the client).
  virtual std::string failure_detail() const = 0;
};

class SaslMechanisms {
 public:
  // Fails on a listener enabling a mechanism Strata does not have (GSSAPI,
  // OAUTHBEARER) or PLAIN without a jaas config naming users.
  static Result<std::unique_ptr<SaslMechanisms>, std::string> create(const SecurityConfig& config,
                                                                     ScramStore& store);
  const std::vector<std::string>& enabled(const std::string& listener) const;
  // A new exchange, or null when `mechanism` is not enabled on the listener.
  std::unique_ptr<SaslStep> start(const std::string& listener, const std::string& mechanism) const;

 private:
  explicit SaslMechanisms(ScramStore& store) : store_(store) {}
  struct PerListener {
    std::vector<std::string> mechanisms;
    std::map<std::string, std::string> plain_users;  // name -> password
  };
  std::map<std::string, PerListener> listeners_;
  ScramStore& store_;
};

}  // namespace strata::broker

#include "broker/sasl.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker/config_admin.h"
#include "common/log_limit.h"
#include "security/jaas.h"
#include "security/plain.h"
#include "security/scram.h"

namespace strata::broker {
namespace {

constexpr const char* kPlain = "PLAIN";

class PlainStep : public SaslStep {
 public:
  explicit PlainStep(const std::map<std::string, std::string>& users) : users_(users) {}
  Result<std::string, std::string> step(std::string_view token) override {
    if (done_ || failed_) return fail(std::string("Unexpected SASL token after the PLAIN exchange"));
    auto user = security::plain_authenticate(token, users_);
    if (!user) {
      failed_ = true;
      detail_ = user.error().detail;
      return fail(user.error().message);
    }
    user_ = *user;
    done_ = true;
    return std::string();
  }
  bool complete() const override { return done_; }
  std::string user() const override { return user_; }
  std::string failure_detail() const override { return detail_; }

 private:
  const std::map<std::string, std::string>& users_;
  bool done_ = false;
  bool failed_ = false;
  std::string user_;
  std::string detail_;
};

class ScramStep : public SaslStep {
 public:
  ScramStep(security::ScramMechanism mech, ScramStore& store)
      : server_(mech, [&store, mech](const std::string& user) -> std::optional<security::ScramCredential> {
          auto creds = store.get(user);
          if (!creds) {
            static LogLimit limit("SCRAM credential lookup failed");
            limit.warn("SCRAM credentials of {}: {}", user, creds.error());
            return std::nullopt;
          }
          auto it = creds->find(std::string(security::scram_mechanism_name(mech)));
          if (it == creds->end()) return std::nullopt;
          auto c = security::parse_scram_credential(it->second);
          if (!c) return std::nullopt;
          return *c;
        }) {}
  Result<std::string, std::string> step(std::string_view token) override {
    auto r = server_.step(token);
    if (!r) {
      detail_ = r.error().detail;
      return fail(r.error().message);
    }
    return *r;
  }
  bool complete() const override { return server_.complete(); }
  std::string user() const override { return server_.user(); }
  std::string failure_detail() const override { return detail_; }

 private:
  security::ScramServer server_;
  std::string detail_;
};

}  // namespace

Result<std::unique_ptr<SaslMechanisms>, std::string> SaslMechanisms::create(const SecurityConfig& config,
                                                                            ScramStore& store) {
  std::unique_ptr<SaslMechanisms> m(new SaslMechanisms(store));
  for (const ListenerSpec& l : config.listeners) {
    if (!net::uses_sasl(l.protocol)) continue;
    PerListener& per = m->listeners_[l.name];
    // Kafka's default is GSSAPI, which Strata does not have: it must be named.
    per.mechanisms = split_list(config.value_or(l.name, "sasl.enabled.mechanisms", "GSSAPI"));
    for (const std::string& mech : per.mechanisms) {
      if (mech != kPlain && !security::scram_mechanism_from_name(mech)) {
        return fail("listener " + l.name + ": sasl.enabled.mechanisms: " + mech +
                    " is not supported (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)");
      }
    }
    if (std::find(per.mechanisms.begin(), per.mechanisms.end(), kPlain) == per.mechanisms.end()) continue;
    auto text = config.value(l.name, "plain.sasl.jaas.config");
    if (!text) text = config.value(l.name, "sasl.jaas.config");
    if (!text) {
      return fail("listener " + l.name + ": PLAIN needs listener.name." + l.name +
                  ".plain.sasl.jaas.config with its users (user_<name>=\"<password>\")");
    }
    auto jaas = security::parse_jaas_config(*text);
    if (!jaas) return fail("listener " + l.name + ": plain.sasl.jaas.config: " + jaas.error());
    per.plain_users = security::plain_users(*jaas);
  }
  return m;
}

const std::vector<std::string>& SaslMechanisms::enabled(const std::string& listener) const {
  static const std::vector<std::string> kNone;
  auto it = listeners_.find(listener);
  return it == listeners_.end() ? kNone : it->second.mechanisms;
}

std::unique_ptr<SaslStep> SaslMechanisms::start(const std::string& listener, const std::string& mechanism) const {
  auto it = listeners_.find(listener);
  if (it == listeners_.end()) return nullptr;
  const auto& enabled = it->second.mechanisms;
  if (std::find(enabled.begin(), enabled.end(), mechanism) == enabled.end()) return nullptr;
  if (mechanism == kPlain) return std::make_unique<PlainStep>(it->second.plain_users);
  return std::make_unique<ScramStep>(*security::scram_mechanism_from_name(mechanism), store_);
}

}  // namespace strata::broker

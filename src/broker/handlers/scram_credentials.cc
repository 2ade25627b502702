// DescribeUserScramCredentials and AlterUserScramCredentials (KIP-554), over the broker's
// ScramStore (the log dir's file, or etcd in a cluster). Kafka's errors:
// Describe: RESOURCE_NOT_FOUND for a named user without credentials, DUPLICATE_RESOURCE
// for a user named twice. Alter: UNSUPPORTED_SASL_MECHANISM for a mechanism other than
// SCRAM-SHA-256/512, UNACCEPTABLE_CREDENTIAL for an empty user name or iterations
// outside [4096, 16384], DUPLICATE_RESOURCE for a user altered twice in one request,
// RESOURCE_NOT_FOUND for deleting a credential that does not exist; a store that fails
// answers UNKNOWN_SERVER_ERROR for the users it could not change. Deletions and
// upsertions of one user apply together, deletions first.
#include <set>

#include "broker/errors.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/scram_store.h"
#include "security/scram_credential.h"

namespace strata::broker {

using protocol::AlterUserScramCredentialsRequest;
using protocol::AlterUserScramCredentialsResponse;
using protocol::DescribeUserScramCredentialsRequest;
using protocol::DescribeUserScramCredentialsResponse;

namespace {

DescribeUserScramCredentialsResponse::Result describe_one(const std::string& user, const UserCredentials& creds) {
  DescribeUserScramCredentialsResponse::Result r;
  r.user = user;
  for (const auto& [name, text] : creds) {
    auto mech = security::scram_mechanism_from_name(name);
    auto c = security::parse_scram_credential(text);
    if (!mech || !c) continue;
    r.credential_infos.push_back({int8_t(*mech), c->iterations});
  }
  return r;
}

// One user's changes in a request, checked; `error` set on the first problem.
struct UserChange {
  std::vector<const AlterUserScramCredentialsRequest::Deletion*> deletions;
  std::vector<const AlterUserScramCredentialsRequest::Upsertion*> upsertions;
  int16_t error = 0;
  std::string message;
};

void check_change(UserChange& c) {
  auto reject = [&c](int16_t code, std::string message) {
    if (c.error == 0) {
      c.error = code;
      c.message = std::move(message);
    }
  };
  std::set<int8_t> seen;
  for (const auto* d : c.deletions) {
    if (!security::scram_mechanism_from_code(d->mechanism)) reject(kafka_error::kUnsupportedSaslMechanism, "Unknown SCRAM mechanism");
    if (!seen.insert(d->mechanism).second) reject(kafka_error::kDuplicateResource, "A user credential cannot be altered twice in the same request");
  }
  for (const auto* u : c.upsertions) {
    if (!security::scram_mechanism_from_code(u->mechanism)) reject(kafka_error::kUnsupportedSaslMechanism, "Unknown SCRAM mechanism");
    if (!seen.insert(u->mechanism).second) reject(kafka_error::kDuplicateResource, "A user credential cannot be altered twice in the same request");
    if (auto it = security::check_scram_iterations(u->iterations); !it) reject(kafka_error::kUnacceptableCredential, it.error());
  }
}

// Applies one user's checked changes to its current credentials (blocking: the store).
// The change on the user's credentials as they are when it is applied.
Result<UserCredentials, CredentialChangeError> changed(const UserCredentials& current, const UserChange& c) {
  UserCredentials next = current;
  for (const auto* d : c.deletions) {
    const std::string name(security::scram_mechanism_name(*security::scram_mechanism_from_code(d->mechanism)));
    if (next.erase(name) == 0) {
      return fail(CredentialChangeError{kafka_error::kResourceNotFound,
                                        "Attempt to delete a user credential that does not exist"});
    }
  }
  for (const auto* u : c.upsertions) {
    const auto mech = *security::scram_mechanism_from_code(u->mechanism);
    auto cred = security::credential_from_salted_password(
        mech, std::string_view(reinterpret_cast<const char*>(u->salted_password.data()), u->salted_password.size()),
        std::string_view(reinterpret_cast<const char*>(u->salt.data()), u->salt.size()), u->iterations);
    if (!cred) return fail(CredentialChangeError{kafka_error::kUnacceptableCredential, cred.error()});
    next[std::string(security::scram_mechanism_name(mech))] = security::format_scram_credential(*cred);
  }
  return next;
}

std::pair<int16_t, std::string> apply_change(ScramStore& store, const std::string& user, const UserChange& c) {
  auto done = store.update(user, [&c](const UserCredentials& current) { return changed(current, c); });
  if (!done) return {done.error().code, done.error().message};
  return {0, ""};
}

}  // namespace

asio::awaitable<DescribeUserScramCredentialsResponse> handle_describe_user_scram_credentials(
    Broker& broker, RequestContext& ctx, DescribeUserScramCredentialsRequest& request) {
  DescribeUserScramCredentialsResponse r;
  if (!cluster_authorized(broker, ctx, AclOperation::kDescribe)) {
    r.error_code = kafka_error::kClusterAuthorizationFailed;
    r.error_message = "Cluster authorization failed.";
    co_return r;
  }
  ScramStore* store = &broker.scram_store();
  auto all = co_await broker.blocking([store] { return store->all(); });
  if (!all) {
    r.error_code = kafka_error::kUnknownServerError;
    r.error_message = all.error();
    co_return r;
  }
  if (!request.users || request.users->empty()) {
    for (const auto& [user, creds] : *all) r.results.push_back(describe_one(user, creds));
    co_return r;
  }
  std::map<std::string, int> count;
  for (const auto& u : *request.users) ++count[u.name];
  for (const auto& [user, n] : count) {
    DescribeUserScramCredentialsResponse::Result one;
    auto it = all->find(user);
    if (n > 1) {
      one.user = user;
      one.error_code = kafka_error::kDuplicateResource;
      one.error_message = "Cannot describe SCRAM credentials for the same user twice in a single request: " + user;
    } else if (it == all->end() || describe_one(user, it->second).credential_infos.empty()) {
      one.user = user;
      one.error_code = kafka_error::kResourceNotFound;
      one.error_message = "Attempt to describe a user credential that does not exist: " + user;
    } else {
      one = describe_one(user, it->second);
    }
    r.results.push_back(std::move(one));
  }
  co_return r;
}

asio::awaitable<AlterUserScramCredentialsResponse> handle_alter_user_scram_credentials(
    Broker& broker, RequestContext& ctx, AlterUserScramCredentialsRequest& request) {
  AlterUserScramCredentialsResponse r;
  std::map<std::string, UserChange> changes;
  for (const auto& d : request.deletions) changes[d.name].deletions.push_back(&d);
  for (const auto& u : request.upsertions) changes[u.name].upsertions.push_back(&u);
  if (!cluster_authorized(broker, ctx, AclOperation::kAlter)) {
    for (const auto& [user, change] : changes) {
      r.results.push_back({user, kafka_error::kClusterAuthorizationFailed, "Cluster authorization failed."});
    }
    co_return r;
  }
  ScramStore* store = &broker.scram_store();
  for (auto& [user, change] : changes) {
    if (user.empty()) {
      change.error = kafka_error::kUnacceptableCredential;
      change.message = "Username must not be empty";
    }
    check_change(change);
    AlterUserScramCredentialsResponse::Result one;
    one.user = user;
    if (change.error != 0) {
      one.error_code = change.error;
      one.error_message = change.message;
    } else {
      const std::string* name = &user;
      const UserChange* c = &change;
      auto [code, message] = co_await broker.blocking([store, name, c] { return apply_change(*store, *name, *c); });
      one.error_code = code;
      if (code != 0) one.error_message = message;
    }
    r.results.push_back(std::move(one));
  }
  co_return r;
}

}  // namespace strata::broker

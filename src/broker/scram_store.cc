#include "broker/scram_store.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster/etcd_client.h"
#include "cluster/keys.h"
#include "common/kafka_errors.h"
#include "storage/checkpoint.h"

namespace strata::broker {
namespace {

constexpr const char* kFileName = "scram-credentials.json";

// {"M":"text",...} -> map; anything else is an error.
Result<UserCredentials, std::string> credentials_of(const nlohmann::json& j) {
  if (!j.is_object()) return fail(std::string("credentials are not an object"));
  UserCredentials out;
  for (const auto& [mech, text] : j.items()) {
    if (!text.is_string()) return fail("credential " + mech + " is not a string");
    out[mech] = text.get<std::string>();
  }
  return out;
}

std::string file_text(const std::map<std::string, UserCredentials>& users) {
  nlohmann::json j = {{"version", 1}, {"users", nlohmann::json::object()}};
  for (const auto& [user, creds] : users) j["users"][user] = creds;
  return j.dump() + "\n";
}

// /config/users/<user> with its value {"version":1,"config":{...}}.
std::string user_key(const cluster::Keys& keys, const std::string& user) {
  return keys.root() + "/config/users/" + user;
}

Result<UserCredentials, std::string> parse_user_value(const std::string& value) {
  const auto j = nlohmann::json::parse(value, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("config")) {
    return fail(std::string("not a {\"version\":1,\"config\":{...}} value"));
  }
  return credentials_of(j["config"]);
}

}  // namespace

Result<std::unique_ptr<FileScramStore>, std::string> FileScramStore::open(const std::string& log_dir) {
  const std::string path = (std::filesystem::path(log_dir) / kFileName).string();
  std::unique_ptr<FileScramStore> store(new FileScramStore(path));
  std::ifstream in(path);
  if (!in) return store;  // no file: no credentials yet
  std::stringstream text;
  text << in.rdbuf();
  const auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("users") || !j["users"].is_object()) {
    return fail(path + ": not a SCRAM credentials file (docs/formats/scram-credentials.md)");
  }
  for (const auto& [user, creds] : j["users"].items()) {
    auto c = credentials_of(creds);
    if (!c) return fail(path + ": user " + user + ": " + c.error());
    store->users_[user] = std::move(*c);
  }
  return store;
}

Result<UserCredentials, std::string> FileScramStore::get(const std::string& user) {
  std::lock_guard lock(mu_);
  auto it = users_.find(user);
  return it == users_.end() ? UserCredentials{} : it->second;
}

Result<std::map<std::string, UserCredentials>, std::string> FileScramStore::all() {
  std::lock_guard lock(mu_);
  return users_;
}

Result<void, CredentialChangeError> FileScramStore::update(const std::string& user, const CredentialEdit& edit) {
  std::lock_guard lock(mu_);
  auto it = users_.find(user);
  auto creds = edit(it == users_.end() ? UserCredentials{} : it->second);
  if (!creds) return fail(creds.error());
  auto next = users_;
  if (creds->empty()) {
    next.erase(user);
  } else {
    next[user] = *creds;
  }
  if (auto w = storage::atomic_write_file(path_, file_text(next)); !w) {
    return fail(CredentialChangeError{kafka_error::kUnknownServerError, path_ + ": " + w.error().message()});
  }
  users_ = std::move(next);
  return {};
}

Result<UserCredentials, std::string> EtcdScramStore::get(const std::string& user) {
  auto r = etcd_.range(user_key(keys_, user));
  if (!r) return fail("etcd: " + r.error().message);
  if (r->kvs.empty()) return UserCredentials{};
  auto c = parse_user_value(r->kvs.front().value);
  if (!c) return fail(user_key(keys_, user) + ": " + c.error());
  return c;
}

Result<std::map<std::string, UserCredentials>, std::string> EtcdScramStore::all() {
  const std::string prefix = keys_.root() + "/config/users/";
  auto r = etcd_.range(prefix, cluster::prefix_end(prefix));
  if (!r) return fail("etcd: " + r.error().message);
  std::map<std::string, UserCredentials> out;
  for (const auto& kv : r->kvs) {
    auto c = parse_user_value(kv.value);
    if (!c) continue;  // someone else's value: not ours to interpret
    out[kv.key.substr(prefix.size())] = std::move(*c);
  }
  return out;
}

// Read, edit, and write on condition that the key is as read (its mod revision, or absent).
Result<void, CredentialChangeError> EtcdScramStore::update(const std::string& user, const CredentialEdit& edit) {
  constexpr int kAttempts = 8;
  const std::string key = user_key(keys_, user);
  auto store_error = [](std::string what) { return CredentialChangeError{kafka_error::kUnknownServerError, std::move(what)}; };
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto r = etcd_.range(key);
    if (!r) return fail(store_error("etcd: " + r.error().message));
    UserCredentials current;
    int64_t revision = 0;
    if (!r->kvs.empty()) {
      auto c = parse_user_value(r->kvs.front().value);
      if (!c) return fail(store_error(key + ": " + c.error()));
      current = std::move(*c);
      revision = r->kvs.front().mod_revision;
    }
    auto creds = edit(current);
    if (!creds) return fail(creds.error());
    cluster::TxnRequest t;
    t.compare.push_back({key, revision == 0 ? cluster::Compare::Target::kCreate : cluster::Compare::Target::kMod,
                         cluster::Compare::Result::kEqual, revision, ""});
    if (creds->empty()) {
      t.success.push_back({cluster::Op::Kind::kDelete, key, "", "", 0});
    } else {
      nlohmann::json j = {{"version", 1}, {"config", *creds}};
      t.success.push_back({cluster::Op::Kind::kPut, key, "", j.dump(), 0});
    }
    auto done = etcd_.txn(t);
    if (!done) return fail(store_error("etcd: " + done.error().message));
    if (done->succeeded) return {};
  }
  return fail(store_error("the credentials of " + user + " kept changing under concurrent updates; try again"));
}

}  // namespace strata::broker

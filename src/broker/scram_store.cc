#include "broker/scram_store.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster/etcd_client.h"
#include "cluster/keys.h"
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

Result<void, std::string> FileScramStore::put(const std::string& user, const UserCredentials& creds) {
  std::lock_guard lock(mu_);
  auto next = users_;
  if (creds.empty()) {
    next.erase(user);
  } else {
    next[user] = creds;
  }
  if (auto w = storage::atomic_write_file(path_, file_text(next)); !w) {
    return fail(path_ + ": " + w.error().message());
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

Result<void, std::string> EtcdScramStore::put(const std::string& user, const UserCredentials& creds) {
  cluster::TxnRequest t;
  if (creds.empty()) {
    t.success.push_back({cluster::Op::Kind::kDelete, user_key(keys_, user), "", "", 0});
  } else {
    nlohmann::json j = {{"version", 1}, {"config", creds}};
    t.success.push_back({cluster::Op::Kind::kPut, user_key(keys_, user), "", j.dump(), 0});
  }
  auto r = etcd_.txn(t);
  if (!r) return fail("etcd: " + r.error().message);
  return {};
}

}  // namespace strata::broker

// Where SCRAM credentials live (docs/formats/scram-credentials.md): the log dir's
// scram-credentials.json on a single node, /config/users/<user> in etcd in a cluster.
// Credentials are kept in Kafka's text form per mechanism name ("SCRAM-SHA-512" ->
// "salt=...,stored_key=...,server_key=...,iterations=N"); security/scram.h parses them.
//
// Blocking (a file write with fsync, an etcd request): called on the blocking pool.
// Any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/result.h"

namespace strata::cluster {
class EtcdClient;
class Keys;
}  // namespace strata::cluster

namespace strata::broker {

using UserCredentials = std::map<std::string, std::string>;  // mechanism name -> credential text

// Why a change of a user's credentials was not made: a Kafka error code and its message.
struct CredentialChangeError {
  int16_t code = 0;
  std::string message;
};
// A change: the user's current credentials (empty: none) -> the new ones (empty: remove
// the user), or why not. It may run more than once (see update()).
using CredentialEdit = std::function<Result<UserCredentials, CredentialChangeError>(const UserCredentials&)>;

class ScramStore {
 public:
  virtual ~ScramStore() = default;
  // The user's credentials (empty: none).
  virtual Result<UserCredentials, std::string> get(const std::string& user) = 0;
  // Every user with a credential and theirs.
  virtual Result<std::map<std::string, UserCredentials>, std::string> all() = 0;
  // Applies `edit` to the user's credentials atomically: a change made meanwhile by another
  // writer (another broker, in etcd) is never overwritten; the edit is made again on it.
  // Store failures are UNKNOWN_SERVER_ERROR.
  virtual Result<void, CredentialChangeError> update(const std::string& user, const CredentialEdit& edit) = 0;
};

// <log.dir>/scram-credentials.json, held in memory and rewritten whole on a change.
class FileScramStore : public ScramStore {
 public:
  // Fails when the file exists and does not parse.
  static Result<std::unique_ptr<FileScramStore>, std::string> open(const std::string& log_dir);
  Result<UserCredentials, std::string> get(const std::string& user) override;
  Result<std::map<std::string, UserCredentials>, std::string> all() override;
  Result<void, CredentialChangeError> update(const std::string& user, const CredentialEdit& edit) override;

 private:
  explicit FileScramStore(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::mutex mu_;
  std::map<std::string, UserCredentials> users_;
};

// /config/users/<user> in the cluster's etcd (Kafka's ZooKeeper layout).
class EtcdScramStore : public ScramStore {
 public:
  EtcdScramStore(cluster::EtcdClient& etcd, const cluster::Keys& keys) : etcd_(etcd), keys_(keys) {}
  Result<UserCredentials, std::string> get(const std::string& user) override;
  Result<std::map<std::string, UserCredentials>, std::string> all() override;
  Result<void, CredentialChangeError> update(const std::string& user, const CredentialEdit& edit) override;

 private:
  cluster::EtcdClient& etcd_;
  const cluster::Keys& keys_;
};

}  // namespace strata::broker

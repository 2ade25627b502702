// Tests only: a real etcd (Debian etcd-server, /usr/bin/etcd) on loopback ports of its
// own with a fresh data dir, killed and removed when the object goes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "cluster/etcd_client.h"

namespace strata::cluster {

class EtcdProcess {
 public:
  // Starts etcd and waits (up to 10 s) until it answers; ok() says whether it did.
  EtcdProcess();
  ~EtcdProcess();
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  bool ok() const { return ready_; }
  EtcdEndpoint endpoint() const { return {"127.0.0.1", client_port_}; }
  // SIGSTOP / SIGCONT, SIGKILL then start again on the same ports and data.
  void pause();
  void resume();
  void kill();
  bool restart();

 private:
  bool spawn();
  bool wait_ready();

  std::string dir_;
  uint16_t client_port_ = 0;
  uint16_t peer_port_ = 0;
  pid_t pid_ = -1;
  bool ready_ = false;
};

}  // namespace strata::cluster

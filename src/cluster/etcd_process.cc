#include "cluster/etcd_process.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace strata::cluster {

namespace {

uint16_t free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace

EtcdProcess::EtcdProcess() {
  char tmpl[] = "/tmp/strata-etcd-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return;
  dir_ = tmpl;
  client_port_ = free_port();
  peer_port_ = free_port();
  ready_ = spawn() && wait_ready();
}

EtcdProcess::~EtcdProcess() {
  kill();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

bool EtcdProcess::spawn() {
  const std::string client = "http://127.0.0.1:" + std::to_string(client_port_);
  const std::string peer = "http://127.0.0.1:" + std::to_string(peer_port_);
  const std::string data = dir_ + "/data";
  const std::string log = dir_ + "/etcd.log";
  pid_ = ::fork();
  if (pid_ < 0) return false;
  if (pid_ == 0) {
    // Only async-signal-safe calls between fork and exec.
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    const std::string cluster = "default=" + peer;
    ::execl("/usr/bin/etcd", "etcd", "--data-dir", data.c_str(), "--listen-client-urls",
            client.c_str(), "--advertise-client-urls", client.c_str(), "--listen-peer-urls",
            peer.c_str(), "--initial-advertise-peer-urls", peer.c_str(), "--initial-cluster",
            cluster.c_str(), "--log-level", "warn", static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  return true;
}

bool EtcdProcess::wait_ready() {
  EtcdClient probe({{endpoint()}, std::chrono::milliseconds(200), std::chrono::milliseconds(500)});
  for (int i = 0; i < 200; ++i) {
    if (probe.range("/").ok()) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void EtcdProcess::pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void EtcdProcess::resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

void EtcdProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

bool EtcdProcess::restart() {
  kill();
  ready_ = spawn() && wait_ready();
  return ready_;
}

}  // namespace strata::cluster

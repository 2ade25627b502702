// The admin listener (`metrics.listener`, Strata's own setting; Kafka has JMX instead): an
// HTTP/1.1 server on cpp-httplib (Debian libcpp-httplib-dev) serving the Prometheus text
// at GET /metrics (HEAD too). docs/metrics.md lists what is exported.
//
// Threads: its own, never a shard's: one accepting and kAdminWorkers answering. A scrape
// reads only thread-safe broker state. Limits: a request's line and headers within 8 KiB
// (httplib's bound), no body over kAdminBodyBytesMax, kAdminTimeoutSec for each read or
// write, keep-alive for kAdminKeepAliveSec idle and at most kAdminKeepAliveRequests
// requests per connection; at most kAdminPendingMax accepted connections wait for a
// worker, and the accepting thread waits beyond that (the kernel's backlog then holds or
// refuses new ones), so memory and threads stay bounded whatever clients do. httplib
// gives each connection a worker while it is open: kAdminWorkers clients that hold
// connections idle delay others by up to kAdminKeepAliveSec (or kAdminTimeoutSec for one
// that stalls mid-request), so the admin listener belongs on a private address. The Kafka
// listeners are not affected by anything sent here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace strata::client {
struct ClientSecurity;
}

namespace strata::broker {

// How a layer that serves on the admin listener (the web console, src/console) reaches
// this broker's cluster as a Kafka client: the broker's own inter-broker listener.
struct AdminTarget {
  std::string bootstrap;                                   // "host:port"
  std::shared_ptr<const client::ClientSecurity> security;  // null: PLAINTEXT
};
// Adds routes to the admin listener's server; called once, before it starts serving.
// Handlers run on the admin listener's worker threads, never a shard's.
using AdminRoutes = std::function<void(httplib::Server&, const AdminTarget&)>;

inline constexpr size_t kAdminWorkers = 16;
inline constexpr size_t kAdminPendingMax = 32;
inline constexpr int kAdminTimeoutSec = 5;
inline constexpr int kAdminKeepAliveSec = 2;
inline constexpr size_t kAdminKeepAliveRequests = 100;
inline constexpr size_t kAdminBodyBytesMax = 1 << 20;

class AdminServer {
 public:
  // `metrics` renders the Prometheus text; called on a worker thread per scrape.
  explicit AdminServer(std::function<std::string()> metrics);
  ~AdminServer();  // stop()s
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  // Binds HOST:PORT (port 0: any free one). False with `error` set when it cannot.
  bool listen(const std::string& host, uint16_t port, std::string& error);
  uint16_t bound_port() const { return port_; }
  // The server, to add routes to before start().
  httplib::Server& http() { return *server_; }
  // Serves on the server's own threads until stop().
  void start();
  // Stops accepting, finishes the requests in progress, joins the threads. Idempotent.
  void stop();

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

}  // namespace strata::broker

// The network layer: listeners, connections, framing, ordered responses.
//
// Shards: one io_context per shard, each run by one thread; a connection lives on one
// shard for its whole life (accepted sockets are dealt out round-robin). A connection
// reads size-prefixed request frames and hands each to the RequestHandler as soon as it
// arrives, so pipelined requests are handled concurrently (a durable produce waiting for
// fdatasync does not hold up the next request), while responses go back strictly in
// request order, as Kafka clients require.
#pragma once

#include <asio.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "net/request_order.h"
#include "net/limits.h"
#include "net/session.h"
#include "protocol/output.h"

namespace strata::net {

// An allocator whose new elements are left uninitialized: a request frame is written by
// the socket read right after it grows, so zero-filling it first is wasted work (it was
// about 15% of the broker's CPU per produced MB with the standard allocator).
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using FrameBytes = std::vector<uint8_t, NoInitAllocator<uint8_t>>;

struct Frame {
  FrameBytes bytes;            // the request, without its 4-byte size; writable
  std::string client_address;  // "ip:port" of the peer
  size_t shard = 0;            // the shard the connection lives on
  Turn turn;                   // its place in the connection's order (request_order.h)
  // The connection's session (listener, principal, SASL state); never null.
  std::shared_ptr<Session> session;
  // This frame's share of queued.max.request.bytes, given back when the frame is
  // destroyed, that is when its handling finishes (net/limits.h).
  BudgetLease budget;
  // When its last byte was read: the start of Kafka's TotalTimeMs.
  std::chrono::steady_clock::time_point received{};
};

// What the broker does with a request. Runs on the connection's shard. An Output with
// no bytes means "no response" (acks=0 produce); a null optional closes the connection.
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  virtual asio::awaitable<std::optional<protocol::Output>> handle(Frame& frame) = 0;
  // After a request's response was written to the socket (at once when there is none,
  // acks=0): its API key and the time since the request arrived (Frame::received), which
  // is Kafka's TotalTimeMs (queue, handling, waiting for others, writing the answer).
  virtual void response_sent(int16_t /*api_key*/, double /*total_ms*/) {}
};

struct NetConfig {
  std::vector<Listener> listeners{Listener{}};  // at least one
  size_t shards = 1;
  int32_t socket_request_max_bytes = 104857600;      // socket.request.max.bytes
  // sasl.server.max.receive.size: the largest frame before a SASL listener's connection
  // has authenticated (Kafka's default).
  int32_t sasl_server_max_receive_size = 524288;
  size_t max_inflight_per_connection = 64;           // pipelined requests handled at once
  // Limits (net/README.md "Limits"), with Kafka's names and defaults except where noted.
  int32_t max_connections = ConnectionQuotas::kUnlimited;         // max.connections
  int32_t max_connections_per_ip = ConnectionQuotas::kUnlimited;  // max.connections.per.ip
  // max.connections.per.ip.overrides, "host:count,...": hosts as written (an address or a
  // name, resolved by listen()).
  std::vector<std::pair<std::string, int32_t>> max_connections_per_ip_overrides;
  int64_t connections_max_idle_ms = 600000;  // connections.max.idle.ms; < 0: never
  // queued.max.request.bytes; <= 0: unbounded (Kafka's default, -1). Strata's default
  // is 256 MiB (broker/config.h says why).
  int64_t queued_max_request_bytes = 268435456;
  // How segment-file slices reach the socket: sendfile(2), with no user-space copy, or
  // pread into a 1 MiB buffer and write (strata.fetch.sendfile). sendfile measured
  // 1.7x the MB/s at 0.6x the broker CPU per GB on loopback (docs/performance.md).
  bool sendfile = true;
};

class Server {
 public:
  Server(const NetConfig& config, RequestHandler& handler);
  ~Server();

  // Binds every listener; false with a message when a port cannot be had.
  bool listen(std::string& error);
  // The port listener `i` (in NetConfig::listeners order) is bound to.
  uint16_t bound_port(size_t i = 0) const { return acceptors_.empty() ? 0 : acceptors_[i]->port; }
  // Starts one thread per shard; returns immediately.
  void start();
  // Stops accepting, closes connections, joins the threads.
  void stop();

  size_t shard_count() const { return shards_.size(); }
  asio::io_context& shard(size_t i) { return *shards_[i]; }
  const ConnectionQuotas& quotas() const { return *quotas_; }
  const RequestBudget& budget() const { return budget_; }

  // Accept errors that mean "out of descriptors or memory": the accept loop waits
  // kAcceptBackoffFirst, doubling to kAcceptBackoffMax, before it tries again.
  static constexpr std::chrono::milliseconds kAcceptBackoffFirst{100};
  static constexpr std::chrono::milliseconds kAcceptBackoffMax{1000};

 private:
  // One listener's socket and its accept loop's timer (backoff, waiting for a slot).
  struct Acceptor {
    std::shared_ptr<const Listener> listener;
    std::unique_ptr<asio::ip::tcp::acceptor> socket;
    std::unique_ptr<asio::steady_timer> timer;  // shard 0
    uint16_t port = 0;
  };

  bool listen_on(Acceptor& a, std::string& error);
  asio::awaitable<void> accept_loop(Acceptor& a);
  asio::awaitable<bool> wait_for_connection_slot(Acceptor& a);
  asio::awaitable<void> back_off_after(Acceptor& a, const asio::error_code& ec,
                                       std::chrono::milliseconds& backoff);
  void admit(const std::shared_ptr<const Listener>& listener, asio::ip::tcp::socket socket,
             size_t shard);

  NetConfig config_;
  RequestHandler& handler_;
  // Declared before the shards: connections destroyed with their io_context give their
  // slot and budget back to these.
  std::unique_ptr<ConnectionQuotas> quotas_;
  RequestBudget budget_;
  std::vector<std::unique_ptr<asio::io_context>> shards_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards_;
  std::vector<std::thread> threads_;
  std::vector<std::unique_ptr<Acceptor>> acceptors_;  // one per listener
  size_t next_shard_ = 0;
};

}  // namespace strata::net

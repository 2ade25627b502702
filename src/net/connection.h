// One client connection (internal to net): a reader coroutine that frames requests and
// starts their handling, and a writer coroutine that sends responses in request order.
#pragma once

#include <asio.hpp>
#include <asio/ssl.hpp>

#include <chrono>
#include <deque>
#include <memory>
#include <optional>

#include "net/server.h"

namespace strata::net {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `slot` is the connection's place under max.connections (given back on close);
  // `budget` is queued.max.request.bytes, shared by all connections.
  // `listener` is the one it was accepted on (its TLS context, if any, is taken now).
  Connection(asio::ip::tcp::socket socket, size_t shard, const NetConfig& config,
             std::shared_ptr<const Listener> listener, RequestHandler& handler,
             ConnectionSlot slot, RequestBudget& budget);
  ~Connection();
  void start();

 private:
  struct Pending {
    explicit Pending(const asio::any_io_executor& ex) : done(ex) {}
    asio::steady_timer done;  // cancelled when the response is ready
    bool ready = false;
    std::optional<protocol::Output> response;
    int16_t api_key = -1;  // for RequestHandler::response_sent
    std::chrono::steady_clock::time_point received{};
  };

  asio::awaitable<void> read_loop();
  asio::awaitable<void> write_loop();
  asio::awaitable<void> handle(std::shared_ptr<Pending> slot, Frame frame);
  asio::awaitable<bool> send(const protocol::Output& out);
  asio::awaitable<bool> send_file(const protocol::FileSlice& slice);
  asio::awaitable<bool> send_copy(const protocol::FileSlice& slice, std::vector<uint8_t>& chunk);
  // The byte stream: the socket, or TLS over it.
  asio::awaitable<size_t> read_some(asio::mutable_buffer to, asio::error_code& ec);
  asio::awaitable<bool> write_all(asio::const_buffer from);
  asio::awaitable<bool> tls_handshake();
  void close();
  // Limits (net/limits.h): reading a frame within the request budget, idle close.
  asio::awaitable<bool> read_frame(Frame& frame, size_t size);
  asio::awaitable<bool> read_exact(uint8_t* to, size_t n);
  asio::awaitable<void> idle_loop();
  bool busy() const;
  void keep_spare(FrameBytes bytes);
  void note_activity() { last_activity_ = std::chrono::steady_clock::now(); }

  asio::ip::tcp::socket socket_;
  // TLS listeners: the context (kept alive with the stream) and the stream over socket_.
  std::shared_ptr<asio::ssl::context> tls_context_;
  std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket&>> tls_;
  std::shared_ptr<Session> session_;
  size_t shard_;
  const NetConfig& config_;
  RequestHandler& handler_;
  std::string peer_;
  std::deque<std::shared_ptr<Pending>> queue_;
  std::shared_ptr<RequestOrder> order_ = std::make_shared<RequestOrder>();
  // Request buffers of finished requests, reused for the next frames: their pages are
  // already mapped, so a new request costs no page faults (see kSpareFrames).
  std::vector<FrameBytes> spare_frames_;
  asio::steady_timer queue_changed_;  // wakes the writer (new slot) or the reader (room)
  bool closed_ = false;
  // Limits.
  ConnectionSlot slot_;
  RequestBudget& budget_;
  std::shared_ptr<BudgetWaiter> budget_waiter_;
  bool waiting_for_budget_ = false;
  asio::steady_timer idle_timer_;
  std::chrono::steady_clock::time_point last_activity_;  // last bytes read or written
};

}  // namespace strata::net

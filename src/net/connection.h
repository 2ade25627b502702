// One client connection (internal to net): a reader coroutine that frames requests and
// starts their handling, and a writer coroutine that sends responses in request order.
#pragma once

#include <asio.hpp>

#include <deque>
#include <memory>
#include <optional>

#include "net/server.h"

namespace strata::net {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(asio::ip::tcp::socket socket, size_t shard, const NetConfig& config,
             RequestHandler& handler);
  void start();

 private:
  struct Pending {
    explicit Pending(const asio::any_io_executor& ex) : done(ex) {}
    asio::steady_timer done;  // cancelled when the response is ready
    bool ready = false;
    std::optional<protocol::Output> response;
  };

  asio::awaitable<void> read_loop();
  asio::awaitable<void> write_loop();
  asio::awaitable<void> handle(std::shared_ptr<Pending> slot, Frame frame);
  asio::awaitable<bool> send(const protocol::Output& out);
  asio::awaitable<bool> send_file(const protocol::FileSlice& slice);
  void close();

  asio::ip::tcp::socket socket_;
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
};

}  // namespace strata::net

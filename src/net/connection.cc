#include "net/connection.h"

#include <spdlog/spdlog.h>
#include <sys/sendfile.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "common/bytes.h"

namespace strata::net {

namespace {
constexpr size_t kFileChunkBytes = 1 << 20;
// A frame's buffer is first sized to at most this, then at most doubled per read.
constexpr size_t kFrameFirstReadBytes = 1 << 20;

// Waits on a timer used as an event: returns when it is cancelled (notified).
asio::awaitable<void> wait_event(asio::steady_timer& t) {
  asio::error_code ec;
  t.expires_at(asio::steady_timer::time_point::max());
  co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

// Reads a frame of `size` bytes into `out`, growing it as the bytes arrive instead of
// allocating `size` from the prefix alone: a peer that promises socket.request.max.bytes
// and sends ten bytes holds 1 MiB of broker memory, not 100 MiB. Frames up to
// kFrameFirstReadBytes (nearly all) take one allocation and one read, as before.
constexpr size_t kSpareFrames = 2;
constexpr size_t kSpareFrameBytes = (1 << 20) + (64 << 10);

asio::awaitable<bool> read_frame(asio::ip::tcp::socket& socket, FrameBytes& out,
                                 size_t size) {
  out.clear();
  while (out.size() < size) {
    const size_t at = out.size();
    const size_t n = std::min(size - at, std::max(kFrameFirstReadBytes, at));
    out.resize(at + n);
    asio::error_code ec;
    co_await asio::async_read(socket, asio::buffer(out.data() + at, n),
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return false;
  }
  co_return true;
}
}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, size_t shard, const NetConfig& config,
                       RequestHandler& handler)
    : socket_(std::move(socket)),
      shard_(shard),
      config_(config),
      handler_(handler),
      queue_changed_(socket_.get_executor()) {
  asio::error_code ec;
  const auto ep = socket_.remote_endpoint(ec);
  peer_ = ec ? "unknown" : ep.address().to_string() + ":" + std::to_string(ep.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
}

void Connection::start() {
  auto self = shared_from_this();
  asio::co_spawn(socket_.get_executor(), [self]() { return self->read_loop(); }, asio::detached);
  asio::co_spawn(socket_.get_executor(), [self]() { return self->write_loop(); }, asio::detached);
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  asio::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  queue_changed_.cancel();
}

asio::awaitable<void> Connection::read_loop() {
  auto self = shared_from_this();
  for (;;) {
    uint8_t size_bytes[4];
    asio::error_code ec;
    co_await asio::async_read(socket_, asio::buffer(size_bytes),
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    const int32_t size = int32_t(load_be32(size_bytes));
    if (size < 8 || size > config_.socket_request_max_bytes) {
      // Kafka closes the connection on a frame it will not read (InvalidReceiveException).
      spdlog::warn("closing {}: request size {} outside [8, socket.request.max.bytes={}]", peer_,
                   size, config_.socket_request_max_bytes);
      break;
    }
    Frame frame;
    frame.client_address = peer_;
    frame.shard = shard_;
    frame.turn = Turn(order_, order_->issue());
    if (!spare_frames_.empty()) {
      frame.bytes = std::move(spare_frames_.back());
      spare_frames_.pop_back();
    }
    if (!co_await read_frame(socket_, frame.bytes, size_t(size))) break;
    while (!closed_ && queue_.size() >= config_.max_inflight_per_connection) {
      co_await wait_event(queue_changed_);
    }
    if (closed_) break;
    auto slot = std::make_shared<Pending>(socket_.get_executor());
    slot->done.expires_at(asio::steady_timer::time_point::max());
    queue_.push_back(slot);
    queue_changed_.cancel();
    asio::co_spawn(socket_.get_executor(), handle(slot, std::move(frame)), asio::detached);
  }
  close();
}

asio::awaitable<void> Connection::handle(std::shared_ptr<Pending> slot, Frame frame) {
  auto self = shared_from_this();
  try {
    slot->response = co_await handler_.handle(frame);
  } catch (const std::exception& e) {
    spdlog::error("request from {} failed: {}", peer_, e.what());
    slot->response.reset();
  }
  slot->ready = true;
  slot->done.cancel();
  // The response no longer refers to the request (records go out as file slices), so
  // its buffer can take the next frame. A few per connection, none over 1 MiB + 64 KiB:
  // an idle connection keeps at most kSpareFrames such buffers.
  if (spare_frames_.size() < kSpareFrames && frame.bytes.capacity() <= kSpareFrameBytes) {
    spare_frames_.push_back(std::move(frame.bytes));
  }
}

asio::awaitable<void> Connection::write_loop() {
  auto self = shared_from_this();
  while (!closed_) {
    if (queue_.empty()) {
      co_await wait_event(queue_changed_);
      continue;
    }
    auto slot = queue_.front();
    while (!slot->ready && !closed_) {
      asio::error_code ec;
      co_await slot->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    if (closed_) break;
    if (!slot->response) break;  // the handler asked to close the connection
    if (slot->response->total_size() > 0 && !co_await send(*slot->response)) break;
    queue_.pop_front();
    queue_changed_.cancel();
  }
  close();
}

// Size prefix, then the bytes with file slices spliced in where they belong.
asio::awaitable<bool> Connection::send(const protocol::Output& out) {
  asio::error_code ec;
  uint8_t size_bytes[4];
  store_be32(size_bytes, uint32_t(out.total_size()));
  co_await asio::async_write(socket_, asio::buffer(size_bytes),
                             asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return false;
  size_t from = 0;
  std::vector<uint8_t> chunk;
  for (const protocol::Splice& s : out.splices) {
    co_await asio::async_write(socket_, asio::buffer(out.bytes.data() + from, s.at - from),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return false;
    from = s.at;
    if (config_.sendfile) {
      if (!co_await send_file(s.slice)) co_return false;
      continue;
    }
    for (uint64_t done = 0; done < s.slice.size;) {
      const size_t n = size_t(std::min<uint64_t>(kFileChunkBytes, s.slice.size - done));
      chunk.resize(n);
      const ssize_t got = ::pread(s.slice.fd, chunk.data(), n, off_t(s.slice.position + done));
      if (got <= 0) co_return false;  // the file shrank under us: drop the connection
      co_await asio::async_write(socket_, asio::buffer(chunk.data(), size_t(got)),
                                 asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return false;
      done += uint64_t(got);
    }
  }
  co_await asio::async_write(socket_, asio::buffer(out.bytes.data() + from, out.bytes.size() - from),
                             asio::redirect_error(asio::use_awaitable, ec));
  co_return !ec;
}

// sendfile(2) from the segment file: the kernel moves page-cache pages to the socket.
// The socket is non-blocking, so a full send buffer answers EAGAIN: wait until
// writable and go on.
asio::awaitable<bool> Connection::send_file(const protocol::FileSlice& slice) {
  asio::error_code nb;
  if (!socket_.native_non_blocking()) socket_.native_non_blocking(true, nb);
  if (nb) co_return false;  // closed meanwhile
  off_t at = off_t(slice.position);
  for (uint64_t left = slice.size; left > 0;) {
    const ssize_t n = ::sendfile(socket_.native_handle(), slice.fd, &at,
                                 size_t(std::min<uint64_t>(left, 1u << 30)));
    if (n > 0) {
      left -= uint64_t(n);
      continue;
    }
    if (n == 0) co_return false;  // the file shrank under us: drop the connection
    if (errno == EINTR) continue;
    if (errno != EAGAIN) co_return false;
    asio::error_code ec;
    co_await socket_.async_wait(asio::ip::tcp::socket::wait_write,
                                asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return false;
  }
  co_return true;
}

}  // namespace strata::net

#include "net/connection.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>
#include <sys/sendfile.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <vector>

#include "common/bytes.h"
#include "common/log_limit.h"

namespace strata::net {

namespace {
constexpr size_t kFileChunkBytes = 1 << 20;
// A frame's buffer grows by what has arrived (and at least this), at least doubling per
// step: a peer's size prefix alone buys it at most this much of the request budget.
constexpr size_t kFrameStepMinBytes = 4 << 10;

// Waits on a timer used as an event: returns when it is cancelled (notified).
asio::awaitable<void> wait_event(asio::steady_timer& t) {
  asio::error_code ec;
  t.expires_at(asio::steady_timer::time_point::max());
  co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

// Request buffers of finished requests kept for a connection's next frames (their pages
// are already mapped, so a new request costs no page faults): at most kSpareFrames per
// connection, none over kSpareFrameBytes, and at most kSpareBytesMax of them in the whole
// process, so idle connections cannot pin memory outside queued.max.request.bytes.
constexpr size_t kSpareFrames = 2;
constexpr size_t kSpareFrameBytes = (1 << 20) + (64 << 10);
constexpr int64_t kSpareBytesMax = 64 << 20;
std::atomic<int64_t> spare_bytes{0};

// A certificate's subject as RFC 2253 text ("CN=alice,OU=eng,O=Example"), the form
// Kafka's principal mapping rules match (Java's X500Principal.getName()).
std::string subject_of(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (bio == nullptr) return "";
  X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string out(data, size_t(n > 0 ? n : 0));
  BIO_free(bio);
  return out;
}
}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, size_t shard, const NetConfig& config,
                       std::shared_ptr<const Listener> listener, RequestHandler& handler,
                       ConnectionSlot slot, RequestBudget& budget)
    : socket_(std::move(socket)),
      session_(std::make_shared<Session>(std::move(listener))),
      shard_(shard),
      config_(config),
      handler_(handler),
      queue_changed_(socket_.get_executor()),
      slot_(std::move(slot)),
      budget_(budget),
      budget_waiter_(std::make_shared<BudgetWaiter>(socket_.get_executor())),
      idle_timer_(socket_.get_executor()),
      last_activity_(std::chrono::steady_clock::now()) {
  asio::error_code ec;
  const auto ep = socket_.remote_endpoint(ec);
  peer_ = ec ? "unknown" : ep.address().to_string() + ":" + std::to_string(ep.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  if (session_->listener->tls_context) {
    tls_context_ = session_->listener->tls_context();
    if (tls_context_) tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(socket_, *tls_context_);
  }
}

void Connection::start() {
  auto self = shared_from_this();
  asio::co_spawn(socket_.get_executor(), [self]() { return self->read_loop(); }, asio::detached);
  asio::co_spawn(socket_.get_executor(), [self]() { return self->write_loop(); }, asio::detached);
  if (config_.connections_max_idle_ms >= 0) {
    asio::co_spawn(socket_.get_executor(), [self]() { return self->idle_loop(); }, asio::detached);
  }
}

Connection::~Connection() {
  for (const FrameBytes& b : spare_frames_) spare_bytes.fetch_sub(int64_t(b.capacity()));
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  asio::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  queue_changed_.cancel();
  slot_.release();  // the descriptor is gone: max.connections counts it no more
  budget_waiter_->cancel();
  idle_timer_.cancel();
}

asio::awaitable<void> Connection::read_loop() {
  auto self = shared_from_this();
  if (session_->listener->tls_context && !co_await tls_handshake()) {
    close();
    co_return;
  }
  for (;;) {
    uint8_t size_bytes[4];
    if (!co_await read_exact(size_bytes, sizeof(size_bytes))) break;
    const int32_t size = int32_t(load_be32(size_bytes));
    // Before a SASL listener's peer has authenticated, frames are bounded by
    // sasl.server.max.receive.size, as Kafka bounds them; a raw SASL token may be empty.
    const bool authenticated = session_->authenticated;
    const int32_t max = authenticated ? config_.socket_request_max_bytes
                                      : config_.sasl_server_max_receive_size;
    const int32_t min = session_->raw_sasl_tokens ? 0 : 8;
    if (size < min || size > max) {
      // Kafka closes the connection on a frame it will not read (InvalidReceiveException).
      static LogLimit bad_size("closing: request size");
      bad_size.warn("closing {}: request size {} outside [{}, {}={}]", peer_, size, min,
                    authenticated ? "socket.request.max.bytes" : "sasl.server.max.receive.size", max);
      break;
    }
    Frame frame;
    frame.session = session_;
    frame.client_address = peer_;
    frame.shard = shard_;
    frame.turn = Turn(order_, order_->issue());
    if (!spare_frames_.empty()) {
      frame.bytes = std::move(spare_frames_.back());
      spare_frames_.pop_back();
      spare_bytes.fetch_sub(int64_t(frame.bytes.capacity()));
    }
    if (!co_await read_frame(frame, size_t(size))) break;
    frame.received = std::chrono::steady_clock::now();
    while (!closed_ && queue_.size() >= config_.max_inflight_per_connection) {
      co_await wait_event(queue_changed_);
    }
    if (closed_) break;
    auto slot = std::make_shared<Pending>(socket_.get_executor());
    slot->done.expires_at(asio::steady_timer::time_point::max());
    slot->received = frame.received;
    if (frame.bytes.size() >= 2) slot->api_key = int16_t(load_be16(frame.bytes.data()));
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
    static LogLimit failed("request failed");
    failed.error("request from {} failed: {}", peer_, e.what());
    slot->response.reset();
  }
  slot->ready = true;
  slot->done.cancel();
  // The response no longer refers to the request (records go out as file slices), so
  // its buffer can take the next frame. The frame's budget is given back as it goes.
  keep_spare(std::move(frame.bytes));
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
    const protocol::Output& out = *slot->response;
    if ((out.total_size() > 0 || out.always_send) && !co_await send(out)) break;
    handler_.response_sent(slot->api_key, std::chrono::duration<double, std::milli>(
                                              std::chrono::steady_clock::now() - slot->received).count());
    if (out.close_after) break;
    note_activity();
    queue_.pop_front();
    queue_changed_.cancel();
  }
  close();
}

// Size prefix, then the bytes with file slices spliced in where they belong.
asio::awaitable<bool> Connection::send(const protocol::Output& out) {
  uint8_t size_bytes[4];
  store_be32(size_bytes, uint32_t(out.total_size()));
  if (!co_await write_all(asio::buffer(size_bytes))) co_return false;
  size_t from = 0;
  std::vector<uint8_t> chunk;
  for (const protocol::Splice& s : out.splices) {
    if (!co_await write_all(asio::buffer(out.bytes.data() + from, s.at - from))) co_return false;
    from = s.at;
    // TLS encrypts in user space: the file's bytes must pass through a buffer.
    const bool sent = config_.sendfile && !tls_ ? co_await send_file(s.slice)
                                                : co_await send_copy(s.slice, chunk);
    if (!sent) co_return false;
  }
  co_return co_await write_all(asio::buffer(out.bytes.data() + from, out.bytes.size() - from));
}

// pread into a 1 MiB buffer and write: for TLS, and where sendfile is turned off.
asio::awaitable<bool> Connection::send_copy(const protocol::FileSlice& slice,
                                            std::vector<uint8_t>& chunk) {
  for (uint64_t done = 0; done < slice.size;) {
    const size_t n = size_t(std::min<uint64_t>(kFileChunkBytes, slice.size - done));
    chunk.resize(n);
    const ssize_t got = ::pread(slice.fd, chunk.data(), n, off_t(slice.position + done));
    if (got <= 0) co_return false;  // the file shrank under us: drop the connection
    if (!co_await write_all(asio::buffer(chunk.data(), size_t(got)))) co_return false;
    done += uint64_t(got);
  }
  co_return true;
}

asio::awaitable<size_t> Connection::read_some(asio::mutable_buffer to, asio::error_code& ec) {
  if (tls_) co_return co_await tls_->async_read_some(to, asio::redirect_error(asio::use_awaitable, ec));
  co_return co_await socket_.async_read_some(to, asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<bool> Connection::write_all(asio::const_buffer from) {
  asio::error_code ec;
  if (from.size() == 0) co_return true;
  if (tls_) {
    co_await asio::async_write(*tls_, from, asio::redirect_error(asio::use_awaitable, ec));
  } else {
    co_await asio::async_write(socket_, from, asio::redirect_error(asio::use_awaitable, ec));
  }
  co_return !ec;
}

// The TLS handshake, then the peer's certificate (if it sent one; ssl.client.auth in
// the context decides whether it must) gives the principal. A peer that stalls here is
// closed by connections.max.idle.ms like any other silent peer.
asio::awaitable<bool> Connection::tls_handshake() {
  static LogLimit failed("TLS handshake failed");
  if (!tls_) co_return false;  // the context could not be had
  asio::error_code ec;
  co_await tls_->async_handshake(asio::ssl::stream_base::server,
                                 asio::redirect_error(asio::use_awaitable, ec));
  note_activity();
  if (ec) {
    failed.warn("closing {}: TLS handshake failed: {}", peer_, ec.message());
    co_return false;
  }
  X509* cert = SSL_get1_peer_certificate(tls_->native_handle());
  if (cert == nullptr) co_return true;
  const std::string subject = subject_of(cert);
  X509_free(cert);
  if (session_->listener->certificate_principal) {
    const std::string principal = session_->listener->certificate_principal(subject);
    if (principal.empty()) {
      failed.warn("closing {}: no principal for certificate subject '{}' (ssl.principal.mapping.rules)",
                  peer_, subject);
      co_return false;
    }
    session_->principal = principal;
  }
  co_return true;
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

// ---- limits ------------------------------------------------------------------------

// Reads a frame of `size` bytes into frame.bytes, growing the buffer as the bytes arrive
// instead of allocating `size` from the prefix alone, and taking each growth from the
// request budget first (waiting, not reading, while it has no room). A peer that promises
// socket.request.max.bytes and sends ten bytes holds 4 KiB, not 100 MiB. Frames that
// arrive whole (nearly all) take one step: the buffer is sized to what is already there.
asio::awaitable<bool> Connection::read_frame(Frame& frame, size_t size) {
  FrameBytes& out = frame.bytes;
  out.clear();
  while (out.size() < size) {
    const size_t at = out.size();
    asio::error_code ec;
    const size_t arrived = socket_.available(ec);  // bytes in the kernel's buffer
    if (ec) co_return false;
    const size_t n = std::min(size - at, std::max({kFrameStepMinBytes, at, arrived}));
    if (frame.budget.bytes() < at + n) {
      const size_t more = at + n - frame.budget.bytes();
      if (!budget_.try_grow(frame.budget, more)) {
        waiting_for_budget_ = true;
        const bool got = co_await budget_.grow(frame.budget, more, budget_waiter_);
        waiting_for_budget_ = false;
        if (!got || closed_) co_return false;
      }
    }
    out.resize(at + n);
    if (!co_await read_exact(out.data() + at, n)) co_return false;
  }
  co_return true;
}

// Reads exactly n bytes, noting each arrival for connections.max.idle.ms (a frame that
// trickles in is not idle).
asio::awaitable<bool> Connection::read_exact(uint8_t* to, size_t n) {
  for (size_t done = 0; done < n;) {
    asio::error_code ec;
    const size_t got = co_await read_some(asio::buffer(to + done, n - done), ec);
    if (ec) co_return false;
    done += got;
    note_activity();
  }
  co_return true;
}

void Connection::keep_spare(FrameBytes bytes) {
  const int64_t cap = int64_t(bytes.capacity());
  if (spare_frames_.size() >= kSpareFrames || bytes.capacity() > kSpareFrameBytes) return;
  if (spare_bytes.fetch_add(cap) + cap > kSpareBytesMax) {
    spare_bytes.fetch_sub(cap);
    return;
  }
  spare_frames_.push_back(std::move(bytes));
}

// A request is being handled, or a frame waits for the request budget: the broker, not
// the peer, is what the connection waits for.
bool Connection::busy() const {
  if (waiting_for_budget_) return true;
  return std::any_of(queue_.begin(), queue_.end(), [](const auto& p) { return !p->ready; });
}

// connections.max.idle.ms: a connection that has read and written nothing for that long,
// while no request of it is being handled, is closed (Kafka's idle expiry). Wakes once per
// idle period, not per tick: last_activity_ moves on and the deadline follows it.
asio::awaitable<void> Connection::idle_loop() {
  auto self = shared_from_this();
  const auto idle = std::chrono::milliseconds(config_.connections_max_idle_ms);
  auto deadline = last_activity_ + idle;
  while (!closed_) {
    asio::error_code ec;
    idle_timer_.expires_at(deadline);
    co_await idle_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (closed_) break;
    const auto now = std::chrono::steady_clock::now();
    if (now < last_activity_ + idle) {
      deadline = last_activity_ + idle;
      continue;
    }
    if (busy()) {
      deadline = now + idle;  // its completion is activity, which moves the deadline
      continue;
    }
    spdlog::debug("closing {}: idle for {} ms (connections.max.idle.ms)", peer_,
                  config_.connections_max_idle_ms);
    close();
  }
}

}  // namespace strata::net

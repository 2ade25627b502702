#include "common/thread_name.h"
#include "net/server.h"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <csignal>

#include "common/shard.h"
#include "common/log_limit.h"
#include "net/connection.h"

namespace strata::net {

namespace {

// Out of descriptors (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM): the pending
// connection stays in the listen backlog and the same error comes back at once, so
// retrying without a pause spins a core (and, logged, fills the disk).
bool is_resource_exhaustion(const asio::error_code& ec) {
  if (ec.category() != asio::error::get_system_category()) return false;
  const int e = ec.value();
  return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

// max.connections.per.ip.overrides: each host as an address, or every address it resolves to.
bool resolve_overrides(const std::vector<std::pair<std::string, int32_t>>& hosts,
                       std::map<asio::ip::address, int32_t>& out, std::string& error) {
  asio::io_context io;
  asio::ip::tcp::resolver resolver(io);
  for (const auto& [host, count] : hosts) {
    asio::error_code ec;
    const auto literal = asio::ip::make_address(host, ec);
    if (!ec) {
      out[normalized(literal)] = count;
      continue;
    }
    const auto results = resolver.resolve(host, "", ec);
    if (ec || results.empty()) {
      error = "max.connections.per.ip.overrides: cannot resolve " + host +
              (ec ? ": " + ec.message() : "");
      return false;
    }
    for (const auto& r : results) out[normalized(r.endpoint().address())] = count;
  }
  return true;
}

}  // namespace

Server::Server(const NetConfig& config, RequestHandler& handler)
    : config_(config), handler_(handler), budget_(config.queued_max_request_bytes) {
  // sendfile(2) has no MSG_NOSIGNAL: a peer that resets mid-response must not kill the
  // process (asio's own writes already pass MSG_NOSIGNAL).
  ::signal(SIGPIPE, SIG_IGN);
  for (size_t i = 0; i < std::max<size_t>(1, config_.shards); ++i) {
    shards_.push_back(std::make_unique<asio::io_context>(1));
    guards_.push_back(asio::make_work_guard(*shards_.back()));
  }
  for (const Listener& l : config_.listeners) {
    auto a = std::make_unique<Acceptor>();
    a->listener = std::make_shared<const Listener>(l);
    a->timer = std::make_unique<asio::steady_timer>(*shards_[0]);
    acceptors_.push_back(std::move(a));
  }
}

Server::~Server() { stop(); }

bool Server::listen(std::string& error) {
  std::map<asio::ip::address, int32_t> overrides;
  if (!resolve_overrides(config_.max_connections_per_ip_overrides, overrides, error)) return false;
  quotas_ = std::make_unique<ConnectionQuotas>(config_.max_connections,
                                               config_.max_connections_per_ip, std::move(overrides));
  // A connection closing on any shard wakes an accept loop waiting for a slot.
  quotas_->set_slot_freed([this] {
    asio::post(*shards_[0], [this] {
      for (auto& a : acceptors_) a->timer->cancel();
    });
  });
  for (auto& a : acceptors_) {
    if (!listen_on(*a, error)) return false;
  }
  return true;
}

bool Server::listen_on(Acceptor& a, std::string& error) {
  const Listener& l = *a.listener;
  asio::error_code ec;
  const auto address = asio::ip::make_address(l.host, ec);
  if (ec) {
    error = "bad listener host " + l.host + " (" + l.name + "): " + ec.message();
    return false;
  }
  a.socket = std::make_unique<asio::ip::tcp::acceptor>(*shards_[0]);
  const asio::ip::tcp::endpoint ep(address, l.port);
  a.socket->open(ep.protocol(), ec);
  if (!ec) a.socket->set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) a.socket->bind(ep, ec);
  if (!ec) a.socket->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "cannot listen on " + l.host + ":" + std::to_string(l.port) + " (" + l.name +
            "): " + ec.message();
    return false;
  }
  a.port = a.socket->local_endpoint().port();
  return true;
}

// max.connections is reached: like Kafka's acceptor, stop accepting (new connections
// wait in the listen backlog) until a connection closes. False once the listener closed.
asio::awaitable<bool> Server::wait_for_connection_slot(Acceptor& a) {
  static LogLimit limit("max.connections reached");
  while (!quotas_->try_reserve()) {
    limit.warn("max.connections={} reached: not accepting until a connection closes",
               quotas_->max_total());
    // Woken when a slot frees; the timeout is a fallback, not the mechanism.
    a.timer->expires_after(std::chrono::seconds(1));
    asio::error_code ec;
    co_await a.timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (!a.socket->is_open()) co_return false;
  }
  co_return true;
}

asio::awaitable<void> Server::back_off_after(Acceptor& a, const asio::error_code& ec,
                                             std::chrono::milliseconds& backoff) {
  static LogLimit exhausted("accept failed: out of resources");
  static LogLimit other("accept failed");
  if (!is_resource_exhaustion(ec)) {
    // A peer that gave up before the accept (ECONNABORTED) and the like: the next
    // pending connection is unaffected.
    other.warn("accept failed: {}", ec.message());
    co_return;
  }
  exhausted.warn("accept failed: {}; retrying in {} ms", ec.message(), backoff.count());
  a.timer->expires_after(backoff);
  asio::error_code wait_ec;
  co_await a.timer->async_wait(asio::redirect_error(asio::use_awaitable, wait_ec));
  backoff = std::min(backoff * 2, kAcceptBackoffMax);
}

void Server::admit(const std::shared_ptr<const Listener>& listener, asio::ip::tcp::socket socket,
                   size_t shard) {
  static LogLimit over_ip("closing: max.connections.per.ip");
  asio::error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  if (ec) {
    quotas_->unreserve();  // reset before we looked: nothing to serve
    return;
  }
  const auto address = normalized(peer.address());
  if (!quotas_->admit(address)) {
    over_ip.warn("closing {}: {} connections from it already (max.connections.per.ip)",
                 address.to_string(), quotas_->limit_for(address));
    socket.close(ec);
    return;
  }
  ConnectionSlot slot(quotas_.get(), address);
  auto conn = std::make_shared<Connection>(std::move(socket), shard, config_, listener, handler_,
                                           std::move(slot), budget_);
  asio::post(*shards_[shard], [conn] { conn->start(); });
}

asio::awaitable<void> Server::accept_loop(Acceptor& a) {
  std::chrono::milliseconds backoff = kAcceptBackoffFirst;
  for (;;) {
    if (!co_await wait_for_connection_slot(a)) co_return;
    const size_t shard = next_shard_ % shards_.size();
    asio::error_code ec;
    auto socket = co_await a.socket->async_accept(*shards_[shard],
                                                  asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted || !a.socket->is_open()) {
      quotas_->unreserve();
      co_return;
    }
    if (ec) {
      quotas_->unreserve();
      co_await back_off_after(a, ec, backoff);
      continue;
    }
    backoff = kAcceptBackoffFirst;
    ++next_shard_;
    admit(a.listener, std::move(socket), shard);
  }
}

void Server::start() {
  for (auto& a : acceptors_) asio::co_spawn(*shards_[0], accept_loop(*a), asio::detached);
  for (size_t i = 0; i < shards_.size(); ++i) {
    threads_.emplace_back([c = shards_[i].get(), i] {
      set_current_shard(int(i));
      set_thread_name("shard-" + std::to_string(i));
      c->run();
    });
  }
}

void Server::stop() {
  asio::post(*shards_[0], [this] {
    for (auto& a : acceptors_) {
      asio::error_code ec;
      if (a->socket) a->socket->close(ec);
    }
  });
  guards_.clear();
  for (auto& ctx : shards_) ctx->stop();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  // Connections still held by the stopped shards give their slots back when the shards
  // are destroyed; shard 0 can then no longer be posted to.
  if (quotas_) quotas_->set_slot_freed({});
}

}  // namespace strata::net

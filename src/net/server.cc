#include "net/server.h"

#include <spdlog/spdlog.h>

#include <csignal>

#include "common/shard.h"
#include "net/connection.h"

namespace strata::net {

Server::Server(const NetConfig& config, RequestHandler& handler)
    : config_(config), handler_(handler) {
  // sendfile(2) has no MSG_NOSIGNAL: a peer that resets mid-response must not kill the
  // process (asio's own writes already pass MSG_NOSIGNAL).
  ::signal(SIGPIPE, SIG_IGN);
  for (size_t i = 0; i < std::max<size_t>(1, config_.shards); ++i) {
    shards_.push_back(std::make_unique<asio::io_context>(1));
    guards_.push_back(asio::make_work_guard(*shards_.back()));
  }
}

Server::~Server() { stop(); }

bool Server::listen(std::string& error) {
  asio::error_code ec;
  const auto address = asio::ip::make_address(config_.host, ec);
  if (ec) {
    error = "bad listener host " + config_.host + ": " + ec.message();
    return false;
  }
  acceptor_ = std::make_unique<asio::ip::tcp::acceptor>(*shards_[0]);
  const asio::ip::tcp::endpoint ep(address, config_.port);
  acceptor_->open(ep.protocol(), ec);
  if (!ec) acceptor_->set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_->bind(ep, ec);
  if (!ec) acceptor_->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "cannot listen on " + config_.host + ":" + std::to_string(config_.port) + ": " +
            ec.message();
    return false;
  }
  port_ = acceptor_->local_endpoint().port();
  return true;
}

asio::awaitable<void> Server::accept_loop() {
  for (;;) {
    const size_t shard = next_shard_++ % shards_.size();
    asio::error_code ec;
    auto socket = co_await acceptor_->async_accept(*shards_[shard],
                                                   asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted || !acceptor_->is_open()) co_return;
    if (ec) {
      spdlog::warn("accept failed: {}", ec.message());
      continue;
    }
    auto conn = std::make_shared<Connection>(std::move(socket), shard, config_, handler_);
    asio::post(*shards_[shard], [conn] { conn->start(); });
  }
}

void Server::start() {
  asio::co_spawn(*shards_[0], accept_loop(), asio::detached);
  for (size_t i = 0; i < shards_.size(); ++i) {
    threads_.emplace_back([c = shards_[i].get(), i] {
      set_current_shard(int(i));
      c->run();
    });
  }
}

void Server::stop() {
  if (acceptor_) {
    asio::post(*shards_[0], [this] {
      asio::error_code ec;
      acceptor_->close(ec);
    });
  }
  guards_.clear();
  for (auto& ctx : shards_) ctx->stop();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

}  // namespace strata::net

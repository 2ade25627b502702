#include "broker/admin_server.h"

#include <httplib.h>
#include <pthread.h>
#include <sys/socket.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

namespace strata::broker {
namespace {

constexpr const char* kPrometheusType = "text/plain; version=0.0.4; charset=utf-8";

// httplib's task queue with a bound: the accepting thread waits in enqueue() while
// kAdminPendingMax connections already wait for a worker (httplib 0.11's own pool queues
// without limit).
class BoundedQueue : public httplib::TaskQueue {
 public:
  explicit BoundedQueue(size_t workers) {
    for (size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }
  ~BoundedQueue() override = default;

  void enqueue(std::function<void()> fn) override {
    std::unique_lock lock(mu_);
    room_.wait(lock, [this] { return jobs_.size() < kAdminPendingMax || stopping_; });
    // Shutting down: the one connection the accepting thread holds is dropped unserved
    // (httplib gives no way to close it from here; the process's stop is under way).
    if (stopping_) return;
    jobs_.push_back(std::move(fn));
    ready_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    ready_.notify_all();
    room_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mu_);
        ready_.wait(lock, [this] { return !jobs_.empty() || stopping_; });
        if (jobs_.empty()) return;  // stopping, nothing left
        job = std::move(jobs_.front());
        jobs_.pop_front();
        room_.notify_one();
      }
      job();
    }
  }

  std::mutex mu_;
  std::condition_variable ready_;  // a job or stopping_
  std::condition_variable room_;   // below the bound, or stopping_
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

AdminServer::AdminServer(std::function<std::string()> metrics) : server_(std::make_unique<httplib::Server>()) {
  httplib::Server& s = *server_;
  s.new_task_queue = [] { return new BoundedQueue(kAdminWorkers); };
  s.set_read_timeout(kAdminTimeoutSec, 0);
  s.set_write_timeout(kAdminTimeoutSec, 0);
  s.set_keep_alive_timeout(kAdminKeepAliveSec);
  s.set_keep_alive_max_count(kAdminKeepAliveRequests);
  s.set_payload_max_length(kAdminBodyBytesMax);
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, with which a second broker on
  // the same metrics port would bind it too and take half the scrapes, not fail to start.
  s.set_socket_options([](int sock) {
    const int one = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  });
  s.Get("/metrics", [metrics = std::move(metrics)](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics(), kPrometheusType);
  });
  // The path exists, the method does not serve it.
  auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
    res.status = 405;
    res.set_header("Allow", "GET, HEAD");
  };
  s.Post("/metrics", not_allowed);
  s.Put("/metrics", not_allowed);
  s.Delete("/metrics", not_allowed);
  s.Patch("/metrics", not_allowed);
  s.Options("/metrics", not_allowed);
  s.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
    spdlog::error("admin listener: {} {} failed", req.method, req.path);
    res.status = 500;
  });
}

AdminServer::~AdminServer() { stop(); }

bool AdminServer::listen(const std::string& host, uint16_t port, std::string& error) {
  errno = 0;
  const int bound = port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    error = "cannot listen on " + host + ":" + std::to_string(port) + ": " +
            (errno != 0 ? std::strerror(errno) : "not an address of this machine");
    return false;
  }
  port_ = uint16_t(bound);
  return true;
}

void AdminServer::start() {
  thread_ = std::thread([s = server_.get()] {
    pthread_setname_np(pthread_self(), "admin-http");
    s->listen_after_bind();
  });
  // stop() acts only on a running server: wait (briefly) until it is.
  for (int i = 0; i < 2000 && !server_->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void AdminServer::stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace strata::broker

// The admin listener over real sockets: /metrics served (GET, HEAD, keep-alive), other
// paths and methods refused with their statuses, hostile input answered or closed, idle
// and stalled connections bounded in time, many connections at once bounded.
#include "broker/admin_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace strata::broker {
namespace {

using Clock = std::chrono::steady_clock;

class AdminServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<AdminServer>([this] {
      ++scrapes_;
      return std::string("up 1\n");
    });
    std::string error;
    ASSERT_TRUE(server_->listen("127.0.0.1", 0, error)) << error;
    server_->start();
  }
  void TearDown() override { server_.reset(); }

  httplib::Client client() {
    httplib::Client c("127.0.0.1", server_->bound_port());
    c.set_read_timeout(10, 0);
    return c;
  }
  // A raw connection: sends `request`, reads until the server closes or 10 s pass.
  std::string raw(const std::string& request) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(server_->bound_port());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string answer;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      answer.append(buf, size_t(n));
    }
    ::close(fd);
    return answer;
  }

  std::atomic<int> scrapes_{0};
  std::unique_ptr<AdminServer> server_;
};

TEST_F(AdminServerTest, ServesMetrics) {
  auto c = client();
  auto r = c.Get("/metrics");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "up 1\n");
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  auto h = c.Head("/metrics");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_TRUE(h->body.empty());
  // Keep-alive: the same client, more requests.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(c.Get("/metrics")->status, 200);
  EXPECT_GE(scrapes_.load(), 7);
}

TEST_F(AdminServerTest, OtherPathsAndMethods) {
  auto c = client();
  EXPECT_EQ(c.Get("/nope")->status, 404);
  auto post = c.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
  EXPECT_EQ(c.Delete("/metrics")->status, 405);
}

TEST_F(AdminServerTest, HostileRequestsAreAnsweredOrClosed) {
  EXPECT_TRUE(raw("\x16\x03\x01 garbage\r\n\r\n").starts_with("HTTP/1.1 400 ")) << raw("\x16\x03\x01 x\r\n\r\n");
  const std::string huge_header = "GET /metrics HTTP/1.1\r\nX: " + std::string(100000, 'a') + "\r\n\r\n";
  const std::string answer = raw(huge_header);
  EXPECT_TRUE(answer.empty() || !answer.starts_with("HTTP/1.1 200")) << answer.substr(0, 40);
  const std::string big_body = "POST /metrics HTTP/1.1\r\nContent-Length: " + std::to_string(kAdminBodyBytesMax * 4) +
                               "\r\n\r\n" + std::string(1000, 'b');
  EXPECT_FALSE(raw(big_body).starts_with("HTTP/1.1 200"));
  // Still serving after all that.
  EXPECT_EQ(client().Get("/metrics")->body, "up 1\n");
}

TEST_F(AdminServerTest, SilentAndIdleConnectionsAreClosed) {
  const auto started = Clock::now();
  EXPECT_EQ(raw(""), "");  // sends nothing: closed at the read timeout
  const auto waited = Clock::now() - started;
  EXPECT_LT(waited, std::chrono::seconds(kAdminTimeoutSec + 3));
}

TEST_F(AdminServerTest, ManyConnectionsAtOnceAreBoundedAndServed) {
  // As many silent connections as workers and queue slots together: every worker is held
  // until its connection's read times out, and the scrape waits its turn, within two
  // rounds of the timeout (bounded, not fast: the listener belongs on a private address).
  std::vector<int> fds;
  for (size_t i = 0; i < kAdminWorkers + kAdminPendingMax; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(server_->bound_port());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) fds.push_back(fd);
  }
  auto c = client();
  c.set_read_timeout(3 * kAdminTimeoutSec, 0);
  c.set_connection_timeout(3 * kAdminTimeoutSec, 0);
  const auto started = Clock::now();
  auto r = c.Get("/metrics");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(2 * kAdminTimeoutSec + 2));
  for (int fd : fds) ::close(fd);
}

TEST(AdminServerListen, APortInUseIsAnError) {
  AdminServer a([] { return std::string(); });
  std::string error;
  ASSERT_TRUE(a.listen("127.0.0.1", 0, error)) << error;
  AdminServer b([] { return std::string(); });
  EXPECT_FALSE(b.listen("127.0.0.1", a.bound_port(), error));
  EXPECT_NE(error.find("cannot listen"), std::string::npos) << error;
}

}  // namespace
}  // namespace strata::broker

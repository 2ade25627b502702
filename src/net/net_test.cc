// net::Server against plain blocking sockets: framing, size limits, response order, and
// the limits (max.connections, max.connections.per.ip, connections.max.idle.ms,
// queued.max.request.bytes, accept backoff under fd exhaustion).
//
// Test requests are frames of [op:1][unused:3][id:4][payload]; the handler answers
// [id:4] (or nothing, or closes) as the op says.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/bytes.h"
#include "net/server.h"

namespace strata::net {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr uint8_t kEcho = 'E';    // answer at once
constexpr uint8_t kDelay = 'D';   // answer after payload[0] ms
constexpr uint8_t kHold = 'H';    // answer once TestHandler::release_holds()
constexpr uint8_t kClose = 'C';   // close the connection

class TestHandler : public RequestHandler {
 public:
  asio::awaitable<std::optional<protocol::Output>> handle(Frame& frame) override {
    const int running = ++running_;
    for (int m = max_running_.load(); running > m && !max_running_.compare_exchange_weak(m, running);) {
    }
    ++handled_;
    const uint8_t op = frame.bytes[0];
    const uint32_t id = load_be32(frame.bytes.data() + 4);
    asio::steady_timer timer(co_await asio::this_coro::executor);
    if (op == kDelay) {
      timer.expires_after(std::chrono::milliseconds(frame.bytes.size() > 8 ? frame.bytes[8] : 0));
      co_await timer.async_wait(asio::use_awaitable);
    } else if (op == kHold) {
      while (!released_.load()) {
        timer.expires_after(2ms);
        co_await timer.async_wait(asio::use_awaitable);
      }
    }
    --running_;
    if (op == kClose) co_return std::nullopt;
    protocol::Output out;
    out.bytes.resize(4);
    store_be32(out.bytes.data(), id);
    co_return out;
  }
  void release_holds() { released_ = true; }
  int handled() const { return handled_; }
  int max_running() const { return max_running_; }

 private:
  std::atomic<int> running_{0}, max_running_{0}, handled_{0};
  std::atomic<bool> released_{false};
};

std::vector<uint8_t> frame_of(uint8_t op, uint32_t id, size_t payload_bytes = 0,
                              uint8_t payload_first = 0) {
  std::vector<uint8_t> f(4 + 8 + payload_bytes, 0);
  store_be32(f.data(), uint32_t(8 + payload_bytes));
  f[4] = op;
  store_be32(f.data() + 8, id);
  if (payload_bytes > 0) f[12] = payload_first;
  return f;
}

int connect_to(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

bool send_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) return false;
    p += k;
    n -= size_t(k);
  }
  return true;
}
bool send_all(int fd, const std::vector<uint8_t>& v) { return send_all(fd, v.data(), v.size()); }

// Reads exactly n bytes within `timeout`; false on timeout, EOF or error.
bool recv_exact(int fd, uint8_t* out, size_t n, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (n > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, int(left.count())) <= 0) return false;
    const ssize_t k = ::recv(fd, out, n, 0);
    if (k <= 0) return false;
    out += k;
    n -= size_t(k);
  }
  return true;
}

// The id of the next response, or -1 when none comes within `timeout`.
int64_t read_response(int fd, std::chrono::milliseconds timeout = 5000ms) {
  uint8_t b[8];
  if (!recv_exact(fd, b, 8, timeout)) return -1;
  if (load_be32(b) != 4) return -2;
  return load_be32(b + 4);
}

// True when the peer closed the connection within `timeout` (EOF or reset).
bool closed_by_peer(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, int(timeout.count())) <= 0) return false;
  uint8_t b;
  return ::recv(fd, &b, 1, MSG_DONTWAIT) <= 0;
}

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  operator int() const { return fd; }
};

struct TestServer {
  explicit TestServer(NetConfig c) : config(std::move(c)), server(prepare(config), handler) {
    std::string error;
    EXPECT_TRUE(server.listen(error)) << error;
    server.start();
  }
  static NetConfig& prepare(NetConfig& c) {
    c.listeners[0].port = 0;
    if (c.shards == 1) c.shards = 2;  // connections on different shards
    return c;
  }
  uint16_t port() const { return server.bound_port(); }
  Fd connect() { return Fd(connect_to(port())); }
  // An echo round trip on a new connection: the server serves new clients.
  bool serves(std::chrono::milliseconds timeout = 5000ms) {
    Fd c = connect();
    return c >= 0 && send_all(c, frame_of(kEcho, 4242)) && read_response(c, timeout) == 4242;
  }

  NetConfig config;
  TestHandler handler;
  Server server;
};

template <class F>
bool eventually(F f, std::chrono::milliseconds timeout = 5000ms) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (f()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return f();
}

// ---- framing -----------------------------------------------------------------------

TEST(Framing, OneRequestOneResponse) {
  TestServer s({});
  Fd c = s.connect();
  ASSERT_TRUE(send_all(c, frame_of(kEcho, 7)));
  EXPECT_EQ(read_response(c), 7);
}

TEST(Framing, FrameSentOneByteAtATime) {
  TestServer s({});
  Fd c = s.connect();
  const auto f = frame_of(kEcho, 11, 100);
  for (uint8_t b : f) {
    ASSERT_TRUE(send_all(c, &b, 1));
    std::this_thread::sleep_for(200us);
  }
  EXPECT_EQ(read_response(c), 11);
}

TEST(Framing, LargeFrameArrivingInPieces) {
  TestServer s({});
  Fd c = s.connect();
  const auto f = frame_of(kEcho, 12, 3 << 20);
  for (size_t at = 0; at < f.size(); at += 100000) {
    ASSERT_TRUE(send_all(c, f.data() + at, std::min<size_t>(100000, f.size() - at)));
  }
  EXPECT_EQ(read_response(c), 12);
  EXPECT_EQ(s.server.budget().used(), 0) << "the frame's budget is given back when handled";
}

TEST(Framing, HandlerCloseClosesTheConnection) {
  TestServer s({});
  Fd c = s.connect();
  ASSERT_TRUE(send_all(c, frame_of(kClose, 1)));
  EXPECT_TRUE(closed_by_peer(c, 5000ms));
  EXPECT_TRUE(s.serves());
}

// ---- size limits ---------------------------------------------------------------------

void expect_size_closes(int32_t size) {
  NetConfig n;
  n.socket_request_max_bytes = 1000;
  TestServer s(n);
  Fd c = s.connect();
  uint8_t prefix[4];
  store_be32(prefix, uint32_t(size));
  ASSERT_TRUE(send_all(c, prefix, 4));
  EXPECT_TRUE(closed_by_peer(c, 5000ms)) << size;
  EXPECT_EQ(s.handler.handled(), 0);
  EXPECT_TRUE(s.serves());
}

TEST(SizeLimits, SmallerThanAHeaderCloses) { expect_size_closes(7); }
TEST(SizeLimits, NegativeCloses) { expect_size_closes(-1); }
TEST(SizeLimits, OverSocketRequestMaxBytesCloses) { expect_size_closes(1001); }

TEST(SizeLimits, AtSocketRequestMaxBytesIsRead) {
  NetConfig n;
  n.socket_request_max_bytes = 1000;
  TestServer s(n);
  Fd c = s.connect();
  ASSERT_TRUE(send_all(c, frame_of(kEcho, 5, 1000 - 8)));
  EXPECT_EQ(read_response(c), 5);
}

// ---- response order --------------------------------------------------------------------

// Pipelined requests whose handling finishes in reverse order are answered in request
// order, and were handled concurrently.
TEST(ResponseOrder, PipelinedRequestsAnsweredInOrder) {
  TestServer s({});
  Fd c = s.connect();
  std::vector<uint8_t> all;
  constexpr int kRequests = 40;
  for (int i = 0; i < kRequests; ++i) {
    auto f = frame_of(kDelay, uint32_t(i), 1, uint8_t(2 * (kRequests - i)));
    all.insert(all.end(), f.begin(), f.end());
  }
  ASSERT_TRUE(send_all(c, all));
  for (int i = 0; i < kRequests; ++i) ASSERT_EQ(read_response(c), i);
  EXPECT_GT(s.handler.max_running(), 1);
}

TEST(ResponseOrder, PastTheInflightLimitStillInOrder) {
  NetConfig n;
  n.max_inflight_per_connection = 3;
  TestServer s(n);
  Fd c = s.connect();
  std::mt19937 rng(1);
  std::vector<uint8_t> all;
  for (int i = 0; i < 200; ++i) {
    auto f = frame_of(kDelay, uint32_t(i), 1, uint8_t(rng() % 3));
    all.insert(all.end(), f.begin(), f.end());
  }
  ASSERT_TRUE(send_all(c, all));
  for (int i = 0; i < 200; ++i) ASSERT_EQ(read_response(c), i);
  EXPECT_LE(s.handler.max_running(), 3);
}

// ---- max.connections -------------------------------------------------------------------

TEST(MaxConnections, AcceptWaitsForASlot) {
  NetConfig n;
  n.max_connections = 2;
  TestServer s(n);
  Fd a = s.connect(), b = s.connect();
  ASSERT_TRUE(send_all(a, frame_of(kEcho, 1)));
  ASSERT_TRUE(send_all(b, frame_of(kEcho, 2)));
  ASSERT_EQ(read_response(a), 1);
  ASSERT_EQ(read_response(b), 2);
  // The kernel completes the third handshake (listen backlog); the broker does not
  // accept it until a slot frees.
  Fd c = s.connect();
  ASSERT_GE(c, 0);
  ASSERT_TRUE(send_all(c, frame_of(kEcho, 3)));
  EXPECT_EQ(read_response(c, 300ms), -1);
  EXPECT_EQ(s.server.quotas().open(), 2);
  a.reset();
  EXPECT_EQ(read_response(c, 3000ms), 3) << "accepted once a connection closed";
  EXPECT_EQ(read_response(b, 10ms), -1);
}

// ---- max.connections.per.ip --------------------------------------------------------------

TEST(MaxConnectionsPerIp, OverTheLimitClosedRightAfterAccept) {
  NetConfig n;
  n.max_connections_per_ip = 2;
  TestServer s(n);
  Fd a = s.connect(), b = s.connect();
  ASSERT_TRUE(send_all(a, frame_of(kEcho, 1)));
  ASSERT_EQ(read_response(a), 1);
  ASSERT_TRUE(send_all(b, frame_of(kEcho, 2)));
  ASSERT_EQ(read_response(b), 2);
  Fd c = s.connect();
  EXPECT_TRUE(closed_by_peer(c, 3000ms));
  EXPECT_EQ(s.handler.handled(), 2);
  a.reset();
  EXPECT_TRUE(eventually([&] { return s.server.quotas().open() == 1; }));
  EXPECT_TRUE(s.serves()) << "a slot of 127.0.0.1 freed";
}

TEST(MaxConnectionsPerIp, OverridesByAddressAndName) {
  NetConfig n;
  n.max_connections_per_ip = 0;
  n.max_connections_per_ip_overrides = {{"localhost", 1}, {"10.9.9.9", 5}};
  TestServer s(n);
  const auto local = asio::ip::make_address("127.0.0.1");
  EXPECT_EQ(s.server.quotas().limit_for(local), 1);
  EXPECT_EQ(s.server.quotas().limit_for(asio::ip::make_address("10.9.9.9")), 5);
  Fd a = s.connect();
  ASSERT_TRUE(send_all(a, frame_of(kEcho, 1)));
  ASSERT_EQ(read_response(a), 1);
  Fd b = s.connect();
  EXPECT_TRUE(closed_by_peer(b, 3000ms));
}

TEST(MaxConnectionsPerIp, UnresolvableOverrideFailsListen) {
  NetConfig n;
  n.listeners[0].port = 0;
  n.max_connections_per_ip_overrides = {{"no-such-host.invalid", 1}};
  TestHandler h;
  Server server(n, h);
  std::string error;
  EXPECT_FALSE(server.listen(error));
  EXPECT_NE(error.find("no-such-host.invalid"), std::string::npos) << error;
}

// ---- connections.max.idle.ms -------------------------------------------------------------

TEST(IdleClose, IdleConnectionClosed) {
  NetConfig n;
  n.connections_max_idle_ms = 200;
  TestServer s(n);
  Fd c = s.connect();
  ASSERT_TRUE(send_all(c, frame_of(kEcho, 1)));
  ASSERT_EQ(read_response(c), 1);
  const auto t0 = Clock::now();
  EXPECT_TRUE(closed_by_peer(c, 3000ms));
  const auto waited = Clock::now() - t0;
  EXPECT_GE(waited, 150ms);
  EXPECT_TRUE(eventually([&] { return s.server.quotas().open() == 0; }));
}

TEST(IdleClose, HalfSentPrefixIsIdle) {
  NetConfig n;
  n.connections_max_idle_ms = 200;
  TestServer s(n);
  Fd c = s.connect();
  const auto f = frame_of(kEcho, 1, 100);
  ASSERT_TRUE(send_all(c, f.data(), 10));  // prefix and a few bytes, then nothing
  EXPECT_TRUE(closed_by_peer(c, 3000ms));
  EXPECT_TRUE(eventually([&] { return s.server.budget().used() == 0; }));
}

TEST(IdleClose, RequestBeingHandledIsNotIdle) {
  NetConfig n;
  n.connections_max_idle_ms = 100;
  TestServer s(n);
  Fd c = s.connect();
  ASSERT_TRUE(send_all(c, frame_of(kDelay, 9, 1, 250)));
  EXPECT_EQ(read_response(c), 9);
}

TEST(IdleClose, BytesTricklingInAreNotIdle) {
  NetConfig n;
  n.connections_max_idle_ms = 150;
  TestServer s(n);
  Fd c = s.connect();
  const auto f = frame_of(kEcho, 3, 20);
  for (uint8_t b : f) {  // 32 bytes over ~1.6 s, 50 ms apart: never 150 ms without bytes
    ASSERT_TRUE(send_all(c, &b, 1));
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(read_response(c), 3);
}

TEST(IdleClose, NegativeNeverCloses) {
  NetConfig n;
  n.connections_max_idle_ms = -1;
  TestServer s(n);
  Fd c = s.connect();
  EXPECT_FALSE(closed_by_peer(c, 400ms));
  ASSERT_TRUE(send_all(c, frame_of(kEcho, 1)));
  EXPECT_EQ(read_response(c), 1);
}

// ---- queued.max.request.bytes ---------------------------------------------------------------

TEST(RequestBudget, ConnectionWaitsForRoomAndGetsItOnRelease) {
  NetConfig n;
  n.queued_max_request_bytes = 10000;
  TestServer s(n);
  Fd a = s.connect(), b = s.connect();
  ASSERT_TRUE(send_all(a, frame_of(kHold, 1, 6000)));
  ASSERT_TRUE(eventually([&] { return s.handler.handled() == 1; }));
  ASSERT_TRUE(send_all(b, frame_of(kEcho, 2, 6000)));
  ASSERT_TRUE(eventually([&] { return s.server.budget().waiting() == 1; }));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(s.handler.handled(), 1) << "b waits for room instead of reading";
  EXPECT_LE(s.server.budget().used(), 10000);
  s.handler.release_holds();
  EXPECT_EQ(read_response(a), 1);
  EXPECT_EQ(read_response(b), 2);
  EXPECT_TRUE(eventually([&] { return s.server.budget().used() == 0; }));
}

TEST(RequestBudget, FrameLargerThanTheBudgetIsRead) {
  NetConfig n;
  n.queued_max_request_bytes = 1000;
  TestServer s(n);
  Fd c = s.connect();
  ASSERT_TRUE(send_all(c, frame_of(kEcho, 1, 50000)));
  EXPECT_EQ(read_response(c), 1);
  EXPECT_TRUE(eventually([&] { return s.server.budget().used() == 0; }));
}

// Many connections promising the largest frame and sending a few bytes hold a few KiB of
// the budget each, not what they promised, and others are served meanwhile.
TEST(RequestBudget, HalfOpenFramesHoldLittle) {
  NetConfig n;
  n.queued_max_request_bytes = 1 << 20;
  TestServer s(n);
  std::vector<Fd> half;
  for (int i = 0; i < 50; ++i) {
    half.push_back(s.connect());
    uint8_t bytes[14] = {};
    store_be32(bytes, uint32_t(n.socket_request_max_bytes));
    ASSERT_TRUE(send_all(half.back(), bytes, sizeof(bytes)));
  }
  ASSERT_TRUE(eventually([&] { return s.server.budget().used() >= 50 * 4096; }));
  EXPECT_LE(s.server.budget().used(), 50 * 4096);
  EXPECT_TRUE(s.serves(1000ms));
  half.clear();
  EXPECT_TRUE(eventually([&] { return s.server.budget().used() == 0; }));
}

// Large frames arriving at once on several connections, together far over the budget:
// each holds part and wants more; the standstill rule lets them finish one by one.
TEST(RequestBudget, ParallelLargeFramesDoNotDeadlock) {
  NetConfig n;
  n.queued_max_request_bytes = 64 << 10;
  TestServer s(n);
  constexpr int kConnections = 6;
  std::vector<Fd> conns;
  std::vector<std::thread> senders;
  for (int i = 0; i < kConnections; ++i) conns.push_back(s.connect());
  for (int i = 0; i < kConnections; ++i) {
    senders.emplace_back([&, i] {
      const auto f = frame_of(kEcho, uint32_t(i), 1 << 20);
      for (size_t at = 0; at < f.size(); at += 8192) {
        if (!send_all(conns[i], f.data() + at, std::min<size_t>(8192, f.size() - at))) return;
      }
    });
  }
  for (int i = 0; i < kConnections; ++i) EXPECT_EQ(read_response(conns[i], 10000ms), i);
  for (auto& t : senders) t.join();
  EXPECT_TRUE(eventually([&] { return s.server.budget().used() == 0; }));
}

// ---- accept backoff ------------------------------------------------------------------------

int64_t cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string field;
  int64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoll(field);
    if (i == 15) stime = std::stoll(field);
  }
  return utime + stime;
}

// A forked child runs the server with RLIMIT_NOFILE=48; the parent (unlimited) opens more
// connections than that. Accept fails with EMFILE: the child must not spin nor flood its
// log, must keep serving the connections it has, and must accept again once fds free.
TEST(AcceptBackoff, FdExhaustionCostsNoCpuAndRecovers) {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's runtime needs descriptors of its own, which a 48-descriptor child
  // does not leave it: the child dies, not the server. compat.hostile_clients exhausts a
  // broker's descriptors under the sanitizers instead (ulimit -n 1024).
  GTEST_SKIP() << "fd exhaustion at 48 descriptors is tested in the unsanitized builds";
#endif
  char log_path[] = "/tmp/strata-net-test-XXXXXX";
  const int log_fd = ::mkstemp(log_path);
  ASSERT_GE(log_fd, 0);
  int port_pipe[2], stop_pipe[2];
  ASSERT_EQ(::pipe(port_pipe), 0);
  ASSERT_EQ(::pipe(stop_pipe), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(log_fd, 1);  // spdlog's default logger writes to stdout
    ::dup2(log_fd, 2);
    ::close(port_pipe[0]);
    ::close(stop_pipe[1]);
    rlimit lim{48, 48};
    ::setrlimit(RLIMIT_NOFILE, &lim);
    NetConfig n;
    n.listeners[0].port = 0;
    n.shards = 2;
    TestHandler h;
    Server server(n, h);
    std::string error;
    if (!server.listen(error)) ::_exit(2);
    server.start();
    const uint16_t port = server.bound_port();
    if (::write(port_pipe[1], &port, sizeof(port)) != sizeof(port)) ::_exit(3);
    char b;
    while (::read(stop_pipe[0], &b, 1) > 0) {
    }
    server.stop();
    ::_exit(0);
  }
  ::close(port_pipe[1]);
  ::close(stop_pipe[0]);
  uint16_t port = 0;
  ASSERT_EQ(::read(port_pipe[0], &port, sizeof(port)), ssize_t(sizeof(port)));

  std::vector<Fd> conns;
  for (int i = 0; i < 100; ++i) conns.emplace_back(connect_to(port));
  int served = 0;
  for (size_t i = 0; i < conns.size(); ++i) {
    ASSERT_TRUE(send_all(conns[i], frame_of(kEcho, uint32_t(i))));
  }
  for (size_t i = 0; i < conns.size(); ++i) {
    if (read_response(conns[i], i < 20 ? 2000ms : 50ms) == int64_t(i)) ++served;
  }
  EXPECT_GT(served, 10) << "the connections it has are served";
  EXPECT_LT(served, 48) << "the child ran out of descriptors";

  const int64_t before = cpu_ticks(pid);
  std::this_thread::sleep_for(1000ms);
  const int64_t ticks = cpu_ticks(pid) - before;
  EXPECT_LT(ticks, 10) << "CPU ticks (1/100 s) in 1 s of fd exhaustion";

  // Served during exhaustion: the first connection.
  ASSERT_TRUE(send_all(conns[0], frame_of(kEcho, 1000)));
  EXPECT_EQ(read_response(conns[0], 2000ms), 1000);

  conns.clear();  // fds free up: the child accepts again on its own
  Fd fresh(connect_to(port));
  ASSERT_TRUE(send_all(fresh, frame_of(kEcho, 77)));
  EXPECT_EQ(read_response(fresh, 5000ms), 77);
  fresh.reset();

  ::close(stop_pipe[1]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const off_t log_bytes = ::lseek(log_fd, 0, SEEK_END);
  EXPECT_LT(log_bytes, 4000) << "the accept failures are logged rate-limited";
  ::close(log_fd);
  ::unlink(log_path);
}

}  // namespace
}  // namespace strata::net

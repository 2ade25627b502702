#include "client/kafka_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <mutex>

#include "common/bytes.h"
#include "protocol/apis/api_versions.h"
#include "protocol/apis/sasl_authenticate.h"
#include "protocol/apis/sasl_handshake.h"
#include "security/scram_client.h"
#include "security/tls_stores.h"

namespace strata::client {

namespace {

// What the client reports as its software in ApiVersions v3+ (Kafka checks the form:
// letters, digits, '-' and '.').
constexpr const char* kSoftwareName = "strata-tools";
constexpr const char* kSoftwareVersion = "0.1";

struct Named {
  int16_t code;
  const char* name;
};

// clang-format off
// Kafka's names of the APIs the tools may ask for.
constexpr Named kApiNames[] = {
    {0, "Produce"}, {1, "Fetch"}, {2, "ListOffsets"}, {3, "Metadata"},
    {8, "OffsetCommit"}, {9, "OffsetFetch"}, {10, "FindCoordinator"}, {11, "JoinGroup"},
    {12, "Heartbeat"}, {13, "LeaveGroup"}, {14, "SyncGroup"}, {15, "DescribeGroups"},
    {16, "ListGroups"}, {17, "SaslHandshake"}, {18, "ApiVersions"}, {19, "CreateTopics"},
    {20, "DeleteTopics"}, {21, "DeleteRecords"}, {22, "InitProducerId"},
    {23, "OffsetForLeaderEpoch"}, {24, "AddPartitionsToTxn"}, {25, "AddOffsetsToTxn"},
    {26, "EndTxn"}, {27, "WriteTxnMarkers"}, {28, "TxnOffsetCommit"},
    {32, "DescribeConfigs"}, {33, "AlterConfigs"},
    {35, "DescribeLogDirs"}, {36, "SaslAuthenticate"}, {37, "CreatePartitions"}, {42, "DeleteGroups"},
    {44, "IncrementalAlterConfigs"}, {47, "OffsetDelete"}, {60, "DescribeCluster"},
    {61, "DescribeProducers"}, {65, "DescribeTransactions"}, {66, "ListTransactions"},
};
// clang-format on

const char* find_name(const auto& table, int16_t code) {
  for (const Named& n : table) {
    if (n.code == code) return n.name;
  }
  return nullptr;
}

ClientError network_error(std::string what) {
  return ClientError{ClientError::Kind::kNetwork, std::move(what)};
}
ClientError protocol_error(std::string what) {
  return ClientError{ClientError::Kind::kProtocol, std::move(what)};
}
ClientError auth_error(std::string what) {
  return ClientError{ClientError::Kind::kAuthentication, std::move(what)};
}

// Re-authentication starts this long before the broker's session ends (Kafka's clients
// pick a point 85-95% into the session; a fixed margin keeps it simple and early enough
// for the one round trip it takes).
constexpr double kReauthenticateAt = 0.85;

// What went wrong in an OpenSSL call on a blocking socket with send/receive timeouts.
std::string tls_failure(ssl_st* ssl, int rc, int timeout_ms) {
  const int e = SSL_get_error(ssl, rc);
  if ((e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) ||
      (e == SSL_ERROR_SYSCALL && (errno == EAGAIN || errno == EWOULDBLOCK))) {
    return "no answer within " + std::to_string(timeout_ms) + " ms";
  }
  if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)) {
    return errno != 0 && e == SSL_ERROR_SYSCALL ? std::string(std::strerror(errno))
                                               : "the broker closed the connection";
  }
  return security::openssl_error();
}

// Connects one address within timeout_ms; -1 with `error` set on failure.
int connect_one(const addrinfo& ai, int timeout_ms, int io_timeout_ms, std::string& error) {
  const int fd =
      ::socket(ai.ai_family, ai.ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai.ai_protocol);
  if (fd < 0) {
    error = std::strerror(errno);
    return -1;
  }
  int rc = ::connect(fd, ai.ai_addr, ai.ai_addrlen);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    do {
      rc = ::poll(&p, 1, timeout_ms);
    } while (rc < 0 && errno == EINTR);
    if (rc == 0) {
      error = "connect timed out after " + std::to_string(timeout_ms) + " ms";
      ::close(fd);
      return -1;
    }
    int so_error = 0;
    socklen_t len = sizeof so_error;
    if (rc > 0 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) == 0) {
      errno = so_error;
      rc = so_error == 0 ? 0 : -1;
    }
  }
  if (rc != 0) {
    error = std::strerror(errno);
    ::close(fd);
    return -1;
  }
  // Blocking from here on, each send and receive bounded by the timeout.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  timeval tv{io_timeout_ms / 1000, (io_timeout_ms % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

Result<HostPort, std::string> parse_host_port(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return fail("expected host:port, got '" + std::string(text) + "'");
  std::string_view host = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (host.empty() || ec != std::errc{} || end != port.data() + port.size() || value == 0 ||
      value > 65535) {
    return fail("expected host:port, got '" + std::string(text) + "'");
  }
  return HostPort{std::string(host), uint16_t(value)};
}

std::string kafka_error_name(int16_t code) {
  const std::string_view name = strata::kafka_error_name(code);
  return name.empty() ? "UNKNOWN_ERROR_CODE_" + std::to_string(code) : std::string(name);
}

std::string api_name(int16_t api_key) {
  const char* name = find_name(kApiNames, api_key);
  return name ? name : "ApiKey" + std::to_string(api_key);
}

KafkaClient::KafkaClient(int fd, ConnectOptions options) : fd_(fd), options_(std::move(options)) {}

KafkaClient::KafkaClient(KafkaClient&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      ssl_(std::exchange(other.ssl_, nullptr)),
      options_(std::move(other.options_)),
      reauthenticate_at_(other.reauthenticate_at_),
      next_correlation_id_(other.next_correlation_id_),
      broker_versions_(std::move(other.broker_versions_)) {}

KafkaClient& KafkaClient::operator=(KafkaClient&& other) noexcept {
  if (this != &other) {
    close_connection();
    fd_ = std::exchange(other.fd_, -1);
    ssl_ = std::exchange(other.ssl_, nullptr);
    options_ = std::move(other.options_);
    reauthenticate_at_ = other.reauthenticate_at_;
    next_correlation_id_ = other.next_correlation_id_;
    broker_versions_ = std::move(other.broker_versions_);
  }
  return *this;
}

KafkaClient::~KafkaClient() {
  close_connection();
}

void KafkaClient::close_connection() {
  if (ssl_ != nullptr) SSL_free(ssl_);  // no close_notify: it could block on a dead peer
  ssl_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<KafkaClient, ClientError> KafkaClient::connect(const HostPort& at, const ConnectOptions& options) {
  const std::string where = at.host + ":" + std::to_string(at.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(at.host.c_str(), std::to_string(at.port).c_str(), &hints, &found);
  if (rc != 0) return fail(network_error(where + ": " + ::gai_strerror(rc)));
  std::string error = "no address";
  int fd = -1;
  for (const addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = connect_one(*ai, options.connect_timeout_ms, options.io_timeout_ms, error);
  }
  ::freeaddrinfo(found);
  if (fd < 0) return fail(network_error("cannot connect to " + where + ": " + error));
  KafkaClient client(fd, options);
  const ClientSecurity* security = options.security.get();
  auto prefixed = [&](ClientError e) {
    e.message = where + ": " + e.message;
    return e;
  };
  if (security != nullptr && security->tls) {
    if (auto r = client.start_tls(at.host); !r) return fail(prefixed(r.error()));
  }
  if (auto r = client.handshake(); !r) return fail(prefixed(r.error()));
  if (security != nullptr && security->sasl) {
    if (auto r = client.authenticate(); !r) return fail(prefixed(r.error()));
  }
  return Result<KafkaClient, ClientError>(std::move(client));
}

// The TLS handshake over the connected socket. The broker's certificate must chain to
// the trust store and, with hostname verification, name `host` (a DNS name or an IP
// address, matched against the certificate's subject alternative names as Kafka's
// "https" endpoint identification does).
Result<void, ClientError> KafkaClient::start_tls(const std::string& host) {
  // OpenSSL writes to the socket with write(2), not send(..., MSG_NOSIGNAL): a broker
  // that closed the connection would kill the process with SIGPIPE instead of failing
  // the call. The process ignores the signal from the first TLS connection on.
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { ::signal(SIGPIPE, SIG_IGN); });
  ssl_ = SSL_new(options_.security->tls_context.get());
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) return fail(auth_error("TLS: " + security::openssl_error()));
  in6_addr ip{};
  const bool is_ip = ::inet_pton(AF_INET, host.c_str(), &ip) == 1 || ::inet_pton(AF_INET6, host.c_str(), &ip) == 1;
  if (!is_ip) SSL_set_tlsext_host_name(ssl_, host.c_str());
  if (options_.security->verify_hostname) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    const int set = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
                          : X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
    if (set != 1) return fail(auth_error("TLS: cannot verify the name " + host));
  }
  ERR_clear_error();
  errno = 0;
  const int rc = SSL_connect(ssl_);
  if (rc != 1) {
    const long verify = SSL_get_verify_result(ssl_);
    // A refused certificate or a TLS protocol error is the same at every broker; a
    // timeout or a reset is the network's, and another broker may answer.
    const bool refused = verify != X509_V_OK || SSL_get_error(ssl_, rc) == SSL_ERROR_SSL;
    std::string why = verify != X509_V_OK ? std::string("the broker's certificate: ") +
                                                X509_verify_cert_error_string(verify)
                                          : tls_failure(ssl_, rc, options_.io_timeout_ms);
    const std::string what = "TLS handshake failed: " + why;
    return fail(refused ? auth_error(what) : network_error(what));
  }
  return {};
}

// SaslHandshake v1 (the tokens then travel in SaslAuthenticate, KIP-152), then the
// mechanism's rounds. The broker's session lifetime, if it set one, schedules the next
// login.
Result<void, ClientError> KafkaClient::authenticate() {
  using protocol::SaslHandshakeRequest;
  using protocol::SaslHandshakeResponse;
  const std::string mechanism = options_.security->mechanism_name();
  SaslHandshakeRequest hs;
  hs.mechanism = mechanism;
  protocol::Output body;
  protocol::Encoder(body, 1, false).encode(hs);
  auto frame = exchange(SaslHandshakeRequest::kApiKey, 1, false, body.bytes, 0);
  if (!frame) return fail(frame.error());
  auto answer = decode<SaslHandshakeResponse>(*frame, 1, false, SaslHandshakeRequest::kApiKey);
  if (!answer) return fail(answer.error());
  if (answer->error_code != 0) {
    std::string enabled;
    for (const auto& m : answer->mechanisms) enabled += (enabled.empty() ? "" : ", ") + m;
    return fail(auth_error("SASL " + mechanism + ": " + kafka_error_name(answer->error_code) +
                           " (the listener enables: " + enabled + ")"));
  }
  if (options_.security->mechanism == SaslMechanism::kPlain) {
    const std::string token = std::string(1, '\0') + options_.security->username + '\0' + options_.security->password;
    auto r = sasl_round(token);
    return r ? Result<void, ClientError>() : fail(r.error());
  }
  security::ScramClient scram(options_.security->mechanism == SaslMechanism::kScramSha256
                                  ? security::ScramMechanism::kSha256
                                  : security::ScramMechanism::kSha512,
                              options_.security->username, options_.security->password);
  auto first = scram.first();
  if (!first) return fail(auth_error(first.error()));
  auto server_first = sasl_round(*first);
  if (!server_first) return fail(server_first.error());
  auto final = scram.final(*server_first);
  if (!final) return fail(auth_error(final.error()));
  auto server_final = sasl_round(*final);
  if (!server_final) return fail(server_final.error());
  if (auto v = scram.verify(*server_final); !v) return fail(auth_error(v.error()));
  return {};
}

Result<std::string, ClientError> KafkaClient::sasl_round(const std::string& token) {
  using protocol::SaslAuthenticateRequest;
  using protocol::SaslAuthenticateResponse;
  const int16_t v = pick_version(SaslAuthenticateRequest::kApiKey, SaslAuthenticateRequest::kVersions).value_or(0);
  const bool flexible = v >= SaslAuthenticateRequest::kFlexibleFrom;
  SaslAuthenticateRequest request;
  request.auth_bytes.assign(token.begin(), token.end());
  protocol::Output body;
  protocol::Encoder(body, v, flexible).encode(request);
  auto frame = exchange(SaslAuthenticateRequest::kApiKey, v, flexible, body.bytes, flexible ? 1 : 0);
  if (!frame) return fail(frame.error());
  auto answer = decode<SaslAuthenticateResponse>(*frame, v, flexible, SaslAuthenticateRequest::kApiKey);
  if (!answer) return fail(answer.error());
  if (answer->error_code != 0) {
    return fail(auth_error("SASL " + options_.security->mechanism_name() + " as " + options_.security->username + ": " +
                           kafka_error_name(answer->error_code) +
                           (answer->error_message ? ": " + *answer->error_message : "")));
  }
  if (answer->session_lifetime_ms > 0) {
    reauthenticate_at_ = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(int64_t(double(answer->session_lifetime_ms) * kReauthenticateAt));
  }
  return std::string(answer->auth_bytes.begin(), answer->auth_bytes.end());
}

Result<void, ClientError> KafkaClient::keep_session() {
  if (std::chrono::steady_clock::now() < reauthenticate_at_) return {};
  reauthenticate_at_ = std::chrono::steady_clock::time_point::max();
  if (auto r = authenticate(); !r) {
    close_connection();
    return fail(r.error());
  }
  return {};
}

void KafkaClient::abort() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);  // a TLS session fails with its socket
}

std::optional<int16_t> KafkaClient::pick_version(int16_t api_key, protocol::Versions ours) const {
  const auto it = broker_versions_.find(api_key);
  if (it == broker_versions_.end()) return std::nullopt;
  const int16_t low = std::max(ours.min, it->second.min);
  const int16_t high = std::min(ours.max, it->second.max);
  if (low > high) return std::nullopt;
  return high;
}

ClientError KafkaClient::unsupported(int16_t api_key) const {
  std::string what = api_name(api_key) + " is not supported by the broker";
  const auto it = broker_versions_.find(api_key);
  if (it != broker_versions_.end()) {
    what += " (it serves v" + std::to_string(it->second.min) + "-" +
            std::to_string(it->second.max) + ")";
  }
  return ClientError{ClientError::Kind::kUnsupported, std::move(what)};
}

// Asks in our highest ApiVersions version; a broker that does not know it answers
// UNSUPPORTED_VERSION in v0 with its own range (KIP-511), and the question is asked again.
Result<void, ClientError> KafkaClient::handshake() {
  using protocol::ApiVersionsRequest;
  using protocol::ApiVersionsResponse;
  int16_t version = ApiVersionsRequest::kVersions.max;
  for (int attempt = 0; attempt < 2; ++attempt) {
    ApiVersionsRequest request;
    request.client_software_name = kSoftwareName;
    request.client_software_version = kSoftwareVersion;
    const bool flexible = version >= ApiVersionsRequest::kFlexibleFrom;
    protocol::Output body;
    protocol::Encoder(body, version, flexible).encode(request);
    auto frame = exchange(ApiVersionsRequest::kApiKey, version, flexible, body.bytes, 0);
    if (!frame) return fail(frame.error());
    ByteReader peek(Bytes(frame->bytes).subspan(frame->body_at));
    const int16_t error = peek.i16();
    const int16_t answered = error == kafka_error::kUnsupportedVersion ? 0 : version;
    auto response = decode<ApiVersionsResponse>(*frame, answered,
                                                answered >= ApiVersionsResponse::kFlexibleFrom,
                                                ApiVersionsRequest::kApiKey);
    if (!response) return fail(response.error());
    if (response->error_code == kafka_error::kUnsupportedVersion) {
      for (const auto& k : response->api_keys) {
        if (k.api_key == ApiVersionsRequest::kApiKey && k.max_version < version) {
          version = k.max_version;
        }
      }
      continue;
    }
    if (response->error_code != 0) {
      return fail(protocol_error("ApiVersions failed: " + kafka_error_name(response->error_code)));
    }
    for (const auto& k : response->api_keys) {
      broker_versions_[k.api_key] = protocol::Versions{k.min_version, k.max_version};
    }
    return {};
  }
  return fail(protocol_error("the broker supports no ApiVersions version we speak"));
}

Result<KafkaClient::Frame, ClientError> KafkaClient::exchange(int16_t api_key, int16_t version,
                                                              bool flexible,
                                                              const std::vector<uint8_t>& body,
                                                              int response_header_version) {
  if (fd_ < 0) return fail(network_error("connection closed after an earlier error"));
  std::vector<uint8_t> out;
  ByteWriter w(out);
  const size_t size_at = w.reserve(4);
  const int32_t correlation_id = next_correlation_id_++;
  w.i16(api_key);
  w.i16(version);
  w.i32(correlation_id);
  w.i16(int16_t(options_.client_id.size()));
  w.bytes(as_bytes(options_.client_id));
  if (flexible) w.uvarint(0);  // request header v2: no tagged fields
  w.bytes(body);
  w.patch_i32(size_at, int32_t(out.size() - 4));

  // After any failure the stream may be out of step: the connection is given up.
  auto give_up = [this](ClientError e) {
    close_connection();
    return e;
  };
  if (auto r = send_all(out); !r) return fail(give_up(r.error()));
  uint8_t size_bytes[4];
  if (auto r = receive(size_bytes, 4); !r) return fail(give_up(r.error()));
  const int32_t size = int32_t(load_be32(size_bytes));
  if (size < 4 || size > kResponseBytesMax) {
    return fail(
        give_up(protocol_error("response size " + std::to_string(size) + " is out of bounds")));
  }
  Frame frame;
  frame.bytes.resize(size_t(size));
  if (auto r = receive(frame.bytes.data(), frame.bytes.size()); !r) {
    return fail(give_up(r.error()));
  }
  ByteReader in(frame.bytes);
  const int32_t answered = in.i32();
  if (response_header_version >= 1) {
    const uint32_t count = in.uvarint32();
    for (uint32_t i = 0; i < count && in.ok(); ++i) {
      (void)in.uvarint32();
      const uint32_t n = in.uvarint32();
      if (!in.fits(n)) in.set_fault(ReadFault::kPastEnd);
      in.skip(n);
    }
  }
  if (!in.ok() || answered != correlation_id) {
    return fail(give_up(protocol_error("bad response header for " + api_name(api_key))));
  }
  frame.body_at = in.position();
  return frame;
}

Result<void, ClientError> KafkaClient::send_all(const std::vector<uint8_t>& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    if (ssl_ != nullptr) {
      ERR_clear_error();
      errno = 0;
      const int n = SSL_write(ssl_, bytes.data() + sent, int(std::min<size_t>(bytes.size() - sent, 1 << 30)));
      if (n <= 0) return fail(network_error("send: " + tls_failure(ssl_, n, options_.io_timeout_ms)));
      sent += size_t(n);
      continue;
    }
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return fail(network_error("send timed out after " + std::to_string(options_.io_timeout_ms) + " ms"));
    }
    if (n <= 0) return fail(network_error(std::string("send: ") + std::strerror(errno)));
    sent += size_t(n);
  }
  return {};
}

Result<void, ClientError> KafkaClient::receive(uint8_t* into, size_t n) {
  size_t got = 0;
  while (got < n) {
    if (ssl_ != nullptr) {
      ERR_clear_error();
      errno = 0;
      const int r = SSL_read(ssl_, into + got, int(std::min<size_t>(n - got, 1 << 30)));
      if (r <= 0) return fail(network_error("receive: " + tls_failure(ssl_, r, options_.io_timeout_ms)));
      got += size_t(r);
      continue;
    }
    const ssize_t r = ::recv(fd_, into + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return fail(network_error("no response within " + std::to_string(options_.io_timeout_ms) + " ms"));
    }
    if (r == 0) return fail(network_error("the broker closed the connection"));
    if (r < 0) return fail(network_error(std::string("receive: ") + std::strerror(errno)));
    got += size_t(r);
  }
  return {};
}

}  // namespace strata::client

// A small blocking Kafka client for the command-line tools: one TCP connection to one
// broker (Strata's or Kafka's), one request at a time, spoken through the protocol
// definitions in src/protocol, so the tools exercise the same encoders and decoders as
// the broker.
//
// connect() asks ApiVersions first and remembers the versions the broker serves for
// every API. call<Resp>(request) then sends the highest version both sides support, with
// request header v2 in the API's flexible versions (v1 otherwise), and reads the answer
// with the matching response header (v1 / v0; ApiVersions' is always v0). Nothing
// throws: failures are ClientError values. An API the broker does not list is kUnsupported
// before anything is sent. Single-threaded: one caller at a time.
//
// Security (client/security.h): with TLS the connection is an OpenSSL session over the
// same blocking socket (the broker's certificate checked against the trust store and,
// by default, the host or address connected to); with SASL the client logs in after
// ApiVersions (SaslHandshake v1, then SaslAuthenticate in its highest common version) and
// logs in again on the same connection before the session the broker granted runs out
// (KIP-368), so long-lived connections (a broker's replica fetchers) survive
// connections.max.reauth.ms. The first TLS connection makes the process ignore SIGPIPE
// (OpenSSL writes with write(2), and a closed connection must fail a call, not the process).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/security.h"
#include "common/kafka_errors.h"
#include "common/result.h"
#include "protocol/message.h"

struct ssl_st;

namespace strata::client {

struct ClientError {
  enum class Kind : uint8_t {
    kNetwork,      // connect, send or receive failed, or timed out
    kUnsupported,  // no version of the API is served by both sides
    kProtocol,     // the broker's answer could not be parsed
    kAuthentication,  // TLS or SASL refused us (or the broker failed our checks)
  };
  Kind kind = Kind::kNetwork;
  std::string message;
};

struct HostPort {
  std::string host;
  uint16_t port = 0;
};

// "host:port", "[v6addr]:port". Fails on a missing or out-of-range port.
Result<HostPort, std::string> parse_host_port(std::string_view text);

// Kafka's name for an error code ("TOPIC_ALREADY_EXISTS", from common/kafka_errors.h),
// "UNKNOWN_ERROR_CODE_<n>" for a code the table does not know.
std::string kafka_error_name(int16_t code);

// Kafka's protocol name of an API key ("CreatePartitions"), or "ApiKey<n>".
std::string api_name(int16_t api_key);

struct ConnectOptions {
  int connect_timeout_ms = 30000;  // the TCP connect (socket.connection.setup.timeout.ms)
  int io_timeout_ms = 30000;       // every later send and receive (request.timeout.ms)
  std::string client_id;           // in every request header
  std::shared_ptr<const ClientSecurity> security;  // null: PLAINTEXT
};

class KafkaClient {
 public:
  // Bounds what a response may claim to be before anything is allocated for it.
  static constexpr int32_t kResponseBytesMax = 100 << 20;

  // Connects within `timeout_ms` and asks ApiVersions; `timeout_ms` also bounds every
  // later send and receive. `client_id` goes into every request header.
  static Result<KafkaClient, ClientError> connect(const HostPort& at, int timeout_ms,
                                                  std::string client_id) {
    return connect(at, timeout_ms, timeout_ms, std::move(client_id));
  }
  // As above, with the connection's setup (TCP connect) bounded by `connect_timeout_ms`
  // and every send and receive, ApiVersions' too, by `io_timeout_ms`.
  static Result<KafkaClient, ClientError> connect(const HostPort& at, int connect_timeout_ms,
                                                  int io_timeout_ms, std::string client_id) {
    return connect(at, ConnectOptions{connect_timeout_ms, io_timeout_ms, std::move(client_id), nullptr});
  }
  // Connects, sets up TLS and logs in as `options.security` says, and asks ApiVersions.
  static Result<KafkaClient, ClientError> connect(const HostPort& at, const ConnectOptions& options);

  KafkaClient(KafkaClient&& other) noexcept;
  KafkaClient& operator=(KafkaClient&& other) noexcept;
  KafkaClient(const KafkaClient&) = delete;
  KafkaClient& operator=(const KafkaClient&) = delete;
  ~KafkaClient();

  // Shuts the socket down (from any thread) so that a call blocked on it fails at once;
  // the connection is unusable afterwards.
  void abort();

  // What this connection was made with: connect(other_broker, client.options()) reaches
  // another broker of the cluster the same way (the tools follow Metadata's leaders).
  const ConnectOptions& options() const { return options_; }

  // The highest version of an API both sides support; nullopt if there is none.
  std::optional<int16_t> pick_version(int16_t api_key, protocol::Versions ours) const;
  template <class Req>
  std::optional<int16_t> version() const {
    return pick_version(Req::kApiKey, Req::kVersions);
  }

  // As call() below, for answers whose RECORDS fields are views into the response frame
  // (Fetch): the frame's bytes move into `keep`, which must outlive the answer.
  template <class Resp, class Req>
  Result<Resp, ClientError> call(Req& request, std::vector<uint8_t>& keep) {
    const std::optional<int16_t> v = version<Req>();
    if (!v) return fail(unsupported(Req::kApiKey));
    if (auto r = keep_session(); !r) return fail(r.error());
    const bool flexible = *v >= Req::kFlexibleFrom;
    protocol::Output body;
    protocol::Encoder(body, *v, flexible).encode(request);
    auto frame = exchange(Req::kApiKey, *v, flexible, body.bytes, flexible ? 1 : 0);
    if (!frame) return fail(frame.error());
    auto decoded = decode<Resp>(*frame, *v, flexible, Req::kApiKey);
    keep = std::move(frame->bytes);  // the buffer moves, the views into it stay valid
    return decoded;
  }

  // Sends `request` in version<Req>() and decodes the answer as `Resp` in that version
  // (for answers without RECORDS fields: the frame goes when the call returns).
  template <class Resp, class Req>
  Result<Resp, ClientError> call(Req& request) {
    std::vector<uint8_t> frame;
    return call<Resp>(request, frame);
  }

 private:
  // A response frame without its size prefix, and where the body starts in it.
  struct Frame {
    std::vector<uint8_t> bytes;
    size_t body_at = 0;
  };

  KafkaClient(int fd, ConnectOptions options);

  ClientError unsupported(int16_t api_key) const;
  Result<void, ClientError> handshake();
  Result<void, ClientError> start_tls(const std::string& host);
  // SaslHandshake and SaslAuthenticate with options_.security's mechanism and user.
  Result<void, ClientError> authenticate();
  // One SaslAuthenticate round: our token out, the broker's back.
  Result<std::string, ClientError> sasl_round(const std::string& token);
  // Logs in again when the broker's session is close to its end (KIP-368).
  Result<void, ClientError> keep_session();
  void close_connection();
  // Writes one request (header + body) and reads its response frame, checking the
  // correlation id and skipping the response header of `response_header_version`.
  Result<Frame, ClientError> exchange(int16_t api_key, int16_t version, bool flexible,
                                      const std::vector<uint8_t>& body,
                                      int response_header_version);
  Result<void, ClientError> send_all(const std::vector<uint8_t>& bytes);
  Result<void, ClientError> receive(uint8_t* into, size_t n);

  template <class Resp>
  static Result<Resp, ClientError> decode(Frame& frame, int16_t version, bool flexible,
                                          int16_t api_key) {
    Resp response;
    protocol::Decoder d(frame.bytes, frame.body_at, version, flexible);
    d.decode(response);
    if (!d.ok() || d.remaining() != 0) {
      return fail(ClientError{
          ClientError::Kind::kProtocol,
          "cannot parse the " + api_name(api_key) + " v" + std::to_string(version) + " response"});
    }
    return response;
  }

  int fd_ = -1;
  ssl_st* ssl_ = nullptr;  // the TLS session over fd_, if any
  ConnectOptions options_;
  // When to log in again; max() when the broker set no session lifetime.
  std::chrono::steady_clock::time_point reauthenticate_at_ = std::chrono::steady_clock::time_point::max();
  int32_t next_correlation_id_ = 1;
  std::map<int16_t, protocol::Versions> broker_versions_;  // from ApiVersions
};

}  // namespace strata::client

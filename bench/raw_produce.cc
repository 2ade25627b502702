// raw_produce: the broker's own produce and fetch ceiling (issue 4), measured with
// almost no client CPU. A plain-socket Kafka client that
//
//   produce: builds ONE Produce request (v9) whose body carries ~1 MiB of pre-built v2
//            batches (one batch per partition, as Kafka requires), then sends that same
//            frame again and again, --in-flight requests pipelined on one connection,
//            patching only the correlation id. Each response is decoded and checked.
//   fetch:   sends Fetch requests (v12) for 1 MiB from offset 0 of partition 0, again
//            and again (--in-flight pipelined), and reads and decodes the responses.
//
//   write:   no broker: 1 MiB pwrites to a new file in --dir (fdatasync after every
//            --sync-every writes, 0 never), the file system's own ceiling for produce.
//
// All run for --seconds and print MB/s of record bytes acknowledged (produce), received
// (fetch) or written (write), then one "RESULT key=value ..." line for scripts, with
// this client's own CPU seconds (cpu_s) so a script can count CPU per MB. The
// topic is created first (CreateTopics v5; one that exists is fine).
//
//   raw_produce produce --bootstrap HOST:PORT --topic T [--acks 1|-1] [--seconds 5]
//               [--in-flight 4] [--request-bytes 1048576] [--record-size 1024]
//               [--partitions 1]
//   raw_produce fetch --bootstrap HOST:PORT --topic T [--seconds 5] [--in-flight 4]
//               [--fetch-bytes 1048576]
//   raw_produce write --dir DIR [--seconds 5] [--request-bytes 1048576] [--sync-every 0]
//   (any mode: [--max-requests N] stops earlier, after N requests or writes)
//
// Bounds: --seconds <= 600, --in-flight <= kInFlightMax, request and fetch sizes <=
// kRequestBytesMax, responses <= kResponseBytesMax.
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/kafka_errors.h"
#include "protocol/apis/create_topics.h"
#include "protocol/apis/fetch.h"
#include "protocol/apis/produce.h"
#include "protocol/message.h"
#include "record/batch_builder.h"

using namespace strata;
using namespace strata::protocol;

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kInFlightMax = 64;
constexpr int64_t kRequestBytesMax = 64 << 20;
constexpr size_t kResponseBytesMax = 256 << 20;
constexpr int kPartitionsMax = 256;
constexpr int16_t kProduceVersion = 9;       // flexible: request header v2
constexpr int16_t kFetchVersion = 12;        // last version that names topics
constexpr int16_t kCreateTopicsVersion = 5;  // flexible
constexpr size_t kCorrelationIdPos = 8;  // frame: size(4) apiKey(2) apiVersion(2) corrId(4)

struct Options {
  std::string mode;
  std::string host = "127.0.0.1";
  std::string port;
  std::string topic = "raw-produce";
  int16_t acks = 1;
  double seconds = 5;
  int in_flight = 4;
  int64_t request_bytes = 1 << 20;
  int64_t fetch_bytes = 1 << 20;
  int64_t record_size = 1024;
  int partitions = 1;
  std::string dir;
  int sync_every = 0;
  int64_t max_requests = INT64_MAX;  // a second bound, besides --seconds
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "raw_produce: %s\n", what.c_str());
  std::exit(2);
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: raw_produce produce|fetch --bootstrap HOST:PORT [--topic T]\n"
               "  [--acks 1|-1] [--seconds S] [--in-flight K] [--request-bytes B]\n"
               "  [--record-size B] [--partitions P] [--fetch-bytes B] [--max-requests N]\n"
               "usage: raw_produce write --dir DIR [--seconds S] [--sync-every K]\n");
  std::exit(2);
}

int64_t to_int(const std::string& flag, const std::string& v, int64_t lo, int64_t hi) {
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < lo || n > hi) die(flag + ": bad value '" + v + "'");
  return n;
}

Options parse(int argc, char** argv) {
  if (argc < 2) usage();
  Options o;
  o.mode = argv[1];
  if (o.mode != "produce" && o.mode != "fetch" && o.mode != "write") usage();
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string v = argv[i + 1];
    if (flag == "--bootstrap") {
      const auto colon = v.rfind(':');
      if (colon == std::string::npos) die("--bootstrap wants HOST:PORT");
      o.host = v.substr(0, colon);
      o.port = v.substr(colon + 1);
    } else if (flag == "--topic") {
      o.topic = v;
    } else if (flag == "--acks") {
      o.acks = int16_t(to_int(flag, v, -1, 1));
    } else if (flag == "--seconds") {
      o.seconds = double(to_int(flag, v, 1, 600));
    } else if (flag == "--in-flight") {
      o.in_flight = int(to_int(flag, v, 1, kInFlightMax));
    } else if (flag == "--request-bytes") {
      o.request_bytes = to_int(flag, v, 1024, kRequestBytesMax);
    } else if (flag == "--fetch-bytes") {
      o.fetch_bytes = to_int(flag, v, 1024, kRequestBytesMax);
    } else if (flag == "--record-size") {
      o.record_size = to_int(flag, v, 0, 1 << 20);
    } else if (flag == "--max-requests") {
      o.max_requests = to_int(flag, v, 1, INT64_MAX);
    } else if (flag == "--dir") {
      o.dir = v;
    } else if (flag == "--sync-every") {
      o.sync_every = int(to_int(flag, v, 0, 1 << 20));
    } else if (flag == "--partitions") {
      o.partitions = int(to_int(flag, v, 1, kPartitionsMax));
    } else {
      usage();
    }
  }
  if ((argc - 2) % 2 != 0) usage();
  if (o.mode == "write" ? o.dir.empty() : o.port.empty()) usage();
  if (o.acks == 0) die("--acks 0 gets no responses to pace by; use 1 or -1");
  return o;
}

// ---- a blocking TCP connection ----

class Connection {
 public:
  Connection(const std::string& host, const std::string& port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) die("cannot resolve " + host);
    for (addrinfo* a = res; a != nullptr && fd_ < 0; a = a->ai_next) {
      fd_ = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
      if (fd_ >= 0 && ::connect(fd_, a->ai_addr, a->ai_addrlen) != 0) {
        ::close(fd_);
        fd_ = -1;
      }
    }
    freeaddrinfo(res);
    if (fd_ < 0) die("cannot connect to " + host + ":" + port);
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Connection() { ::close(fd_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void send_all(Bytes b) {
    while (!b.empty()) {
      const ssize_t n = ::send(fd_, b.data(), b.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) die(std::string("send: ") + std::strerror(errno));
      b = b.subspan(size_t(n));
    }
  }
  void recv_all(uint8_t* p, size_t size) {
    while (size > 0) {
      const ssize_t n = ::recv(fd_, p, size, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) die(n == 0 ? "connection closed by the broker" : std::strerror(errno));
      p += n;
      size -= size_t(n);
    }
  }
  // Reads one response frame into `buf` (reused; grown as needed); returns its size.
  size_t read_frame(std::vector<uint8_t>& buf) {
    uint8_t size_bytes[4];
    recv_all(size_bytes, 4);
    const uint32_t size = load_be32(size_bytes);
    if (size < 4 || size > kResponseBytesMax) die("bad response size " + std::to_string(size));
    if (buf.size() < size) buf.resize(size);
    recv_all(buf.data(), size);
    return size;
  }

 private:
  int fd_ = -1;
};

// ---- framing with the protocol definitions ----

// A whole request frame: size, header v2 (flexible APIs only here), body.
template <class Request>
std::vector<uint8_t> request_frame(Request& req, int16_t version, int32_t correlation_id) {
  static_assert(Request::kFlexibleFrom >= 0);
  if (version < Request::kFlexibleFrom) die("raw_produce speaks flexible versions only");
  Output out;
  ByteWriter w(out.bytes);
  const size_t size_at = w.reserve(4);
  w.i16(Request::kApiKey);
  w.i16(version);
  w.i32(correlation_id);
  const std::string client_id = "raw_produce";
  w.i16(int16_t(client_id.size()));
  w.bytes(as_bytes(client_id));
  w.uvarint(0);  // no tagged fields
  Encoder(out, version, true).encode(req);
  if (!out.splices.empty()) die("a request cannot splice files");
  store_be32(out.bytes.data() + size_at, uint32_t(out.bytes.size() - 4));
  return std::move(out.bytes);
}

// Decodes a response frame (header v1: correlation id, tagged fields) into `resp`.
template <class Response>
void decode_response(std::vector<uint8_t>& buf, size_t size, int16_t version,
                     int32_t expect_correlation_id, Response& resp) {
  MutableBytes frame(buf.data(), size);
  ByteReader header(frame);
  const int32_t correlation_id = header.i32();
  const uint32_t tags = header.uvarint32();
  if (!header.ok() || tags != 0) die("bad response header");
  if (correlation_id != expect_correlation_id) {
    die("correlation id " + std::to_string(correlation_id) + ", expected " +
        std::to_string(expect_correlation_id));
  }
  Decoder d(frame, header.position(), version, true);
  d.decode(resp);
  if (!d.ok()) die("cannot decode the response");
}

void create_topic(Connection& c, const Options& o) {
  CreateTopicsRequest req;
  CreateTopicsRequest::Topic t;
  t.name = o.topic;
  t.num_partitions = o.partitions;
  t.replication_factor = 1;
  req.topics.push_back(t);
  req.timeout_ms = 10000;
  std::vector<uint8_t> frame = request_frame(req, kCreateTopicsVersion, 0);
  c.send_all(frame);
  std::vector<uint8_t> buf;
  const size_t n = c.read_frame(buf);
  CreateTopicsResponse resp;
  decode_response(buf, n, kCreateTopicsVersion, 0, resp);
  for (const auto& rt : resp.topics) {
    if (rt.error_code != 0 && rt.error_code != strata::kafka_error::kTopicAlreadyExists) {
      die("CreateTopics: error " + std::to_string(rt.error_code));
    }
  }
}

// ---- produce ----

// One batch of `record_size`-byte records, at most `batch_bytes` long (at least one
// record). Values are random letters, as Kafka's perf tool sends.
std::vector<uint8_t> build_batch(int64_t record_size, int64_t batch_bytes) {
  record::BatchBuilder b(record::BatchOptions{});
  std::vector<uint8_t> value(static_cast<size_t>(record_size));
  uint32_t x = 42;
  for (uint8_t& c : value) {
    x = x * 1103515245u + 12345u;
    c = uint8_t('A' + (x >> 16) % 26);
  }
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  // A record is its value plus ~10 bytes of framing; stop before the batch would pass.
  const size_t record_bytes_max = size_t(record_size) + 16;
  while (b.record_count() == 0 || b.uncompressed_size() + record_bytes_max <= size_t(batch_bytes)) {
    b.append(now_ms, std::nullopt, Bytes(value));
  }
  auto batch = b.finish();
  if (!batch) die("cannot build a batch");
  return std::move(*batch);
}

struct Totals {
  int64_t requests = 0;
  int64_t record_bytes = 0;
  int64_t errors = 0;
  double seconds = 0;
};

// Sends `frame` (patching the correlation id) with `in_flight` pipelined, until the
// deadline; `on_response` checks one response and returns its record bytes.
template <class OnResponse>
Totals pump(Connection& c, std::vector<uint8_t>& frame, const Options& o,
            OnResponse on_response) {
  std::vector<uint8_t> buf;
  int32_t next_sent = 1;
  int32_t next_expected = 1;
  int64_t sent = 0;
  auto send_one = [&] {
    ++sent;
    store_be32(frame.data() + kCorrelationIdPos, uint32_t(next_sent++));
    c.send_all(frame);
  };
  Totals t;
  const Clock::time_point start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(o.seconds);
  for (int i = 0; i < o.in_flight && sent < o.max_requests; ++i) send_one();
  while (next_expected < next_sent) {
    const size_t n = c.read_frame(buf);
    const int64_t bytes = on_response(buf, n, next_expected++);
    if (bytes < 0) {
      ++t.errors;
    } else {
      ++t.requests;
      t.record_bytes += bytes;
    }
    if (Clock::now() < deadline && sent < o.max_requests) send_one();
  }
  t.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return t;
}

Totals run_produce(Connection& c, const Options& o) {
  // One batch per partition (Kafka's rule for produce v3+), splitting the request.
  const int64_t batch_bytes = o.request_bytes / o.partitions;
  std::vector<std::vector<uint8_t>> batches;
  ProduceRequest req;
  req.acks = o.acks;
  req.timeout_ms = 30000;
  ProduceRequest::TopicData td;
  td.name = o.topic;
  int64_t request_record_bytes = 0;
  for (int p = 0; p < o.partitions; ++p) batches.push_back(build_batch(o.record_size, batch_bytes));
  for (int p = 0; p < o.partitions; ++p) {
    ProduceRequest::PartitionData pd;
    pd.index = p;
    pd.records.data = MutableBytes(batches[size_t(p)]);
    request_record_bytes += int64_t(batches[size_t(p)].size());
    td.partition_data.push_back(pd);
  }
  req.topic_data.push_back(td);
  std::vector<uint8_t> frame = request_frame(req, kProduceVersion, 0);
  std::fprintf(stderr, "raw_produce: request frame %zu bytes, %d batch(es) of %zu bytes\n",
               frame.size(), o.partitions, batches[0].size());
  int64_t logged = 0;
  return pump(c, frame, o, [&](std::vector<uint8_t>& buf, size_t n, int32_t corr) -> int64_t {
    ProduceResponse resp;
    decode_response(buf, n, kProduceVersion, corr, resp);
    for (const auto& tr : resp.responses) {
      for (const auto& pr : tr.partition_responses) {
        if (pr.error_code != 0) {
          if (logged++ == 0) std::fprintf(stderr, "produce error %d\n", pr.error_code);
          return -1;
        }
      }
    }
    return request_record_bytes;
  });
}

// ---- fetch ----

Totals run_fetch(Connection& c, const Options& o) {
  FetchRequest req;
  req.max_wait_ms = 500;
  req.min_bytes = 1;
  req.max_bytes = int32_t(o.fetch_bytes);
  FetchRequest::FetchTopic ft;
  ft.topic = o.topic;
  FetchRequest::FetchPartition fp;
  fp.partition = 0;
  fp.fetch_offset = 0;
  fp.partition_max_bytes = int32_t(o.fetch_bytes);
  ft.partitions.push_back(fp);
  req.topics.push_back(ft);
  std::vector<uint8_t> frame = request_frame(req, kFetchVersion, 0);
  int64_t logged = 0;
  return pump(c, frame, o, [&](std::vector<uint8_t>& buf, size_t n, int32_t corr) -> int64_t {
    FetchResponse resp;
    decode_response(buf, n, kFetchVersion, corr, resp);
    int64_t bytes = 0;
    for (const auto& tr : resp.responses) {
      for (const auto& pd : tr.partitions) {
        if (pd.error_code != 0) {
          if (logged++ == 0) std::fprintf(stderr, "fetch error %d\n", pd.error_code);
          return -1;
        }
        bytes += int64_t(pd.records.size());
      }
    }
    if (bytes == 0 && logged++ == 0) std::fprintf(stderr, "fetch: no data at offset 0\n");
    return bytes == 0 ? -1 : bytes;
  });
}

// ---- write: the file system baseline ----

Totals run_write(const Options& o) {
  const std::string path = o.dir + "/raw_produce_write.tmp";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) die("open " + path + ": " + std::strerror(errno));
  std::vector<uint8_t> chunk = build_batch(o.record_size, o.request_bytes);
  Totals t;
  uint64_t position = 0;
  const Clock::time_point start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(o.seconds);
  while (Clock::now() < deadline && t.requests < o.max_requests) {
    const ssize_t n = ::pwrite(fd, chunk.data(), chunk.size(), off_t(position));
    if (n != ssize_t(chunk.size())) die(std::string("pwrite: ") + std::strerror(errno));
    position += chunk.size();
    ++t.requests;
    t.record_bytes += int64_t(chunk.size());
    if (o.sync_every > 0 && t.requests % o.sync_every == 0 && ::fdatasync(fd) != 0) {
      die(std::string("fdatasync: ") + std::strerror(errno));
    }
  }
  // Durable means all of it: the tail after the last full group of --sync-every too.
  if (o.sync_every > 0 && t.requests % o.sync_every != 0 && ::fdatasync(fd) != 0) {
    die(std::string("fdatasync: ") + std::strerror(errno));
  }
  t.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  ::close(fd);
  ::unlink(path.c_str());
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Totals t;
  if (o.mode == "write") {
    t = run_write(o);
  } else {
    Connection c(o.host, o.port);
    create_topic(c, o);
    t = o.mode == "produce" ? run_produce(c, o) : run_fetch(c, o);
  }
  const double mbps = double(t.record_bytes) / t.seconds / 1e6;
  std::printf("%s: %lld requests, %lld errors, %.1f MB in %.2f s: %.1f MB/s\n", o.mode.c_str(),
              (long long)t.requests, (long long)t.errors, double(t.record_bytes) / 1e6,
              t.seconds, mbps);
  std::printf("RESULT mode=raw_%s", o.mode.c_str());
  if (o.mode == "produce") std::printf(" acks=%d partitions=%d", o.acks, o.partitions);
  if (o.mode != "write") std::printf(" in_flight=%d", o.in_flight);
  if (o.mode == "write") std::printf(" sync_every=%d", o.sync_every);
  // This process's own CPU time (user + system), setup included: the client's share.
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu_s = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                       double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  std::printf(" requests=%lld errors=%lld seconds=%.3f mb_per_s=%.1f cpu_s=%.3f\n",
              (long long)t.requests, (long long)t.errors, t.seconds, mbps, cpu_s);
  return t.errors == 0 && t.requests > 0 ? 0 : 1;
}

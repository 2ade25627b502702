// Fuzzes request decoding as the broker does it: request header, then the body of one
// API at one version, for every API declared in protocol/apis/.
//
// Input: byte 0 picks a message (an API's request, or with the low bit set its
// response, decoded as a client would), byte 1 a version within the API's range; the
// rest is the frame after api_key and api_version (correlation id, client id, tagged
// fields, body) for a request, the body alone for a response.
//
// Checks, beyond "no crash, no leak" (ASan):
//   - one decode allocates at its peak no more than kPeakBytesPerInputByte times the
//     input plus kPeakSlackBytes (operator new is counted: protocol/alloc_meter.cc);
//   - the header re-encoded parses back to the same fields and size;
//   - a body that decodes re-encodes to bytes b1 that decode again, consuming every
//     byte, and re-encode to b1 exactly (the round trip is stable);
//   - b1 is no longer than the bytes it was decoded from: re-encoding is canonical
//     (minimal varints, default tagged fields left out), never an amplification.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "protocol/alloc_meter.h"
#include "protocol/apis/all.h"
#include "protocol/headers.h"
#include "protocol/message.h"

using namespace strata;
using namespace strata::protocol;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// The decoder's bound (protocol/README.md): counts checked against the bytes left over
// the element's smallest encoding, storage grown as elements are read, never past the
// count. At its peak a decode holds at most twice the most storage per wire byte of
// any array (42.7, ListGroupsResponse v3's groups; 37.3 for a request, OffsetFetch v8's
// groups: decode_bounds_test StoragePerWireByteOfEveryArray) plus the strings it copies.
constexpr int64_t kPeakBytesPerInputByte = 96;
constexpr int64_t kPeakSlackBytes = 64 << 10;
size_t input_size = 0;  // of the current input

void check_peak(const alloc_meter::Counts& c) {
  const int64_t bound = kPeakBytesPerInputByte * int64_t(input_size) + kPeakSlackBytes;
  if (c.peak <= bound) return;
  std::fprintf(stderr, "decode of a %zu-byte input allocated %lld bytes at its peak (bound %lld)\n",
               input_size, (long long)c.peak, (long long)bound);
  __builtin_trap();
}

template <class T>
std::vector<uint8_t> encode(T& message, int16_t version, bool flexible) {
  Output out;
  Encoder e(out, version, flexible);
  e.encode(message);
  check(out.splices.empty());  // decoded RECORDS are memory, never file slices
  return std::move(out.bytes);
}

// Decodes `body` as T; if it parses, checks the re-encoding round trip.
template <class T>
void round_trip(std::vector<uint8_t>& body, int16_t version, bool flexible) {
  T first;
  Decoder d1(body, 0, version, flexible);
  alloc_meter::start();
  d1.decode(first);
  check_peak(alloc_meter::stop());
  if (!d1.ok()) return;
  std::vector<uint8_t> b1 = encode(first, version, flexible);
  check(b1.size() <= body.size() - d1.remaining());
  T second;
  Decoder d2(b1, 0, version, flexible);
  d2.decode(second);
  check(d2.ok() && d2.remaining() == 0);
  std::vector<uint8_t> b2 = encode(second, version, flexible);
  check(b1 == b2);
}

// The header as a client writes it: v1 adds the client id (int16 length, even in
// flexible versions), v2 an empty tagged section.
std::vector<uint8_t> encode_header(const RequestHeader& h, int header_version) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.i16(h.api_key);
  w.i16(h.api_version);
  w.i32(h.correlation_id);
  if (header_version >= 1) {
    w.i16(h.client_id ? int16_t(h.client_id->size()) : int16_t(-1));
    if (h.client_id) w.bytes(as_bytes(*h.client_id));
  }
  if (header_version >= 2) w.uvarint(0);
  return out;
}

template <class Req>
void fuzz_request(int16_t version, const uint8_t* data, size_t size) {
  std::vector<uint8_t> frame(4 + size);
  store_be16(&frame[0], uint16_t(Req::kApiKey));
  store_be16(&frame[2], uint16_t(version));
  if (size > 0) std::memcpy(&frame[4], data, size);
  const bool flexible = version >= Req::kFlexibleFrom;
  const int header_version = flexible ? 2 : 1;
  auto header = parse_request_header(frame, header_version);
  if (!header) return;
  check(header->api_key == Req::kApiKey && header->api_version == version);
  check(header->size <= frame.size());

  std::vector<uint8_t> again = encode_header(*header, header_version);
  auto back = parse_request_header(again, header_version);
  check(back && back->size == again.size() && back->correlation_id == header->correlation_id &&
        back->client_id == header->client_id);

  // The body as the broker sees it: the rest of the frame, in a buffer of its own so
  // ASan catches a read past its end.
  std::vector<uint8_t> body(frame.begin() + long(header->size), frame.end());
  round_trip<Req>(body, version, flexible);
}

template <class Req, class Resp>
void fuzz_response(int16_t version, const uint8_t* data, size_t size) {
  std::vector<uint8_t> body(data, data + size);
  round_trip<Resp>(body, version, version >= Req::kFlexibleFrom);
}

using FuzzFn = void (*)(int16_t version, const uint8_t* data, size_t size);

struct Target {
  FuzzFn fuzz;
  Versions versions;
};

template <class Req, class Resp>
constexpr Target request() {
  return {&fuzz_request<Req>, Req::kVersions};
}
template <class Req, class Resp>
constexpr Target response() {
  return {&fuzz_response<Req, Resp>, Req::kVersions};
}

#define STRATA_API(Api) request<Api##Request, Api##Response>(), response<Api##Request, Api##Response>(),
constexpr Target kTargets[] = {STRATA_PROTOCOL_APIS(STRATA_API)};
#undef STRATA_API

}  // namespace

// The bound is only as good as the counting: a decode that must allocate is seen to.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  MetadataRequest m;
  m.topics.emplace().emplace_back().name = "orders";
  std::vector<uint8_t> body = encode(m, 1, false);
  MetadataRequest back;
  Decoder d(body, 0, 1, false);
  alloc_meter::start();
  d.decode(back);
  const alloc_meter::Counts c = alloc_meter::stop();
  check(d.ok() && c.peak >= int64_t(sizeof(MetadataRequest::Topic)) && c.calls > 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  input_size = size;
  const Target& t = kTargets[data[0] % std::size(kTargets)];
  const int span = t.versions.max - t.versions.min + 1;
  const int16_t version = int16_t(t.versions.min + data[1] % span);
  t.fuzz(version, data + 2, size - 2);
  return 0;
}

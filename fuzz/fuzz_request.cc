// Fuzzes request decoding as the broker does it: request header, then the body of one
// API at one version, for every API declared in protocol/apis/.
//
// Input: byte 0 picks a message (an API's request, or with the low bit set its
// response, decoded as a client would), byte 1 a version within the API's range; the
// rest is the frame after api_key and api_version (correlation id, client id, tagged
// fields, body) for a request, the body alone for a response.
//
// Checks, beyond "no crash, no leak, no unbounded allocation" (ASan, -rss_limit_mb):
//   - the header re-encoded parses back to the same fields and size;
//   - a body that decodes re-encodes to bytes b1 that decode again, consuming every
//     byte, and re-encode to b1 exactly (the round trip is stable);
//   - b1 is no longer than the bytes it was decoded from: re-encoding is canonical
//     (minimal varints, default tagged fields left out), never an amplification.
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "protocol/apis/add_offsets_to_txn.h"
#include "protocol/apis/add_partitions_to_txn.h"
#include "protocol/apis/alter_configs.h"
#include "protocol/apis/api_versions.h"
#include "protocol/apis/create_partitions.h"
#include "protocol/apis/create_topics.h"
#include "protocol/apis/delete_groups.h"
#include "protocol/apis/delete_records.h"
#include "protocol/apis/delete_topics.h"
#include "protocol/apis/describe_cluster.h"
#include "protocol/apis/describe_configs.h"
#include "protocol/apis/describe_groups.h"
#include "protocol/apis/describe_log_dirs.h"
#include "protocol/apis/describe_producers.h"
#include "protocol/apis/describe_transactions.h"
#include "protocol/apis/end_txn.h"
#include "protocol/apis/fetch.h"
#include "protocol/apis/find_coordinator.h"
#include "protocol/apis/heartbeat.h"
#include "protocol/apis/incremental_alter_configs.h"
#include "protocol/apis/init_producer_id.h"
#include "protocol/apis/join_group.h"
#include "protocol/apis/leave_group.h"
#include "protocol/apis/list_groups.h"
#include "protocol/apis/list_offsets.h"
#include "protocol/apis/list_transactions.h"
#include "protocol/apis/metadata.h"
#include "protocol/apis/offset_commit.h"
#include "protocol/apis/offset_delete.h"
#include "protocol/apis/offset_fetch.h"
#include "protocol/apis/offset_for_leader_epoch.h"
#include "protocol/apis/produce.h"
#include "protocol/apis/sync_group.h"
#include "protocol/apis/txn_offset_commit.h"
#include "protocol/apis/write_txn_markers.h"
#include "protocol/headers.h"
#include "protocol/message.h"

using namespace strata;
using namespace strata::protocol;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
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
  d1.decode(first);
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

#define STRATA_API(Api) request<Api##Request, Api##Response>(), response<Api##Request, Api##Response>()
constexpr Target kTargets[] = {
    STRATA_API(ApiVersions),
    STRATA_API(Produce),
    STRATA_API(Fetch),
    STRATA_API(ListOffsets),
    STRATA_API(Metadata),
    STRATA_API(CreateTopics),
    STRATA_API(DeleteTopics),
    STRATA_API(DescribeConfigs),
    STRATA_API(AlterConfigs),
    STRATA_API(IncrementalAlterConfigs),
    STRATA_API(DeleteRecords),
    STRATA_API(CreatePartitions),
    STRATA_API(DescribeCluster),
    STRATA_API(DescribeLogDirs),
    STRATA_API(OffsetForLeaderEpoch),
    STRATA_API(InitProducerId),
    STRATA_API(FindCoordinator),
    STRATA_API(JoinGroup),
    STRATA_API(SyncGroup),
    STRATA_API(Heartbeat),
    STRATA_API(LeaveGroup),
    STRATA_API(OffsetCommit),
    STRATA_API(OffsetFetch),
    STRATA_API(OffsetDelete),
    STRATA_API(ListGroups),
    STRATA_API(DescribeGroups),
    STRATA_API(DeleteGroups),
    STRATA_API(AddPartitionsToTxn),
    STRATA_API(AddOffsetsToTxn),
    STRATA_API(EndTxn),
    STRATA_API(WriteTxnMarkers),
    STRATA_API(TxnOffsetCommit),
    STRATA_API(DescribeProducers),
    STRATA_API(DescribeTransactions),
    STRATA_API(ListTransactions),
};
#undef STRATA_API

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const Target& t = kTargets[data[0] % std::size(kTargets)];
  const int span = t.versions.max - t.versions.min + 1;
  const int16_t version = int16_t(t.versions.min + data[1] % span);
  t.fuzz(version, data + 2, size - 2);
  return 0;
}

// etcd's v3 API as its JSON gateway speaks it (etcd 3.4, grpc-gateway): the request
// bodies Strata sends and the responses it reads, with no transport. Pure functions, so
// the decoders are fuzzed (fuzz/fuzz_etcd_json.cc) and tested without an etcd.
//
// The gateway's mapping of etcd's protobufs, which these follow: field names as in
// rpc.proto (snake_case; the lease's `ID` and `TTL` as spelled there), bytes fields
// (keys, values, range ends) in standard base64, int64 fields as JSON strings (int64 is
// also read from a number), enums by name ("CREATE", "EQUAL", "DELETE"), and fields
// equal to their zero value left out of responses (an absent `succeeded` is false, an
// absent event `type` is PUT, an absent `kvs` is empty).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace strata::cluster {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  int64_t lease = 0;
};

// A transaction's condition on one key (etcd's Compare).
struct Compare {
  enum class Target { kVersion, kCreate, kMod, kValue };
  enum class Result { kEqual, kGreater, kLess, kNotEqual };
  std::string key;
  Target target = Target::kCreate;
  Result result = Result::kEqual;
  int64_t number = 0;   // for kVersion, kCreate, kMod
  std::string value;    // for kValue
};

// One operation of a transaction: put, range or delete.
struct Op {
  enum class Kind { kPut, kRange, kDelete };
  Kind kind = Kind::kPut;
  std::string key;
  std::string range_end;  // kRange, kDelete: "" for the one key
  std::string value;      // kPut
  int64_t lease = 0;      // kPut: 0 for none
};

struct TxnRequest {
  std::vector<Compare> compare;
  std::vector<Op> success;
  std::vector<Op> failure;
};

struct RangeResult {
  int64_t revision = 0;  // the store's revision when read
  std::vector<KeyValue> kvs;
  int64_t count = 0;
  bool more = false;
};

struct TxnResult {
  int64_t revision = 0;
  bool succeeded = false;
  // The ranges of the branch that ran, in its order (puts and deletes give none).
  std::vector<RangeResult> ranges;
};

struct WatchEvent {
  bool is_delete = false;
  KeyValue kv;  // a delete's kv has the key and mod_revision only
};

// One message of a watch stream.
struct WatchMessage {
  int64_t revision = 0;  // the header's revision
  bool created = false;
  bool canceled = false;
  int64_t compact_revision = 0;  // > 0: the start revision was compacted away
  std::string cancel_reason;
  std::vector<WatchEvent> events;
};

struct LeaseGrant {
  int64_t id = 0;
  int64_t ttl_s = 0;
};

// The smallest key greater than every key starting with `prefix`: etcd's range_end for
// a prefix ("/a/" -> "/a0"). "" for an empty prefix would mean one key, so callers pass
// a non-empty prefix.
std::string prefix_end(std::string_view prefix);

// Request bodies.
std::string range_body(std::string_view key, std::string_view range_end, int64_t revision);
std::string txn_body(const TxnRequest& txn);
std::string lease_grant_body(int64_t ttl_s);
std::string lease_id_body(int64_t id);  // keepalive, revoke, timetolive
std::string watch_body(std::string_view key, std::string_view range_end, int64_t start_revision);

// Response decoders: a clear message for a body that is not what the gateway sends, or
// for the gateway's error object ({"error":..,"code":..,"message":..}).
Result<RangeResult, std::string> parse_range(std::string_view body);
Result<TxnResult, std::string> parse_txn(std::string_view body);
Result<LeaseGrant, std::string> parse_lease_grant(std::string_view body);
// A keepalive answer: the lease's remaining TTL (0 or absent: the lease is gone).
Result<int64_t, std::string> parse_keepalive(std::string_view body);
Result<WatchMessage, std::string> parse_watch_message(std::string_view line);
// Whether `body` is one whole JSON value (nothing missing, nothing after it).
bool is_complete_json(std::string_view body);
// The gateway's error text, if `body` is its error object ({"error":..,"code":..,
// "message":..}); nullopt for any other body.
std::optional<std::string> gateway_error_object(std::string_view body);

}  // namespace strata::cluster

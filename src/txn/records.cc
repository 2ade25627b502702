#include "txn/records.h"

#include <cassert>

#include "common/java_hash.h"
#include "protocol/message.h"

namespace strata::txn {

namespace {

using protocol::F;
using protocol::kNoVersions;

constexpr int16_t kKeyVersion = 0;
constexpr int16_t kValueVersion = 1;  // what we write: Kafka 4.0 with transaction.version >= 1
constexpr int16_t kMaxValueVersion = 1;
constexpr int16_t kFirstFlexibleValueVersion = 1;

// Wire declarations of TransactionLogKey v0 and TransactionLogValue v0-v1 (Kafka 4.0's
// transaction-coordinator message definitions); the public structs stay plain.
struct KeyWire {
  std::string transactional_id;
  template <class V>
  void visit(V& v) {
    v(transactional_id, F{{0, 0}});
  }
};

struct PartitionsWire {
  TxnTopicPartitions p;
  template <class V>
  void visit(V& v) {
    v(p.topic, F{{0}});
    v(p.partitions, F{{0}});
  }
};

struct ValueWire {
  TxnValue& t;
  int8_t status = 0;
  std::optional<std::vector<PartitionsWire>> partitions;  // null: nullopt
  template <class V>
  void visit(V& v) {
    v(t.producer_id, F{{0}});
    v(t.previous_producer_id, F{{1}, kNoVersions, 0, {1}, -1});
    v(t.next_producer_id, F{{1}, kNoVersions, 1, {1}, -1});
    v(t.producer_epoch, F{{0}});
    v(t.timeout_ms, F{{0}});
    v(status, F{{0}});
    v(partitions, F{{0}, {0}});
    v(t.last_update_ms, F{{0}});
    v(t.start_ms, F{{0}});
    v(t.client_transaction_version, F{{1}, kNoVersions, 2, {1}, 0});
  }
};

template <class T>
std::vector<uint8_t> encode(int16_t version, bool flexible, T& wire) {
  protocol::Output out;
  ByteWriter w(out.bytes);
  w.i16(version);
  protocol::Encoder e(out, version, flexible);
  e.encode(wire);
  return std::move(out.bytes);
}

// Reads the version prefix, then the body in that version; the body must fill the rest.
template <class T>
Result<int16_t, std::string> decode(Bytes in, int16_t max, int16_t first_flexible, T& wire,
                                    const char* what) {
  if (in.size() < 2) return fail(std::string(what) + ": shorter than its version");
  const int16_t version = int16_t(load_be16(in.data()));
  if (version < 0 || version > max) {
    return fail(std::string(what) + ": unknown version " + std::to_string(version));
  }
  std::vector<uint8_t> copy(in.begin(), in.end());
  protocol::Decoder d(MutableBytes(copy), 2, version, version >= first_flexible);
  d.decode(wire);
  const std::string at = std::string(what) + " v" + std::to_string(version);
  if (!d.ok()) return fail(at + ": truncated");
  if (d.remaining() != 0) return fail(at + ": trailing bytes");
  return version;
}

}  // namespace

const char* state_name(TxnState state) {
  switch (state) {
    case TxnState::kEmpty:
      return "Empty";
    case TxnState::kOngoing:
      return "Ongoing";
    case TxnState::kPrepareCommit:
      return "PrepareCommit";
    case TxnState::kPrepareAbort:
      return "PrepareAbort";
    case TxnState::kCompleteCommit:
      return "CompleteCommit";
    case TxnState::kCompleteAbort:
      return "CompleteAbort";
    case TxnState::kDead:
      return "Dead";
    case TxnState::kPrepareEpochFence:
      return "PrepareEpochFence";
  }
  return "Unknown";
}

std::optional<TxnState> state_from_byte(int8_t value) {
  if (value < int8_t(TxnState::kEmpty) || value > int8_t(TxnState::kPrepareEpochFence)) {
    return std::nullopt;
  }
  return TxnState(value);
}

std::vector<uint8_t> encode_txn_key(const std::string& transactional_id) {
  KeyWire w{transactional_id};
  return encode(kKeyVersion, false, w);
}

std::vector<uint8_t> encode_txn_value(const TxnValue& value) {
  // Kafka refuses to write an Empty transaction with partitions (IllegalStateException).
  assert(value.state != TxnState::kEmpty || value.partitions.empty());
  TxnValue copy = value;
  ValueWire w{copy, int8_t(value.state), std::nullopt};
  if (value.state != TxnState::kEmpty) {
    w.partitions.emplace();
    for (const TxnTopicPartitions& p : value.partitions) w.partitions->push_back({p});
  }
  return encode(kValueVersion, kValueVersion >= kFirstFlexibleValueVersion, w);
}

Result<std::string, std::string> decode_txn_key(Bytes key) {
  KeyWire w;
  auto r = decode(key, kKeyVersion, INT16_MAX, w, "transaction log key");
  if (!r) return fail(r.error());
  return std::move(w.transactional_id);
}

Result<StoredTxnValue, std::string> decode_stored_txn_value(Bytes value) {
  StoredTxnValue out;
  ValueWire w{out.value, 0, std::nullopt};
  auto r = decode(value, kMaxValueVersion, kFirstFlexibleValueVersion, w, "transaction log value");
  if (!r) return fail(r.error());
  out.version = *r;
  out.value.state = TxnState(w.status);
  out.partitions_null = !w.partitions.has_value();
  if (w.partitions) {
    for (PartitionsWire& p : *w.partitions) out.value.partitions.push_back(std::move(p.p));
  }
  return out;
}

Result<TxnValue, std::string> decode_txn_value(Bytes value) {
  auto stored = decode_stored_txn_value(value);
  if (!stored) return fail(stored.error());
  const int8_t status = int8_t(stored->value.state);
  if (!state_from_byte(status)) {
    return fail("transaction log value v" + std::to_string(stored->version) +
                ": unknown transaction state " + std::to_string(status));
  }
  return std::move(stored->value);
}

int32_t partition_for_txn(const std::string& transactional_id, int32_t partitions) {
  return coordinator_partition(transactional_id, partitions);
}

}  // namespace strata::txn

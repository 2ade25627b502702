// The records of the internal topic __transaction_state, in Kafka's key and value
// layouts (docs/formats/transaction-state.md), so Kafka's tools could decode them.
//
// Key: int16 version 0, then the transactional id (int16-length string).
// Value: int16 version (0, or 1 = flexible with tagged fields), then the producer id,
// epoch, timeout, state, partitions and timestamps of TransactionMetadata; a null value
// is a tombstone (the transactional id expired). We write value v1 (Kafka 4.0 does, and
// its tagged fields carry the previous/next producer id and the client's transaction
// version); we read v0 and v1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"

namespace strata::txn {

inline constexpr const char* kTransactionTopic = "__transaction_state";

// Kafka's TransactionState ids, as stored in the value's TransactionStatus byte.
enum class TxnState : int8_t {
  kEmpty = 0,
  kOngoing = 1,
  kPrepareCommit = 2,
  kPrepareAbort = 3,
  kCompleteCommit = 4,
  kCompleteAbort = 5,
  kDead = 6,
  kPrepareEpochFence = 7,
};

// Kafka's names: "Empty", "Ongoing", "PrepareCommit", ..., "PrepareEpochFence".
const char* state_name(TxnState state);
// Parses a TransactionStatus byte; nullopt for an unknown one.
std::optional<TxnState> state_from_byte(int8_t value);

struct TxnTopicPartitions {
  std::string topic;
  std::vector<int32_t> partitions;
  bool operator==(const TxnTopicPartitions&) const = default;
};

struct TxnValue {
  int64_t producer_id = -1;
  int64_t previous_producer_id = -1;  // tagged 0 (v1)
  int64_t next_producer_id = -1;      // tagged 1 (v1)
  int16_t producer_epoch = -1;
  int32_t timeout_ms = 0;
  TxnState state = TxnState::kEmpty;
  // Written null when the state is kEmpty (which has no partitions), as Kafka does; an
  // empty list otherwise. Read back as an empty vector either way.
  std::vector<TxnTopicPartitions> partitions;
  int64_t last_update_ms = -1;
  int64_t start_ms = -1;
  int16_t client_transaction_version = 0;  // tagged 2 (v1)
  bool operator==(const TxnValue&) const = default;
};

std::vector<uint8_t> encode_txn_key(const std::string& transactional_id);
std::vector<uint8_t> encode_txn_value(const TxnValue& value);

// Decoding fails with a message for unknown versions, truncation or trailing bytes,
// and a value also for a status byte that names no TxnState.
Result<std::string, std::string> decode_txn_key(Bytes key);
Result<TxnValue, std::string> decode_txn_value(Bytes value);

// A value exactly as stored, for tools that print its fields (strata dump-log): the
// version, whether TransactionPartitions was null, and the status byte unchecked, so
// value.state may hold a byte no TxnState names (Kafka's dump tool prints it as is).
// Fails as decode_txn_value does otherwise.
struct StoredTxnValue {
  int16_t version = 0;
  bool partitions_null = false;
  TxnValue value;
};
Result<StoredTxnValue, std::string> decode_stored_txn_value(Bytes value);

// The partition of __transaction_state holding `transactional_id`: the same rule as
// groups (Java String.hashCode, non-negative, modulo the partition count).
int32_t partition_for_txn(const std::string& transactional_id, int32_t partitions);

}  // namespace strata::txn

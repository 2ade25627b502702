// Control records: the single record of a control batch (attributes bit 5), written
// by the broker to end a transaction.
//   key   = version int16 (0) | type int16 (0 ABORT, 1 COMMIT)
//   value = version int16 (0) | coordinatorEpoch int32        (end-transaction markers)
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "common/types.h"
#include "record/batch_view.h"
#include "record/errors.h"

namespace strata::record {

enum class ControlType : int16_t { kAbort = 0, kCommit = 1 };

inline constexpr size_t kControlKeySize = 4;
inline constexpr size_t kEndTxnMarkerValueSize = 6;

struct ControlKey {
  int16_t version = 0;
  int16_t type = 0;  // raw: may name a type this version does not know
  bool is_end_txn() const { return type == 0 || type == 1; }
};

struct EndTxnMarker {
  ControlType type = ControlType::kCommit;
  int32_t coordinator_epoch = 0;
};

// Kafka's names, as dump-log prints them ("COMMIT", "ABORT", "UNKNOWN").
const char* control_type_name(int16_t type);

Result<ControlKey, RecordErrc> parse_control_key(std::optional<Bytes> key);
// Requires a key whose type is ABORT or COMMIT.
Result<EndTxnMarker, RecordErrc> parse_end_txn_marker(const ControlKey& key,
                                                      std::optional<Bytes> value);

struct ControlBatchOptions {
  Offset base_offset{0};
  LeaderEpoch partition_leader_epoch = kNoLeaderEpoch;
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch producer_epoch = kNoProducerEpoch;
  int64_t timestamp_ms = 0;
};

// A whole control batch holding one end-transaction marker (transactional and
// control bits set, uncompressed, baseSequence -1), as the broker writes it.
std::vector<uint8_t> build_end_txn_batch(const EndTxnMarker& marker,
                                         const ControlBatchOptions& options);

}  // namespace strata::record

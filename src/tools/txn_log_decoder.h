// `strata dump-log --transaction-log-decoder`: the key and value of a __transaction_state
// record rendered as Kafka 4.0's kafka-dump-log.sh --transaction-log-decoder prints them
// (docs/formats/dump-log-output.md section 2.11; the records are
// docs/formats/transaction-state.md):
//   key:     {"type":"0","data":{"transactionalId":"<id>"}}
//   payload: {"version":"<value version>","data":{<the value's fields>}}, or <DELETE>
//            for a tombstone.
// Fields are named and ordered as in Kafka's generated JSON converter: version 0's
// fields, and in version 1 the tagged fields that differ from their defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/bytes.h"

namespace strata::tools {

struct DecodedTxnLogRecord {
  std::optional<std::string> key;      // printed as " key: ..."
  std::optional<std::string> payload;  // printed as " payload: ..." when set
};

// `offset` is the record's offset, for the messages of records that cannot be decoded:
//   key "Unknown record type <n> at offset <o>, skipping." (a key version other than 0)
//   or "Error at offset <o>, skipping. <reason>", and no payload.
DecodedTxnLogRecord decode_txn_log_record(Bytes key, const std::optional<Bytes>& value,
                                          int64_t offset);

// Kafka's message for a record without a key (Kafka's tool stops there).
std::string txn_log_missing_key_message(int64_t offset);

}  // namespace strata::tools

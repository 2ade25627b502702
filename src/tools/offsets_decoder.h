// `strata dump-log --offsets-decoder`: the key and value of a __consumer_offsets record
// rendered as Kafka's kafka-dump-log.sh --offsets-decoder prints them (Kafka 3.8 and
// later; docs/formats/dump-log-output.md, section 2.10):
//   key:     {"type":"<key version>","data":{<the key's fields>}}
//   payload: {"version":"<value version>","data":{<the value's fields>}}, or <DELETE>
//            for a tombstone.
// Fields are named and ordered as in Kafka's JSON converters, and only the fields of the
// record's version appear. In a group whose protocol type is "consumer", each member's
// subscription and assignment are decoded (consumer_protocol.h); bytes that do not
// decode stay base64, as Kafka leaves them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/bytes.h"

namespace strata::tools {

struct DecodedOffsetsRecord {
  std::optional<std::string> key;      // printed as " key: ..."
  std::optional<std::string> payload;  // printed as " payload: ..." when set
};

// `offset` is the record's offset, for the messages of records that cannot be decoded:
//   key "Unknown record type <n> at offset <o>, skipping." (a key version Kafka does not
//   define) or "Error at offset <o>, skipping. <reason>", and no payload.
// Key versions 3-15 (KIP-848 consumer groups and share groups, which Strata does not
// write) are reported with the second form.
DecodedOffsetsRecord decode_offsets_record(Bytes key, const std::optional<Bytes>& value,
                                           int64_t offset);

// Kafka's message for a record without a key (Kafka's tool stops there).
std::string offsets_missing_key_message(int64_t offset);

}  // namespace strata::tools

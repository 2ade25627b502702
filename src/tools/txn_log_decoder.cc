#include "tools/txn_log_decoder.h"

#include <fmt/format.h>

#include "tools/json_text.h"
#include "txn/records.h"

namespace strata::tools {

namespace {

using json::array;
using json::Object;

// The one record type of Kafka's transaction coordinator: TransactionLogKey.
constexpr int16_t kTxnKeyType = 0;

std::string partitions_json(const txn::StoredTxnValue& s) {
  if (s.partitions_null) return "null";
  return array(s.value.partitions, [](const txn::TxnTopicPartitions& tp) {
    return Object()
        .str("topic", tp.topic)
        .raw("partitionIds", array(tp.partitions, [](int32_t p) { return std::to_string(p); }))
        .done();
  });
}

// TransactionLogValueJsonConverter.write: tagged fields (v1+) only when not default.
std::string value_json(const txn::StoredTxnValue& s) {
  const txn::TxnValue& v = s.value;
  const bool tagged = s.version >= 1;
  Object o;
  o.num("producerId", v.producer_id);
  if (tagged && v.previous_producer_id != -1) o.num("previousProducerId", v.previous_producer_id);
  if (tagged && v.next_producer_id != -1) o.num("nextProducerId", v.next_producer_id);
  o.num("producerEpoch", v.producer_epoch)
      .num("transactionTimeoutMs", v.timeout_ms)
      .num("transactionStatus", int8_t(v.state))
      .raw("transactionPartitions", partitions_json(s))
      .num("transactionLastUpdateTimestampMs", v.last_update_ms)
      .num("transactionStartTimestampMs", v.start_ms);
  if (tagged && v.client_transaction_version != 0) {
    o.num("clientTransactionVersion", v.client_transaction_version);
  }
  return o.done();
}

DecodedTxnLogRecord skipped(int64_t offset, const std::string& reason) {
  return {fmt::format("Error at offset {}, skipping. {}", offset, reason), std::nullopt};
}

}  // namespace

std::string txn_log_missing_key_message(int64_t offset) {
  return fmt::format(
      "Failed to decode message at offset {} using the specified decoder (message had a "
      "missing key)",
      offset);
}

DecodedTxnLogRecord decode_txn_log_record(Bytes key, const std::optional<Bytes>& value,
                                          int64_t offset) {
  if (key.size() < 2) return skipped(offset, "Could not read version from key's buffer.");
  const int16_t type = int16_t(load_be16(key.data()));
  if (type != kTxnKeyType) {
    return {fmt::format("Unknown record type {} at offset {}, skipping.", type, offset),
            std::nullopt};
  }
  auto id = txn::decode_txn_key(key);
  if (!id) return skipped(offset, id.error());
  DecodedTxnLogRecord out{fmt::format("{{\"type\":\"{}\",\"data\":{}}}", type,
                                      Object().str("transactionalId", *id).done()),
                          "<DELETE>"};
  if (!value) return out;
  if (value->size() < 2) return skipped(offset, "Could not read version from value's buffer.");
  auto v = txn::decode_stored_txn_value(*value);
  if (!v) return skipped(offset, v.error());
  out.payload = fmt::format("{{\"version\":\"{}\",\"data\":{}}}", v->version, value_json(*v));
  return out;
}

}  // namespace strata::tools

// --transaction-log-decoder output, checked against the strings Kafka's own
// DumpLogSegmentsTest expects (testTransactionLogMessageParser, Kafka 4.0 and later),
// with values assembled byte by byte where Kafka's test writes ones Strata's encoder
// would not (an Empty state with a partition list), and a whole segment dumped.
#include "tools/txn_log_decoder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "record/batch_builder.h"
#include "tools/dump_log.h"
#include "txn/records.h"

namespace strata::tools {
namespace {

using Buf = std::vector<uint8_t>;

DecodedTxnLogRecord decode(const Buf& key, const std::optional<Buf>& value) {
  std::optional<Bytes> v;
  if (value) v = Bytes(*value);
  return decode_txn_log_record(key, v, 0);
}

// A TransactionLogValue as Kafka's generated writer lays it out, field by field.
struct ValueBytes {
  Buf b;
  ByteWriter w{b};
  bool flexible;
  explicit ValueBytes(int16_t version) : flexible(version >= 1) { w.i16(version); }
  void length(int64_t n) {
    if (flexible) {
      w.uvarint(uint64_t(n + 1));
    } else {
      w.i32(int32_t(n));
    }
  }
  void topic(std::string_view name, std::initializer_list<int32_t> partitions) {
    if (flexible) {
      w.uvarint(name.size() + 1);
    } else {
      w.i16(int16_t(name.size()));
    }
    w.bytes(as_bytes(name));
    length(int64_t(partitions.size()));
    for (int32_t p : partitions) w.i32(p);
    if (flexible) w.uvarint(0);  // the topic's tagged fields
  }
};

const char* const kTxnIdKey = R"({"type":"0","data":{"transactionalId":"txnId"}})";

TEST(TxnLogDecoder, Version0DefaultsMatchKafka) {
  // new TransactionLogValue().setProducerId(123L), version 0: an empty list, not null.
  ValueBytes v(0);
  v.w.i64(123);
  v.w.i16(0);
  v.w.i32(0);
  v.w.i8(0);
  v.length(0);
  v.w.i64(0);
  v.w.i64(0);
  const auto d = decode(txn::encode_txn_key("txnId"), v.b);
  EXPECT_EQ(d.key, kTxnIdKey);
  EXPECT_EQ(d.payload,
            R"({"version":"0","data":{"producerId":123,"producerEpoch":0,"transactionTimeoutMs":0,)"
            R"("transactionStatus":0,"transactionPartitions":[],"transactionLastUpdateTimestampMs":0,)"
            R"("transactionStartTimestampMs":0}})");
}

TEST(TxnLogDecoder, Version1WithAllFieldsMatchesKafka) {
  ValueBytes v(1);
  v.w.i64(12);     // producerId
  v.w.i16(2);      // producerEpoch
  v.w.i32(14);     // transactionTimeoutMs
  v.w.i8(0);       // transactionStatus
  v.length(2);
  v.topic("topic1", {0, 1, 2});
  v.topic("topic2", {3, 4, 5});
  v.w.i64(123);    // transactionLastUpdateTimestampMs
  v.w.i64(13);     // transactionStartTimestampMs
  v.w.uvarint(2);  // tagged: previousProducerId 11, nextProducerId 10
  v.w.uvarint(0);
  v.w.uvarint(8);
  v.w.i64(11);
  v.w.uvarint(1);
  v.w.uvarint(8);
  v.w.i64(10);
  const auto d = decode(txn::encode_txn_key("txnId"), v.b);
  EXPECT_EQ(d.key, kTxnIdKey);
  EXPECT_EQ(d.payload,
            R"({"version":"1","data":{"producerId":12,"previousProducerId":11,"nextProducerId":10,)"
            R"("producerEpoch":2,"transactionTimeoutMs":14,"transactionStatus":0,)"
            R"("transactionPartitions":[{"topic":"topic1","partitionIds":[0,1,2]},)"
            R"({"topic":"topic2","partitionIds":[3,4,5]}],"transactionLastUpdateTimestampMs":123,)"
            R"("transactionStartTimestampMs":13}})");
}

TEST(TxnLogDecoder, TombstoneIsDelete) {
  const auto d = decode(txn::encode_txn_key("txnId"), std::nullopt);
  EXPECT_EQ(d.key, kTxnIdKey);
  EXPECT_EQ(d.payload, "<DELETE>");
}

TEST(TxnLogDecoder, UnknownRecordTypeIsReported) {
  const auto d = decode({0x7f, 0xff}, Buf{});
  EXPECT_EQ(d.key, "Unknown record type 32767 at offset 0, skipping.");
  EXPECT_FALSE(d.payload);
  EXPECT_EQ(decode({0xff, 0xff, 0, 0}, std::nullopt).key,
            "Unknown record type -1 at offset 0, skipping.");
}

TEST(TxnLogDecoder, WhatStrataWritesPrintsNullPartitionsAndClientVersion) {
  txn::TxnValue v;
  v.producer_id = 5;
  v.producer_epoch = 0;
  v.timeout_ms = 60000;
  v.state = txn::TxnState::kEmpty;
  v.last_update_ms = 1700000000000;
  v.start_ms = -1;
  v.client_transaction_version = 2;
  const auto d = decode(txn::encode_txn_key("my-txn"), txn::encode_txn_value(v));
  EXPECT_EQ(d.key, R"({"type":"0","data":{"transactionalId":"my-txn"}})");
  EXPECT_EQ(d.payload,
            R"({"version":"1","data":{"producerId":5,"producerEpoch":0,"transactionTimeoutMs":60000,)"
            R"("transactionStatus":0,"transactionPartitions":null,)"
            R"("transactionLastUpdateTimestampMs":1700000000000,"transactionStartTimestampMs":-1,)"
            R"("clientTransactionVersion":2}})");
}

TEST(TxnLogDecoder, UnknownStatusIsPrintedAsANumber) {
  // Kafka's JSON converter does not interpret the status byte.
  ValueBytes v(1);
  v.w.i64(1);
  v.w.i16(0);
  v.w.i32(1000);
  v.w.i8(9);
  v.length(0);
  v.w.i64(1);
  v.w.i64(1);
  v.w.uvarint(0);
  const auto d = decode(txn::encode_txn_key("t"), v.b);
  EXPECT_EQ(d.payload,
            R"({"version":"1","data":{"producerId":1,"producerEpoch":0,"transactionTimeoutMs":1000,)"
            R"("transactionStatus":9,"transactionPartitions":[],)"
            R"("transactionLastUpdateTimestampMs":1,"transactionStartTimestampMs":1}})");
}

TEST(TxnLogDecoder, TransactionalIdIsEscapedAsJackson) {
  const auto d = decode(txn::encode_txn_key("a\"b\\c\n\x01"), std::nullopt);
  EXPECT_EQ(d.key, R"({"type":"0","data":{"transactionalId":"a\"b\\c\n\u0001"}})");
}

TEST(TxnLogDecoder, BadRecordsAreSkippedWithAReason) {
  EXPECT_EQ(decode({0}, std::nullopt).key,
            "Error at offset 0, skipping. Could not read version from key's buffer.");
  EXPECT_EQ(decode({0, 0, 0, 9, 'a'}, std::nullopt).key,
            "Error at offset 0, skipping. transaction log key v0: truncated");
  const Buf key = txn::encode_txn_key("t");
  EXPECT_EQ(decode(key, Buf{1}).key,
            "Error at offset 0, skipping. Could not read version from value's buffer.");
  EXPECT_EQ(decode(key, Buf{0, 7}).key,
            "Error at offset 0, skipping. transaction log value: unknown version 7");
  EXPECT_EQ(decode(key, Buf{0, 1, 0, 0, 0}).key,
            "Error at offset 0, skipping. transaction log value v1: truncated");
  EXPECT_FALSE(decode(key, Buf{0, 1, 0, 0, 0}).payload);
  EXPECT_EQ(decode_txn_log_record(Buf{0}, std::nullopt, 42).key,
            "Error at offset 42, skipping. Could not read version from key's buffer.");
}

TEST(TxnLogDecoder, MissingKeyMessageIsKafkas) {
  EXPECT_EQ(txn_log_missing_key_message(3),
            "Failed to decode message at offset 3 using the specified decoder (message had a "
            "missing key)");
}

// A __transaction_state segment as the coordinator writes it: an Ongoing record, a
// tombstone, and (not something the coordinator writes) a record without a key.
TEST(TxnLogDecoder, DumpLogDecodesASegment) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("strata-txn-dump-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  txn::TxnValue v;
  v.producer_id = 1000;
  v.producer_epoch = 2;
  v.timeout_ms = 60000;
  v.state = txn::TxnState::kOngoing;
  v.partitions = {{"orders", {0, 2}}};
  v.last_update_ms = 1700000000000;
  v.start_ms = 1700000000000;
  const Buf key = txn::encode_txn_key("my-txn");
  const Buf value = txn::encode_txn_value(v);
  record::BatchBuilder b(record::BatchOptions{});
  b.append(1700000000000, Bytes(key), Bytes(value));
  b.append(1700000000001, Bytes(key), std::nullopt);
  b.append(1700000000002, std::nullopt, Bytes(value));
  auto batch = b.finish();
  ASSERT_TRUE(batch.ok());
  const std::string path = (dir / "00000000000000000000.log").string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(batch->data()), std::streamsize(batch->size()));

  std::ostringstream out, err;
  EXPECT_EQ(run_dump_log({.files = {path}, .transaction_log_decoder = true}, out, err), 0);
  std::filesystem::remove_all(dir);

  std::vector<std::string> records;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| ", 0) == 0) records.push_back(line.substr(line.find(" headerKeys: []")));
  }
  ASSERT_EQ(records.size(), 3u) << out.str();
  EXPECT_EQ(records[0],
            R"( headerKeys: [] key: {"type":"0","data":{"transactionalId":"my-txn"}} payload: )"
            R"({"version":"1","data":{"producerId":1000,"producerEpoch":2,)"
            R"("transactionTimeoutMs":60000,"transactionStatus":1,"transactionPartitions":)"
            R"([{"topic":"orders","partitionIds":[0,2]}],"transactionLastUpdateTimestampMs":)"
            R"(1700000000000,"transactionStartTimestampMs":1700000000000}})");
  EXPECT_EQ(records[1],
            R"( headerKeys: [] key: {"type":"0","data":{"transactionalId":"my-txn"}} )"
            R"(payload: <DELETE>)");
  EXPECT_EQ(records[2], " headerKeys: []");
  EXPECT_EQ(err.str(), "Error in " + path +
                           " at position 0: Failed to decode message at offset 2 using the "
                           "specified decoder (message had a missing key)\n");
}

}  // namespace
}  // namespace strata::tools

// dump-log output, checked line for line against Kafka's format
// (docs/formats/dump-log-output.md section 8 has the fixtures and the expected text).
#include "tools/dump_log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "record/test_util.h"
#include "tools/dump_log_print.h"

#include <unistd.h>

namespace strata::tools {
namespace {

using record::testing::from_hex;

// (a) uncompressed, 2 records; (b) gzip transactional; (c) COMMIT control batch.
constexpr const char* kBatchA =
    "00000000000000000000004b0000000002f4d8db860000000000010000018bcfe568000000018bcfe56801ffff"
    "ffffffffffffffffffffffff0000000220000000046b3104763102046831046876100002020104763200";
constexpr const char* kBatchB =
    "00000000000000020000005b00000000025caa02f10011000000010000018bcfe568020000018bcfe568030000"
    "0000000003e8000000000000000000021f8b08000000000000ff1361606060c936662933661061606262c93661"
    "2933610000ef3c1fbe16000000";
constexpr const char* kBatchC =
    "0000000000000004000000420000000002cc8b9ec80030000000000000018bcfe5680a0000018bcfe5680a0000"
    "0000000003e80000ffffffff000000012000000008000000010c00000000000500";
// (d) a v1 message, then a v0 gzip wrapper holding offsets 1 and 2.
constexpr const char* kLegacyV1 =
    "00000000000000000000001bca1882f401000000015d3ef79800ffffffff0000000568656c6c6f";
constexpr const char* kLegacyV0Gzip =
    "000000000000000200000041628836ea0001ffffffff000000331f8b08000000000000ff636000034620e60fbc"
    "6f65c4c0f01f084022891019062690d4896bd91d08a92400d871335236000000";

class DumpLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("strata-dump-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::vector<const char*>& hex,
                    std::vector<uint8_t> extra = {}) {
    std::vector<uint8_t> bytes;
    for (const char* h : hex) {
      auto b = from_hex(h);
      bytes.insert(bytes.end(), b.begin(), b.end());
    }
    bytes.insert(bytes.end(), extra.begin(), extra.end());
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return path;
  }

  std::string dump(DumpLogOptions o, std::string* err_text = nullptr) {
    std::ostringstream out, err;
    EXPECT_EQ(run_dump_log(o, out, err), 0);
    if (err_text) *err_text = err.str();
    return out.str();
  }

  std::filesystem::path dir_;
};

const std::string kLineA =
    "baseOffset: 0 lastOffset: 1 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 "
    "producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false "
    "deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000001 size: 87 magic: 2 "
    "compresscodec: none crc: 4107852678 isvalid: true\n";
const std::string kLineB =
    "baseOffset: 2 lastOffset: 3 count: 2 baseSequence: 0 lastSequence: 1 producerId: 1000 "
    "producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: true isControl: false "
    "deleteHorizonMs: OptionalLong.empty position: 87 CreateTime: 1700000000003 size: 103 "
    "magic: 2 compresscodec: gzip crc: 1554645745 isvalid: true\n";
const std::string kLineC =
    "baseOffset: 4 lastOffset: 4 count: 1 baseSequence: -1 lastSequence: -1 producerId: 1000 "
    "producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: true isControl: true "
    "deleteHorizonMs: OptionalLong.empty position: 190 CreateTime: 1700000000010 size: 78 "
    "magic: 2 compresscodec: none crc: 3431702216 isvalid: true\n";

TEST_F(DumpLogTest, ShallowMatchesKafka) {
  const auto path = write("00000000000000000000.log", {kBatchA, kBatchB, kBatchC});
  EXPECT_EQ(dump({.files = {path}}),
            "Dumping " + path + "\nLog starting offset: 0\n" + kLineA + kLineB + kLineC);
}

TEST_F(DumpLogTest, PrintDataLogMatchesKafka) {
  const auto path = write("00000000000000000000.log", {kBatchA, kBatchB, kBatchC});
  EXPECT_EQ(dump({.files = {path}, .print_data_log = true}),
            "Dumping " + path + "\nLog starting offset: 0\n" + kLineA +
                "| offset: 0 CreateTime: 1700000000000 keySize: 2 valueSize: 2 sequence: -1 "
                "headerKeys: [h1] key: k1 payload: v1\n"
                "| offset: 1 CreateTime: 1700000000001 keySize: -1 valueSize: 2 sequence: -1 "
                "headerKeys: [] payload: v2\n" +
                kLineB +
                "| offset: 2 CreateTime: 1700000000002 keySize: 2 valueSize: 2 sequence: 0 "
                "headerKeys: [] key: k3 payload: v3\n"
                "| offset: 3 CreateTime: 1700000000003 keySize: 2 valueSize: 2 sequence: 1 "
                "headerKeys: [] key: k4 payload: v4\n" +
                kLineC +
                "| offset: 4 CreateTime: 1700000000010 keySize: 4 valueSize: 6 sequence: -1 "
                "headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 5\n");
}

// --offsets-decoder on records that are not __consumer_offsets records: key "k1" reads as
// record type 0x6b31, which Kafka does not define; a record without a key is reported on
// stderr (Kafka's tool stops there). The decoded forms are in offsets_decoder_test.cc.
TEST_F(DumpLogTest, OffsetsDecoderReportsWhatItCannotDecode) {
  const auto path = write("00000000000000000000.log", {kBatchA});
  std::string err;
  EXPECT_EQ(dump({.files = {path}, .offsets_decoder = true}, &err),
            "Dumping " + path + "\nLog starting offset: 0\n" + kLineA +
                "| offset: 0 CreateTime: 1700000000000 keySize: 2 valueSize: 2 sequence: -1 "
                "headerKeys: [h1] key: Unknown record type 27441 at offset 0, skipping.\n"
                "| offset: 1 CreateTime: 1700000000001 keySize: -1 valueSize: 2 sequence: -1 "
                "headerKeys: []\n");
  EXPECT_EQ(err, "Error in " + path +
                     " at position 0: Failed to decode message at offset 1 using offset topic "
                     "decoder (message had a missing key)\n");
}

TEST_F(DumpLogTest, DeepIterationWithoutData) {
  const auto path = write("00000000000000000000.log", {kBatchA});
  const auto out = dump({.files = {path}, .deep_iteration = true});
  EXPECT_NE(out.find("headerKeys: [h1]\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("payload"), std::string::npos);
}

TEST_F(DumpLogTest, LegacyMessagesMatchKafka) {
  const auto path = write("00000000000000000000.log", {kLegacyV1, kLegacyV0Gzip});
  EXPECT_EQ(dump({.files = {path}, .print_data_log = true}),
            "Dumping " + path +
                "\nLog starting offset: 0\n"
                "offset: 0 position: 0 CreateTime: 1500000000000 size: 39 magic: 1 "
                "compresscodec: none crc: 3390604020 isvalid: true\n"
                "| offset: 0 CreateTime: 1500000000000 keySize: -1 valueSize: 5 isValid: true "
                "crc: 3390604020 payload: hello\n"
                "offset: 2 position: 39 NoTimestampType: -1 size: 77 magic: 0 compresscodec: "
                "gzip crc: 1653094122 isvalid: true\n"
                "| offset: 1 NoTimestampType: -1 keySize: -1 valueSize: 1 isValid: true crc: "
                "1373583922 payload: a\n"
                "| offset: 2 NoTimestampType: -1 keySize: -1 valueSize: 1 isValid: true crc: "
                "3369495432 payload: b\n");
}

TEST_F(DumpLogTest, TrailingGarbage) {
  const auto path = write("00000000000000000000.log", {kBatchA}, std::vector<uint8_t>(10, 0xab));
  EXPECT_EQ(dump({.files = {path}}), "Dumping " + path + "\nLog starting offset: 0\n" + kLineA +
                                         "Found 10 invalid bytes at the end of "
                                         "00000000000000000000.log\n");
}

TEST_F(DumpLogTest, TornLastBatch) {
  auto c = from_hex(kBatchC);
  c.resize(c.size() - 10);
  const auto path = write("00000000000000000000.log", {kBatchA, kBatchB}, c);
  EXPECT_EQ(dump({.files = {path}}), "Dumping " + path + "\nLog starting offset: 0\n" + kLineA +
                                         kLineB +
                                         "Found 68 invalid bytes at the end of "
                                         "00000000000000000000.log\n");
}

TEST_F(DumpLogTest, MaxBytesStopsQuietly) {
  const auto path = write("00000000000000000000.log", {kBatchA, kBatchB, kBatchC});
  EXPECT_EQ(dump({.files = {path}, .max_bytes = 100}),
            "Dumping " + path + "\nLog starting offset: 0\n" + kLineA);
}

TEST_F(DumpLogTest, BadCrcIsReportedAndDumpGoesOn) {
  auto a = from_hex(kBatchA);
  a[70] ^= 0x01;
  const auto path = write("00000000000000000000.log", {}, a);
  const auto out = dump({.files = {path}});
  EXPECT_NE(out.find("crc: 4107852678 isvalid: false\n"), std::string::npos) << out;
}

TEST_F(DumpLogTest, BaseOffsetFromFileName) {
  const auto path = write("00000000000000000123.log", {kBatchA});
  EXPECT_NE(dump({.files = {path}}).find("Log starting offset: 123\n"), std::string::npos);
}

TEST_F(DumpLogTest, BadRecordIsReportedNotFatal) {
  auto a = from_hex(kBatchA);
  a[61] = 0x7e;  // first record's length runs past the batch
  const auto path = write("00000000000000000000.log", {}, a);
  std::string err;
  const auto out = dump({.files = {path}, .deep_iteration = true}, &err);
  EXPECT_NE(err.find("record length past the end of the batch"), std::string::npos) << err;
}

TEST_F(DumpLogTest, NonConsecutiveOffsets) {
  auto a = from_hex(kBatchA);
  const auto path = write("00000000000000000000.log", {kBatchA, kBatchC});
  std::string err;
  dump({.files = {path}, .deep_iteration = true}, &err);
  EXPECT_NE(err.find("Non-consecutive offsets in "), std::string::npos);
  EXPECT_NE(err.find("  1 is followed by 4\n"), std::string::npos) << err;
}

TEST_F(DumpLogTest, UnknownFileIgnored) {
  const auto path = write("00000000000000000000.deleted", {kBatchA});
  std::string err;
  EXPECT_EQ(dump({.files = {path}}, &err), "Dumping " + path + "\n");
  EXPECT_EQ(err, "Ignoring unknown file " + path + "\n");
}

TEST_F(DumpLogTest, ExplainMapsEveryField) {
  const auto path = write("00000000000000000000.log", {kBatchA, kBatchB});
  const auto out = dump({.files = {path}, .explain = true});
  EXPECT_NE(out.find("@17        f4 d8 db 86"), std::string::npos) << out;
  EXPECT_NE(out.find("crc: 4107852678 (computed over [21, 87): 4107852678, valid)"),
            std::string::npos) << out;
  EXPECT_NE(out.find("key: \"k1\""), std::string::npos) << out;
  EXPECT_NE(out.find("headerKey: \"h1\""), std::string::npos) << out;
  EXPECT_NE(out.find("decompress to"), std::string::npos) << out;
  EXPECT_NE(out.find("value: \"v4\""), std::string::npos) << out;
}

TEST(DecodeUtf8Lossy, ReplacesInvalidSequences) {
  const uint8_t bad[] = {'a', 0xff, 'b', 0xe2, 0x82, 0xac, 0xc0, 0x80};
  EXPECT_EQ(decode_utf8_lossy(Bytes(bad)),
            "a\xEF\xBF\xBD" "b\xE2\x82\xAC\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace strata::tools

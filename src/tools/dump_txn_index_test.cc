// dump-log on transaction indexes: files assembled byte by byte (34-byte big-endian
// entries: int16 version, int64 producerId, firstOffset, lastOffset, lastStableOffset),
// printed line for line as Kafka's DumpLogSegments.dumpTxnIndex prints them
// (docs/formats/dump-log-output.md 3.3), and the files it refuses.
#include "tools/dump_txn_index.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/dump_log.h"

namespace strata::tools {
namespace {

struct Entry {
  int16_t version;
  int64_t producer_id, first, last, lso;
};

std::vector<uint8_t> entries(std::initializer_list<Entry> list) {
  std::vector<uint8_t> b;
  ByteWriter w(b);
  for (const Entry& e : list) {
    w.i16(e.version);
    w.i64(e.producer_id);
    w.i64(e.first);
    w.i64(e.last);
    w.i64(e.lso);
  }
  return b;
}

class DumpTxnIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("strata-dump-txnindex-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::vector<uint8_t>& bytes,
                    const std::string& name = "00000000000000000100.txnindex") {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return path;
  }

  // Runs dump-log on `files`; returns stdout and sets status_ and err_.
  std::string dump(const std::vector<std::string>& files) {
    std::ostringstream out, err;
    status_ = run_dump_log({.files = files}, out, err);
    err_ = err.str();
    return out.str();
  }

  std::filesystem::path dir_;
  int status_ = -1;
  std::string err_;
};

TEST_F(DumpTxnIndexTest, EntriesMatchKafka) {
  const auto bytes = entries({{0, 1000, 105, 109, 110}, {0, 1099511627776, 103, 120, 103}});
  ASSERT_EQ(bytes.size(), 68u);
  // The first entry, spelled out.
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 34),
            (std::vector<uint8_t>{0, 0,                               // version 0
                                  0, 0, 0, 0, 0, 0, 0x03, 0xe8,       // producerId 1000
                                  0, 0, 0, 0, 0, 0, 0, 105,           // firstOffset
                                  0, 0, 0, 0, 0, 0, 0, 109,           // lastOffset
                                  0, 0, 0, 0, 0, 0, 0, 110}));        // lastStableOffset
  const auto path = write(bytes);
  EXPECT_EQ(dump({path}),
            "Dumping " + path + "\n"
            "version: 0 producerId: 1000 firstOffset: 105 lastOffset: 109 lastStableOffset: 110\n"
            "version: 0 producerId: 1099511627776 firstOffset: 103 lastOffset: 120 "
            "lastStableOffset: 103\n");
  EXPECT_EQ(err_, "");
  EXPECT_EQ(status_, 0);
}

TEST_F(DumpTxnIndexTest, EmptyFilePrintsNothing) {
  const auto path = write({});
  EXPECT_EQ(dump({path}), "Dumping " + path + "\n");
  EXPECT_EQ(err_, "");
  EXPECT_EQ(status_, 0);
}

TEST_F(DumpTxnIndexTest, LineFormat) {
  storage::AbortedTxn t{ProducerId(7), Offset(0), Offset(4), Offset(5), 0};
  EXPECT_EQ(aborted_txn_line(t),
            "version: 0 producerId: 7 firstOffset: 0 lastOffset: 4 lastStableOffset: 5");
}

// The second entry starts 01 00. Kafka reads its first byte as the version and dies
// with a KafkaException ("Unexpected aborted transaction version 1 in transaction index
// ...") before printing any entry of the file. Strata prints no entry either, says which
// byte is bad, and goes on to the next file.
TEST_F(DumpTxnIndexTest, UnknownVersionIsAClearError) {
  const auto bad = write(entries({{0, 1, 0, 4, 5}, {256, 2, 6, 9, 10}}));
  const auto good = write(entries({{0, 3, 11, 12, 13}}), "00000000000000000200.txnindex");
  EXPECT_EQ(dump({bad, good}),
            "Dumping " + bad + "\nDumping " + good + "\n" +
                "version: 0 producerId: 3 firstOffset: 11 lastOffset: 12 lastStableOffset: 13\n");
  EXPECT_EQ(err_.rfind("Error: corrupt transaction index " + bad, 0), 0u) << err_;
  EXPECT_NE(err_.find("version 256"), std::string::npos) << err_;
  EXPECT_NE(err_.find("byte 34"), std::string::npos) << err_;
  EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
  EXPECT_EQ(status_, 1);
}

// Kafka's iterator stops quietly before a partial entry; Strata reports it.
TEST_F(DumpTxnIndexTest, PartialEntryIsAClearError) {
  auto bytes = entries({{0, 1, 0, 4, 5}});
  bytes.resize(bytes.size() + 10);
  const auto path = write(bytes);
  EXPECT_EQ(dump({path}), "Dumping " + path + "\n");
  EXPECT_EQ(err_.rfind("Error: corrupt transaction index " + path, 0), 0u) << err_;
  EXPECT_NE(err_.find("10 bytes"), std::string::npos) << err_;
  EXPECT_NE(err_.find("byte 34"), std::string::npos) << err_;
  EXPECT_EQ(status_, 1);
}

TEST_F(DumpTxnIndexTest, MissingFileIsAnError) {
  const std::string path = (dir_ / "00000000000000000300.txnindex").string();
  EXPECT_EQ(dump({path}), "Dumping " + path + "\n");
  EXPECT_EQ(err_, "Error: cannot read " + path + ": No such file or directory\n");
  EXPECT_EQ(status_, 1);
}

}  // namespace
}  // namespace strata::tools

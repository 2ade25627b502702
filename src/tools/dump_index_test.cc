// dump-log of .index and .timeindex files, line for line against Kafka's DumpLogSegments
// (docs/formats/dump-log-output.md sections 3.1, 3.2 and 4).
#include "tools/dump_index.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/bytes.h"
#include "record/batch_builder.h"
#include "record/test_util.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "tools/dump_log.h"

namespace strata::tools {
namespace {

namespace fs = std::filesystem;
using record::BatchBuilder;
using record::BatchOptions;

// One v2 batch at `base` with a record per timestamp.
std::vector<uint8_t> batch(int64_t base, std::vector<int64_t> timestamps,
                           record::Codec codec = record::Codec::kNone) {
  BatchBuilder b(BatchOptions{.codec = codec, .base_offset = Offset(base)});
  for (int64_t ts : timestamps) b.append(ts, std::nullopt, as_bytes("v"));
  auto bytes = b.finish();
  EXPECT_TRUE(bytes.ok());
  return std::move(bytes.value());
}

// A v1 message at offset 0, CreateTime 1500000000000, value "hello" (section 8 fixture d).
constexpr const char* kLegacyV1 =
    "00000000000000000000001bca1882f401000000015d3ef79800ffffffff0000000568656c6c6f";

struct IndexEntry {
  int64_t offset;
  uint32_t position;
};
struct TimeEntry {
  int64_t timestamp;
  int64_t offset;
};

class DumpIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("strata-dump-index-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& suffix) const {
    return (dir_ / ("00000000000000000000" + suffix)).string();
  }
  std::string abs(const std::string& suffix) const { return fs::absolute(path(suffix)).string(); }

  void write(const std::string& suffix, const std::vector<uint8_t>& bytes) {
    std::ofstream(path(suffix), std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  // The three-batch log: offsets 0-1 (ts 1000, 1001) at 0, 2-3 (ts 1005, 1002) and 4
  // (ts 1010) after it. Returns the batch positions.
  std::vector<uint32_t> write_log() {
    std::vector<uint8_t> log;
    std::vector<uint32_t> positions;
    for (auto b : {batch(0, {1000, 1001}), batch(2, {1005, 1002}), batch(4, {1010})}) {
      positions.push_back(uint32_t(log.size()));
      log.insert(log.end(), b.begin(), b.end());
    }
    write(".log", log);
    return positions;
  }
  // Written through the broker's own class, trimmed as on roll unless `trim` is false.
  void write_index(const std::vector<IndexEntry>& entries, bool trim = true) {
    auto idx = storage::OffsetIndex::open(path(".index"), Offset(0), 1024, true);
    ASSERT_TRUE(idx.ok());
    for (const IndexEntry& e : entries) {
      ASSERT_TRUE(idx->append(Offset(e.offset), e.position).ok());
    }
    if (trim) {
      ASSERT_TRUE(idx->trim().ok());
    }
  }
  // Raw bytes, so entries can break the broker's rules.
  void write_time_index(const std::vector<TimeEntry>& entries) {
    std::vector<uint8_t> bytes;
    ByteWriter w(bytes);
    for (const TimeEntry& e : entries) {
      w.i64(e.timestamp);
      w.i32(int32_t(e.offset));
    }
    write(".timeindex", bytes);
  }

  std::string dump(DumpLogOptions o, std::string* err_text = nullptr, int expected_status = 0) {
    std::ostringstream out, err;
    EXPECT_EQ(run_dump_log(o, out, err), expected_status);
    if (err_text) {
      *err_text = err.str();
    } else {
      EXPECT_EQ(err.str(), "");
    }
    return out.str();
  }

  fs::path dir_;
};

TEST_F(DumpIndexTest, OffsetIndexMatchesKafka) {
  const auto pos = write_log();
  write_index({{1, pos[0]}, {3, pos[1]}, {4, pos[2]}});
  EXPECT_EQ(dump({.files = {path(".index")}}),
            "Dumping " + path(".index") + "\noffset: 1 position: 0\noffset: 3 position: " +
                std::to_string(pos[1]) + "\noffset: 4 position: " + std::to_string(pos[2]) + "\n");
}

TEST_F(DumpIndexTest, OffsetIndexMismatchesNewestFirst) {
  const auto pos = write_log();
  write_index({{1, pos[0]}, {2, pos[1]}, {4, pos[1]}});
  std::string err;
  const std::string out = dump({.files = {path(".index")}}, &err);
  EXPECT_NE(out.find("offset: 2 position: " + std::to_string(pos[1]) + "\n"), std::string::npos);
  EXPECT_EQ(err, "Mismatches in :" + abs(".index") +
                     "\n"
                     "  Index offset: 4, log offset: 3\n"
                     "  Index offset: 2, log offset: 3\n");
}

TEST_F(DumpIndexTest, VerifyIndexOnlyPrintsNoEntries) {
  const auto pos = write_log();
  write_index({{1, pos[0]}, {2, pos[1]}});
  std::string err;
  EXPECT_EQ(dump({.files = {path(".index")}, .verify_index_only = true}, &err),
            "Dumping " + path(".index") + "\n");
  EXPECT_EQ(err, "Mismatches in :" + abs(".index") + "\n  Index offset: 2, log offset: 3\n");
}

TEST_F(DumpIndexTest, EmptyIndex) {
  write(".index", {});  // no .log needed: Kafka checks emptiness first
  EXPECT_EQ(dump({.files = {path(".index")}}),
            "Dumping " + path(".index") + "\n" + path(".index") + " is empty.\n");
}

TEST_F(DumpIndexTest, IndexSanityCheckPasses) {
  const auto pos = write_log();
  write_index({{1, pos[0]}});
  EXPECT_EQ(dump({.files = {path(".index")}, .index_sanity_check = true}),
            "Dumping " + path(".index") + "\n" + path(".index") + " passed sanity check.\n");
}

TEST_F(DumpIndexTest, IndexSanityCheckFailureIsReported) {
  write(".index", std::vector<uint8_t>(13, 0));
  std::string err;
  EXPECT_EQ(dump({.files = {path(".index")}, .index_sanity_check = true}, &err, 1),
            "Dumping " + path(".index") + "\n");
  EXPECT_EQ(err, "Index file " + abs(".index") +
                     " is corrupt, found 13 bytes which is neither positive nor a multiple of "
                     "8.\n");
}

TEST_F(DumpIndexTest, ZeroTailOfPreallocatedIndexStops) {
  const auto pos = write_log();
  write_index({{1, pos[0]}, {3, pos[1]}}, /*trim=*/false);  // a crash: 128 slots
  EXPECT_EQ(dump({.files = {path(".index")}}),
            "Dumping " + path(".index") +
                "\noffset: 1 position: 0\noffset: 3 position: " + std::to_string(pos[1]) + "\n");
}

TEST_F(DumpIndexTest, MissingLogIsReportedAndEntriesStillPrinted) {
  write_index({{1, 0}});
  std::string err;
  EXPECT_EQ(dump({.files = {path(".index")}}, &err),
            "Dumping " + path(".index") + "\noffset: 1 position: 0\n");
  EXPECT_EQ(err.rfind("Error: cannot read " + abs(".log") + " to verify " + path(".index"), 0), 0u)
      << err;
}

TEST_F(DumpIndexTest, EntryPastTheLogIsReported) {
  const auto pos = write_log();
  write_index({{1, pos[0]}, {9, 100000}});
  std::string err;
  const std::string out = dump({.files = {path(".index")}}, &err);
  EXPECT_NE(out.find("offset: 9 position: 100000\n"), std::string::npos) << out;
  EXPECT_NE(err.find("Error: index offset 9 points at position 100000, past the end of"),
            std::string::npos)
      << err;
}

TEST_F(DumpIndexTest, MaxMessageSizeBoundsTheRead) {
  const auto pos = write_log();
  write_index({{1, pos[0]}});
  std::string err;
  dump({.files = {path(".index")}, .max_message_size = 20}, &err);
  EXPECT_NE(err.find("Error: no batch at position 0 of " + abs(".log") + " for index offset 1"),
            std::string::npos)
      << err;
}

TEST_F(DumpIndexTest, FileNameWithoutBaseOffsetIsReported) {
  const std::string bad = (dir_ / "segment.index").string();
  std::ofstream(bad, std::ios::binary).put('\0');
  std::string err;
  EXPECT_EQ(dump({.files = {bad}}, &err, 1), "Dumping " + bad + "\n");
  EXPECT_EQ(err, "Error: cannot read a base offset from the file name of " + bad + "\n");
}

TEST_F(DumpIndexTest, TimeIndexMatchesKafka) {
  const auto pos = write_log();
  write_index({{1, pos[0]}, {3, pos[1]}});
  write_time_index({{1001, 1}, {1005, 3}, {1010, 4}});
  EXPECT_EQ(dump({.files = {path(".timeindex")}}), "Dumping " + path(".timeindex") +
                                                       "\n"
                                                       "timestamp: 1001 offset: 1\n"
                                                       "timestamp: 1005 offset: 3\n"
                                                       "timestamp: 1010 offset: 4\n");
}

TEST_F(DumpIndexTest, TimeIndexErrorsInKafkasOrder) {
  const auto pos = write_log();
  write_index({{1, pos[0]}, {3, pos[1]}, {4, pos[2]}});
  // 1000 is not batch 2-3's max (1005) and is below 1001; offset 2 ends no batch (the
  // first ending after it ends at 3); offset 9 is past the log.
  write_time_index({{1001, 1}, {1000, 3}, {1010, 2}, {1020, 9}});
  std::string err;
  EXPECT_EQ(dump({.files = {path(".timeindex")}, .verify_index_only = true}, &err),
            "Dumping " + path(".timeindex") + "\n");
  EXPECT_EQ(err, "Found timestamp mismatch in :" + abs(".timeindex") +
                     "\n"
                     "  Index timestamp: 1000, log timestamp: 1005\n"
                     "Found out of order timestamp in :" +
                     abs(".timeindex") +
                     "\n"
                     "  Index timestamp: 1000, Previously indexed timestamp: 1001\n"
                     "The following indexed offsets are not found in the log.\n"
                     "Indexed offset: 2, found log offset: 3\n"
                     "Indexed offset: 9, found log offset: -1\n");
}

TEST_F(DumpIndexTest, TimeIndexWithoutOffsetIndexScansFromTheStart) {
  write_log();
  write_time_index({{1001, 1}, {1010, 4}});
  std::string err;
  EXPECT_EQ(dump({.files = {path(".timeindex")}}, &err),
            "Dumping " + path(".timeindex") + "\ntimestamp: 1001 offset: 1\ntimestamp: 1010 " +
                "offset: 4\n");
  EXPECT_EQ(err, "Error: open " + abs(".index") +
                     ": No such file or directory; batches are searched from the start of the "
                     "log\n");
  EXPECT_EQ(err.find("timestamp mismatch"), std::string::npos) << err;
}

TEST_F(DumpIndexTest, TimeIndexReadsCompressedAndLegacyRecords) {
  write_index({});
  write(".log", batch(0, {7000, 9000, 8000}, record::Codec::kGzip));
  write_time_index({{9000, 2}});
  EXPECT_EQ(dump({.files = {path(".timeindex")}}),
            "Dumping " + path(".timeindex") + "\ntimestamp: 9000 offset: 2\n");

  write(".log", record::testing::from_hex(kLegacyV1));
  write_time_index({{1500000000000, 0}});
  EXPECT_EQ(dump({.files = {path(".timeindex")}}),
            "Dumping " + path(".timeindex") + "\ntimestamp: 1500000000000 offset: 0\n");
}

TEST_F(DumpIndexTest, TimeIndexSanityCheck) {
  write_time_index({{1000, 1}, {0, 0}});  // the zero tail of a crashed preallocated file
  std::string err;
  EXPECT_EQ(dump({.files = {path(".timeindex")}, .index_sanity_check = true}, &err, 1),
            "Dumping " + path(".timeindex") + "\n");
  EXPECT_EQ(err, "Corrupt time index found, time index file (" + abs(".timeindex") +
                     ") has non-zero size but the last timestamp is 0 which is less than the "
                     "first timestamp 1000\n");
  write_time_index({{1000, 1}, {2000, 3}});
  EXPECT_EQ(
      dump({.files = {path(".timeindex")}, .index_sanity_check = true}),
      "Dumping " + path(".timeindex") + "\n" + path(".timeindex") + " passed sanity check.\n");
}

TEST_F(DumpIndexTest, TimeIndexZeroTailStops) {
  write_log();
  write_index({});
  write_time_index({{1001, 1}, {0, 0}, {0, 0}});
  EXPECT_EQ(dump({.files = {path(".timeindex")}}),
            "Dumping " + path(".timeindex") + "\ntimestamp: 1001 offset: 1\n");
}

TEST_F(DumpIndexTest, SummariesFollowEveryFileInKafkasOrder) {
  const auto pos = write_log();
  write_index({{2, pos[1]}});
  write_time_index({{999, 1}});
  std::vector<uint8_t> gappy = batch(100, {1});
  const auto second = batch(105, {2});
  gappy.insert(gappy.end(), second.begin(), second.end());
  const std::string gappy_path = (dir_ / "00000000000000000100.log").string();
  std::ofstream(gappy_path, std::ios::binary)
      .write(reinterpret_cast<const char*>(gappy.data()), std::streamsize(gappy.size()));
  std::string err;
  dump({.files = {gappy_path, path(".timeindex"), path(".index")},
        .deep_iteration = true,
        .verify_index_only = true},
       &err);
  const size_t mismatches = err.find("Mismatches in :");
  const size_t time_errors = err.find("Found timestamp mismatch in :");
  const size_t gaps = err.find("Non-consecutive offsets in ");
  ASSERT_NE(mismatches, std::string::npos) << err;
  ASSERT_NE(time_errors, std::string::npos) << err;
  ASSERT_NE(gaps, std::string::npos) << err;
  EXPECT_LT(mismatches, time_errors);
  EXPECT_LT(time_errors, gaps);
}

}  // namespace
}  // namespace strata::tools

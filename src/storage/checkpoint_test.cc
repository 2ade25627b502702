#include "storage/checkpoint.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace strata::storage {
namespace {

namespace fs = std::filesystem;

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/strata-checkpoint-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  void put(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
  }
  std::string get(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
  // The error of parsing `text` as an offsets checkpoint named "cp".
  static StorageError offsets_error(std::string_view text) {
    auto r = parse_offset_checkpoint(text, "/logs/cp");
    EXPECT_FALSE(r.ok()) << "parsed: " << text;
    return r.ok() ? StorageError{} : r.error();
  }
  static void expect_corrupt_offsets(std::string_view text) {
    EXPECT_EQ(offsets_error(text).code, StorageErrc::kCorruptCheckpoint) << text;
  }

  std::string dir_;
};

TopicPartition tp(std::string topic, int32_t partition) {
  return {std::move(topic), PartitionId(partition)};
}

// ---- Offsets checkpoints

TEST_F(CheckpointTest, OffsetsRoundTrip) {
  const OffsetCheckpoint in = {{tp("orders", 0), Offset(0)},
                               {tp("orders", 11), Offset(9'223'372'036'854'775'807)},
                               {tp("a.b_c-D9", 2'147'483'647), Offset(12345)},
                               {tp(std::string(249, 'x'), 1), Offset(1)}};
  ASSERT_TRUE(write_offset_checkpoint(path(kRecoveryPointCheckpointFile), in).ok());
  auto out = read_offset_checkpoint(path(kRecoveryPointCheckpointFile));
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(*out, in);
}

TEST_F(CheckpointTest, OffsetsExactBytes) {
  // Kafka: version, count, then "<topic> <partition> <offset>" lines, each ended by '\n'
  // (BufferedWriter.newLine on Linux). Strata sorts the entries; Kafka uses hash-map order.
  const OffsetCheckpoint in = {{tp("foo", 0), Offset(42)}, {tp("bar", 3), Offset(7)}};
  ASSERT_TRUE(write_offset_checkpoint(path("cp"), in).ok());
  EXPECT_EQ(get("cp"), "0\n2\nbar 3 7\nfoo 0 42\n");
  // Kafka's order reads the same.
  auto parsed = parse_offset_checkpoint("0\n2\nfoo 0 42\nbar 3 7\n", "cp");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, in);
  ASSERT_TRUE(write_offset_checkpoint(path("empty"), {}).ok());
  EXPECT_EQ(get("empty"), "0\n0\n");
}

TEST_F(CheckpointTest, OffsetsMissingFileIsEmpty) {
  auto out = read_offset_checkpoint(path(kLogStartOffsetCheckpointFile));
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->empty());
}

TEST_F(CheckpointTest, OffsetsEmptyFileIsEmpty) {
  put("cp", "");  // Kafka's CheckpointFile creates the file empty before its first write
  auto out = read_offset_checkpoint(path("cp"));
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->empty());
}

TEST_F(CheckpointTest, OffsetsCorruptVersion) {
  const StorageError e = offsets_error("1\n0\n");
  EXPECT_EQ(e.code, StorageErrc::kCorruptCheckpoint);
  EXPECT_NE(e.message().find("/logs/cp"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("version 1"), std::string::npos) << e.message();
  expect_corrupt_offsets("x\n0\n");
  expect_corrupt_offsets("-0x1\n0\n");
  expect_corrupt_offsets("\n0\n");
}

TEST_F(CheckpointTest, OffsetsMissingCount) {
  expect_corrupt_offsets("0\n");
  expect_corrupt_offsets("0\n\n");
  expect_corrupt_offsets("0\n-1\n");
}

TEST_F(CheckpointTest, OffsetsCountMismatchFewerLines) {
  const StorageError e = offsets_error("0\n3\nfoo 0 1\nfoo 1 2\n");
  EXPECT_EQ(e.code, StorageErrc::kCorruptCheckpoint);
  EXPECT_NE(e.message().find("expected 3 entries, found 2"), std::string::npos) << e.message();
}

TEST_F(CheckpointTest, OffsetsCountMismatchMoreLines) {
  const StorageError e = offsets_error("0\n1\nfoo 0 1\nfoo 1 2\n");
  EXPECT_EQ(e.code, StorageErrc::kCorruptCheckpoint);
  EXPECT_NE(e.message().find("line 4"), std::string::npos) << e.message();
  expect_corrupt_offsets("0\n0\nfoo 0 1\n");
}

TEST_F(CheckpointTest, OffsetsNonNumericOffset) {
  const StorageError e = offsets_error("0\n2\nfoo 0 1\nfoo 1 4x2\n");
  EXPECT_EQ(e.code, StorageErrc::kCorruptCheckpoint);
  EXPECT_NE(e.message().find("malformed line 4: 'foo 1 4x2'"), std::string::npos) << e.message();
  expect_corrupt_offsets("0\n1\nfoo x 1\n");
  expect_corrupt_offsets("0\n1\nfoo 0 +1\n");
  expect_corrupt_offsets("0\n1\nfoo 0 9223372036854775808\n");  // int64 overflow
  expect_corrupt_offsets("0\n1\nfoo 2147483648 1\n");           // int32 overflow
  expect_corrupt_offsets("0\n1\nfoo 0 -1\n");
  expect_corrupt_offsets("0\n1\nfoo -1 0\n");
}

TEST_F(CheckpointTest, OffsetsHugeCount) {
  // The count is compared with the lines present; nothing is allocated from it.
  expect_corrupt_offsets("0\n2147483647\nfoo 0 1\n");
  expect_corrupt_offsets("0\n99999999999999999999\nfoo 0 1\n");
}

TEST_F(CheckpointTest, OffsetsTrailingGarbage) {
  expect_corrupt_offsets("0\n1\nfoo 0 1\n\n");    // an extra empty line
  expect_corrupt_offsets("0\n1\nfoo 0 1\njunk");  // unterminated text after the entries
  expect_corrupt_offsets("0\n1\nfoo 0 1");        // torn: no final newline
  expect_corrupt_offsets("0\n1\nfoo 0 1 9\n");    // a fourth field
}

TEST_F(CheckpointTest, OffsetsStrictSeparators) {
  expect_corrupt_offsets("0\n1\nfoo  0 1\n");
  expect_corrupt_offsets("0\n1\nfoo\t0 1\n");
  expect_corrupt_offsets("0\n1\n foo 0 1\n");
  expect_corrupt_offsets("0\n1\nfoo 0 1 \n");
  expect_corrupt_offsets("0\r\n1\r\nfoo 0 1\r\n");
}

TEST_F(CheckpointTest, OffsetsInvalidTopicOrDuplicate) {
  expect_corrupt_offsets("0\n1\nfoo/bar 0 1\n");
  expect_corrupt_offsets("0\n1\n.. 0 1\n");
  expect_corrupt_offsets("0\n1\n" + std::string(250, 't') + " 0 1\n");
  const StorageError e = offsets_error("0\n2\nfoo 0 1\nfoo 0 2\n");
  EXPECT_NE(e.message().find("duplicate entry for foo-0"), std::string::npos) << e.message();
}

TEST_F(CheckpointTest, OffsetsWriteRejectsInvalidEntry) {
  put("cp", "0\n0\n");
  EXPECT_FALSE(write_offset_checkpoint(path("cp"), {{tp("has space", 0), Offset(1)}}).ok());
  EXPECT_FALSE(write_offset_checkpoint(path("cp"), {{tp("", 0), Offset(1)}}).ok());
  EXPECT_FALSE(write_offset_checkpoint(path("cp"), {{tp("foo", -1), Offset(1)}}).ok());
  EXPECT_FALSE(write_offset_checkpoint(path("cp"), {{tp("foo", 0), Offset(-1)}}).ok());
  EXPECT_EQ(get("cp"), "0\n0\n");
  EXPECT_EQ(files(), std::vector<std::string>{"cp"});
}

// ---- Atomic writes

TEST_F(CheckpointTest, AtomicWriteLeavesNoTmp) {
  put("cp.tmp", "stale bytes from a crash mid-write");
  ASSERT_TRUE(atomic_write_file(path("cp"), "first").ok());
  ASSERT_TRUE(atomic_write_file(path("cp"), "second").ok());
  EXPECT_EQ(get("cp"), "second");
  EXPECT_EQ(files(), std::vector<std::string>{"cp"});
}

TEST_F(CheckpointTest, AtomicWriteMissingDirectory) {
  auto r = atomic_write_file(path("gone/cp"), "x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kIo);
  EXPECT_EQ(r.error().sys_errno, ENOENT);
  EXPECT_TRUE(files().empty());
}

TEST_F(CheckpointTest, AtomicWriteFailedRenameKeepsOldFile) {
  fs::create_directory(path("cp"));  // rename(file, non-empty dir) fails
  put("cp/inside", "x");
  auto r = atomic_write_file(path("cp"), "new");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kIo);
  EXPECT_EQ(files(), std::vector<std::string>{"cp"});  // no cp.tmp left behind
}

TEST_F(CheckpointTest, ReadErrorIsIoNotEmpty) {
  fs::create_directory(path("cp"));
  auto r = read_offset_checkpoint(path("cp"));  // a directory: read fails with EISDIR
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kIo);
}

// ---- leader-epoch-checkpoint

TEST_F(CheckpointTest, LeaderEpochRoundTrip) {
  const std::vector<EpochEntry> in = {
      {LeaderEpoch(0), Offset(0)}, {LeaderEpoch(2), Offset(150)}, {LeaderEpoch(5), Offset(900)}};
  const std::string file = path(kLeaderEpochCheckpointFile);
  ASSERT_TRUE(write_leader_epoch_checkpoint(file, in).ok());
  EXPECT_EQ(get(kLeaderEpochCheckpointFile), "0\n3\n0 0\n2 150\n5 900\n");
  auto out = read_leader_epoch_checkpoint(file);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(*out, in);
}

TEST_F(CheckpointTest, LeaderEpochMissingFileIsEmpty) {
  auto out = read_leader_epoch_checkpoint(path(kLeaderEpochCheckpointFile));
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->empty());
}

TEST_F(CheckpointTest, LeaderEpochCorrupt) {
  for (const char* text : {"1\n0\n", "0\n1\n", "0\n1\n3\n", "0\n1\n3 10 1\n", "0\n1\n-1 10\n",
                           "0\n1\n3 -10\n", "0\n1\n3 x\n", "0\n1\n3 10", "0\n0\n3 10\n"}) {
    auto r = parse_leader_epoch_checkpoint(text, "leader-epoch-checkpoint");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code, StorageErrc::kCorruptCheckpoint);
  }
}

TEST_F(CheckpointTest, LeaderEpochReadsAnyOrderWritesOnlyIncreasing) {
  // Old brokers could leave non-monotonic entries; Kafka's cache repairs them after reading.
  auto r = parse_leader_epoch_checkpoint("0\n2\n5 100\n3 200\n", "lec");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 2u);
  const std::vector<EpochEntry> bad_epochs = {{LeaderEpoch(5), Offset(1)},
                                              {LeaderEpoch(5), Offset(2)}};
  const std::vector<EpochEntry> bad_offsets = {{LeaderEpoch(1), Offset(7)},
                                               {LeaderEpoch(2), Offset(7)}};
  EXPECT_FALSE(write_leader_epoch_checkpoint(path("lec"), bad_epochs).ok());
  EXPECT_FALSE(write_leader_epoch_checkpoint(path("lec"), bad_offsets).ok());
  EXPECT_TRUE(files().empty());
}

// ---- meta.properties

constexpr TimestampMs kFixedTime{1729827181000};  // Fri Oct 25 03:33:01 UTC 2024

TEST_F(CheckpointTest, MetaPropertiesV1ExactBytes) {
  // What Kafka writes via Properties.store(writer, "") on Java 18+ (sorted keys).
  MetaProperties meta;
  meta.cluster_id = "MkU3OEVBNTcwNTJENDM2Qg";
  meta.node_id = NodeId(1);
  meta.directory_id = "4Dp9Ywe5Rm2Ap9tI5GG_Bw";
  auto text = encode_meta_properties(meta, kFixedTime);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "#\n"
            "#Fri Oct 25 03:33:01 UTC 2024\n"
            "cluster.id=MkU3OEVBNTcwNTJENDM2Qg\n"
            "directory.id=4Dp9Ywe5Rm2Ap9tI5GG_Bw\n"
            "node.id=1\n"
            "version=1\n");
  auto epoch = encode_meta_properties(meta, TimestampMs(0));
  ASSERT_TRUE(epoch.ok());
  EXPECT_EQ(epoch->substr(0, 32), "#\n#Thu Jan 01 00:00:00 UTC 1970\n");
}

TEST_F(CheckpointTest, MetaPropertiesRoundTrip) {
  MetaProperties meta;
  meta.cluster_id = "a=b:c #d!e\\f";  // every character Java escapes
  meta.node_id = NodeId(7);
  const std::string file = path(kMetaPropertiesFile);
  ASSERT_TRUE(write_meta_properties(file, meta).ok());
  EXPECT_NE(get(kMetaPropertiesFile).find("cluster.id=a\\=b\\:c \\#d\\!e\\\\f\n"),
            std::string::npos);
  auto out = read_meta_properties(file);
  ASSERT_TRUE(out.ok()) << out.error().message();
  ASSERT_TRUE(out->has_value());
  EXPECT_EQ(**out, meta);
  EXPECT_EQ(files(), std::vector<std::string>{kMetaPropertiesFile});
}

TEST_F(CheckpointTest, MetaPropertiesV0AndV1) {
  // Java 17 writes the same lines in hash order; a ZooKeeper-era file is v0 with broker.id.
  auto v1 = parse_meta_properties(
      "#\n#Wed Jun 19 12:02:44 UTC 2024\nnode.id=1\ndirectory.id=4Dp9Ywe5Rm2Ap9tI5GG_Bw\n"
      "version=1\ncluster.id=4L6g3nShT-eMCtK--X86sw\n",
      "meta.properties");
  ASSERT_TRUE(v1.ok()) << v1.error().message();
  EXPECT_EQ(v1->version, 1);
  EXPECT_EQ(v1->node_id, NodeId(1));
  EXPECT_EQ(v1->cluster_id, "4L6g3nShT-eMCtK--X86sw");
  EXPECT_EQ(v1->directory_id, "4Dp9Ywe5Rm2Ap9tI5GG_Bw");

  auto v0 = parse_meta_properties(
      "#\n#Tue Mar 12 10:00:00 UTC 2024\nbroker.id=3\nversion=0\n"
      "cluster.id=abc\nnode.id=99\n",
      "meta.properties");
  ASSERT_TRUE(v0.ok()) << v0.error().message();
  EXPECT_EQ(v0->version, 0);
  EXPECT_EQ(v0->node_id, NodeId(3));  // v0 reads broker.id; node.id is not a v0 key
  EXPECT_EQ(v0->cluster_id, "abc");

  auto bare = parse_meta_properties("broker.id=0\n", "meta.properties");  // no version: v0
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->version, 0);
  EXPECT_FALSE(bare->cluster_id.has_value());

  MetaProperties meta_v0;
  meta_v0.version = 0;
  meta_v0.node_id = NodeId(3);
  meta_v0.cluster_id = "abc";
  auto text = encode_meta_properties(meta_v0, kFixedTime);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "#\n#Fri Oct 25 03:33:01 UTC 2024\nbroker.id=3\ncluster.id=abc\nversion=0\n");
}

TEST_F(CheckpointTest, MetaPropertiesJavaGrammar) {
  auto meta = parse_meta_properties(
      "! a bang comment\r\n"
      "   # an indented comment\r\n"
      "\r\n"
      "version : 1\r\n"
      "node.id   \\u0034\\\n"
      "          2\r"
      "cluster.id=\\ lead\\ttab\n"
      "unknown.key ignored\n"
      "node.id=43\n",  // a later duplicate wins
      "meta.properties");
  ASSERT_TRUE(meta.ok()) << meta.error().message();
  EXPECT_EQ(meta->node_id, NodeId(43));
  EXPECT_EQ(meta->cluster_id, " lead\ttab");
  auto joined = parse_meta_properties("version=1\ncluster.id=c\nnode.id=\\u0034\\\n    2\n", "m");
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(joined->node_id, NodeId(42));
}

TEST_F(CheckpointTest, MetaPropertiesCorrupt) {
  for (const char* text :
       {"version=2\ncluster.id=c\nnode.id=1\n", "version=one\n",
        "version=1\ncluster.id=c\n",  // no node.id
        "version=1\nnode.id=1\n",     // no cluster.id
        "version=1\ncluster.id=c\nnode.id=1x\n", "version=0\nbroker.id=99999999999\n",
        "version=1\ncluster.id=c\nnode.id=1\ndirectory.id=short\n",
        "version=1\ncluster.id=c\\u00zz\nnode.id=1\n", "version=1\ncluster.id=c\\u00\n"}) {
    auto r = parse_meta_properties(text, "meta.properties");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code, StorageErrc::kCorruptCheckpoint);
  }
}

TEST_F(CheckpointTest, MetaPropertiesMissingAndInvalidWrite) {
  auto missing = read_meta_properties(path(kMetaPropertiesFile));
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  MetaProperties no_cluster;
  no_cluster.node_id = NodeId(1);
  EXPECT_FALSE(write_meta_properties(path(kMetaPropertiesFile), no_cluster).ok());
  MetaProperties bad_dir = no_cluster;
  bad_dir.cluster_id = "c";
  bad_dir.directory_id = "not a uuid";
  EXPECT_FALSE(write_meta_properties(path(kMetaPropertiesFile), bad_dir).ok());
  EXPECT_TRUE(files().empty());
}

// ---- .kafka_cleanshutdown

TEST_F(CheckpointTest, CleanShutdownMarker) {
  ASSERT_TRUE(write_clean_shutdown_marker(dir_, 42).ok());
  EXPECT_EQ(get(kCleanShutdownFile), "{\"version\":0,\"brokerEpoch\":42}");
  auto peek = read_clean_shutdown_marker(dir_);
  ASSERT_TRUE(peek.ok());
  ASSERT_TRUE(peek->has_value());
  EXPECT_EQ((*peek)->broker_epoch, 42);
  auto first = consume_clean_shutdown_marker(dir_);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->broker_epoch, 42);
  EXPECT_TRUE(files().empty());
  auto second = consume_clean_shutdown_marker(dir_);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->has_value());
}

TEST_F(CheckpointTest, CleanShutdownMarkerFromOldKafkaIsEmpty) {
  put(kCleanShutdownFile, "");  // Kafka <= 3.6
  auto marker = consume_clean_shutdown_marker(dir_);
  ASSERT_TRUE(marker.ok());
  ASSERT_TRUE(marker->has_value());
  EXPECT_FALSE((*marker)->broker_epoch.has_value());
  EXPECT_TRUE(files().empty());
}

TEST_F(CheckpointTest, CleanShutdownMarkerOversizedStillCounts) {
  put(kCleanShutdownFile, std::string(kCleanShutdownFileBytesMax + 1, ' '));
  auto marker = consume_clean_shutdown_marker(dir_);
  ASSERT_TRUE(marker.ok());
  ASSERT_TRUE(marker->has_value());
  EXPECT_FALSE((*marker)->broker_epoch.has_value());
  EXPECT_TRUE(files().empty());
}

TEST_F(CheckpointTest, CleanShutdownBrokerEpochParse) {
  EXPECT_EQ(parse_clean_shutdown_broker_epoch("{\"version\":0,\"brokerEpoch\":10,\"unknown\":123}"),
            10);
  EXPECT_EQ(
      parse_clean_shutdown_broker_epoch(" { \"a\" : {\"b\":[1, 2.5e3, {\"c\":\"x\\\"y\"}, []]},"
                                        " \"brokerEpoch\" : -1 }\n"),
      -1);
  EXPECT_EQ(parse_clean_shutdown_broker_epoch("{\"brokerEpoch\":9223372036854775807}"),
            9223372036854775807);
  for (const char* text :
       {"", "not json", "{}", "{\"version\":0}", "{\"brokerEpoch\":null}",
        "{\"brokerEpoch\":\"10\"}", "{\"brokerEpoch\":1.5}", "{\"brokerEpoch\":10",
        "{\"brokerEpoch\":10} trailing", "{\"brokerEpoch\":99999999999999999999}", "[10]"}) {
    EXPECT_FALSE(parse_clean_shutdown_broker_epoch(text).has_value()) << text;
  }
  // Deep nesting is refused by a bound, not by the stack.
  const std::string deep =
      "{\"x\":" + std::string(10000, '[') + std::string(10000, ']') + ",\"brokerEpoch\":1}";
  EXPECT_FALSE(parse_clean_shutdown_broker_epoch(deep).has_value());
}

TEST_F(CheckpointTest, TopicNames) {
  EXPECT_TRUE(valid_topic_name("__consumer_offsets"));
  EXPECT_TRUE(valid_topic_name("a.b-c_D9"));
  EXPECT_TRUE(valid_topic_name(std::string(249, 'x')));
  EXPECT_FALSE(valid_topic_name(std::string(250, 'x')));
  EXPECT_FALSE(valid_topic_name(""));
  EXPECT_FALSE(valid_topic_name("."));
  EXPECT_FALSE(valid_topic_name(".."));
  EXPECT_FALSE(valid_topic_name("a b"));
  EXPECT_FALSE(valid_topic_name("a/b"));
}

}  // namespace
}  // namespace strata::storage

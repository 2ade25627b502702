// The .txnindex codec and TxnIndex: golden bytes, named corruption cases, order, search,
// truncation, rename and removal.
#include "storage/txn_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "storage/test_util.h"

namespace strata::storage {
namespace {

using testing::TempDir;

AbortedTxn txn(int64_t pid, int64_t first, int64_t last, int64_t lso) {
  return AbortedTxn{ProducerId(pid), Offset(first), Offset(last), Offset(lso)};
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<uint8_t> file_bytes(const std::vector<AbortedTxn>& entries) {
  std::vector<uint8_t> out;
  for (const AbortedTxn& t : entries) {
    const auto e = encode_aborted_txn(t);
    out.insert(out.end(), e.begin(), e.end());
  }
  return out;
}

std::unique_ptr<TxnIndex> open_index(const std::string& path, int64_t base = 0) {
  auto index = TxnIndex::open(path, Offset(base), 1 << 20);
  EXPECT_TRUE(index.ok());
  return index.ok() ? std::move(*index) : nullptr;
}

TEST(TxnIndexCodec, GoldenBytes) {
  // Kafka's AbortedTxn: version 0, producerId 7, firstOffset 0x0102, lastOffset 0x0203,
  // lastStableOffset 0x0304, all big-endian.
  const std::array<uint8_t, kAbortedTxnSize> want{
      0, 0,                                  // version
      0, 0, 0, 0, 0, 0, 0, 7,                // producerId
      0, 0, 0, 0, 0, 0, 1, 2,                // firstOffset
      0, 0, 0, 0, 0, 0, 2, 3,                // lastOffset
      0, 0, 0, 0, 0, 0, 3, 4};               // lastStableOffset
  const AbortedTxn t = txn(7, 0x0102, 0x0203, 0x0304);
  EXPECT_EQ(encode_aborted_txn(t), want);
  auto back = decode_aborted_txn(want);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, t);
}

TEST(TxnIndexCodec, WrongSizeIsAnError) {
  const auto bytes = encode_aborted_txn(txn(1, 2, 3, 4));
  EXPECT_FALSE(decode_aborted_txn(Bytes(bytes).first(33)).ok());
  std::vector<uint8_t> longer(bytes.begin(), bytes.end());
  longer.push_back(0);
  EXPECT_FALSE(decode_aborted_txn(longer).ok());
}

TEST(TxnIndexCodec, UnknownVersionIsAnError) {
  auto bytes = encode_aborted_txn(txn(1, 2, 3, 4));
  bytes[1] = 1;
  auto r = decode_aborted_txn(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kCorruptIndex);
}

TEST(TxnIndexFile, ReadsAWholeFile) {
  TempDir dir;
  const std::vector<AbortedTxn> entries{txn(1, 0, 3, 4), txn(2, 1, 5, 6)};
  write_file(dir / "a.txnindex", file_bytes(entries));
  auto r = read_txn_index_file(dir / "a.txnindex");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(*r, entries);
  write_file(dir / "empty.txnindex", {});
  auto empty = read_txn_index_file(dir / "empty.txnindex");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(TxnIndexFile, PartialEntryNamesItsPosition) {
  TempDir dir;
  auto bytes = file_bytes({txn(1, 0, 3, 4), txn(2, 1, 5, 6)});
  bytes.resize(bytes.size() - 10);
  write_file(dir / "a.txnindex", bytes);
  auto r = read_txn_index_file(dir / "a.txnindex");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kCorruptIndex);
  EXPECT_NE(r.error().message().find("byte 34"), std::string::npos) << r.error().message();
}

TEST(TxnIndexFile, BadVersionNamesItsPosition) {
  TempDir dir;
  auto bytes = file_bytes({txn(1, 0, 3, 4), txn(2, 1, 5, 6), txn(3, 6, 7, 8)});
  bytes[2 * kAbortedTxnSize] = 0x7f;
  write_file(dir / "a.txnindex", bytes);
  auto r = read_txn_index_file(dir / "a.txnindex");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("byte 68"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("version"), std::string::npos);
}

TEST(TxnIndexFile, MissingFileIsAnIoError) {
  TempDir dir;
  auto r = read_txn_index_file(dir / "none.txnindex");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kIo);
}

TEST(TxnIndex, FileIsCreatedOnFirstAppendOnly) {
  TempDir dir;
  const std::string path = dir / "00000000000000000000.txnindex";
  auto index = open_index(path);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(index->file(), nullptr);
  ASSERT_TRUE(index->append(txn(1, 0, 3, 4)).ok());
  ASSERT_TRUE(index->append(txn(2, 1, 5, 6)).ok());
  EXPECT_EQ(std::filesystem::file_size(path), 2 * kAbortedTxnSize);
  auto reopened = open_index(path);
  EXPECT_EQ(reopened->entries(), index->entries());
  EXPECT_TRUE(reopened->sanity_check(Offset(6)).ok());
}

TEST(TxnIndex, AppendRequiresIncreasingLastOffsets) {
  TempDir dir;
  auto index = open_index(dir / "a.txnindex");
  ASSERT_TRUE(index->append(txn(1, 0, 5, 6)).ok());
  auto same = index->append(txn(2, 1, 5, 6));
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.error().code, StorageErrc::kIndexOrder);
  EXPECT_FALSE(index->append(txn(2, 1, 4, 6)).ok());
  EXPECT_EQ(index->entries().size(), 1u);
}

TEST(TxnIndex, CollectMatchesKafkasRanges) {
  TempDir dir;
  auto index = open_index(dir / "a.txnindex");
  // (first, last, lso): [0..4] lso 5, [2..10] lso 11, [12..20] lso 15, [15..30] lso 31.
  for (const AbortedTxn& t : {txn(1, 0, 4, 5), txn(2, 2, 10, 11), txn(3, 12, 20, 15),
                              txn(4, 15, 30, 31)}) {
    ASSERT_TRUE(index->append(t).ok());
  }
  std::vector<AbortedTxn> out;
  EXPECT_FALSE(index->collect(Offset(0), Offset(100), out));
  EXPECT_EQ(out.size(), 4u);
  out.clear();
  // last >= 5 and first < 12, complete once an lso reaches 12 (the third entry's 15).
  EXPECT_TRUE(index->collect(Offset(5), Offset(12), out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].producer_id, ProducerId(2));
  out.clear();
  EXPECT_TRUE(index->collect(Offset(11), Offset(16), out));
  ASSERT_EQ(out.size(), 2u);  // [12..20] and [15..30]; the latter's lso completes the search
  EXPECT_EQ(out[0].producer_id, ProducerId(3));
  out.clear();
  EXPECT_FALSE(index->collect(Offset(31), Offset(40), out));
  EXPECT_TRUE(out.empty());
}

TEST(TxnIndex, SanityCheckNamesEachCorruption) {
  TempDir dir;
  const std::string path = dir / "a.txnindex";
  auto check = [&](const std::vector<uint8_t>& bytes, int64_t base, int64_t end) {
    write_file(path, bytes);
    auto index = open_index(path, base);
    return index->sanity_check(Offset(end));
  };
  EXPECT_TRUE(check(file_bytes({txn(1, 10, 12, 13)}), 10, 20).ok());
  EXPECT_FALSE(check(file_bytes({txn(1, 5, 8, 9)}), 10, 20).ok());      // before the base
  EXPECT_FALSE(check(file_bytes({txn(1, 10, 20, 21)}), 10, 20).ok());   // past the end
  EXPECT_FALSE(check(file_bytes({txn(1, 14, 12, 13)}), 10, 20).ok());   // first after last
  EXPECT_FALSE(check(file_bytes({txn(1, 10, 15, 16), txn(2, 11, 12, 13)}), 10, 20).ok());
  auto partial = file_bytes({txn(1, 10, 12, 13)});
  partial.pop_back();
  auto r = check(partial, 10, 20);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StorageErrc::kCorruptIndex);
  // A file larger than its segment is not even read.
  write_file(path, file_bytes({txn(1, 10, 12, 13), txn(2, 10, 14, 15)}));
  auto big = TxnIndex::open(path, Offset(10), 40);
  ASSERT_TRUE(big.ok());
  EXPECT_FALSE((*big)->sanity_check(Offset(20)).ok());
}

TEST(TxnIndex, TruncateToDropsEntriesEndingAtOrAfterTheOffset) {
  TempDir dir;
  const std::string path = dir / "a.txnindex";
  auto index = open_index(path);
  for (const AbortedTxn& t : {txn(1, 0, 4, 5), txn(2, 2, 10, 11), txn(3, 12, 20, 21)}) {
    ASSERT_TRUE(index->append(t).ok());
  }
  ASSERT_TRUE(index->truncate_to(Offset(10)).ok());
  EXPECT_EQ(index->entries().size(), 1u);
  EXPECT_EQ(std::filesystem::file_size(path), kAbortedTxnSize);
  ASSERT_TRUE(index->append(txn(4, 5, 6, 7)).ok());  // order restarts after the kept entry
  ASSERT_TRUE(index->reset().ok());
  EXPECT_TRUE(index->entries().empty());
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
}

TEST(TxnIndex, RenameAndRemoveFollowTheFile) {
  TempDir dir;
  const std::string path = dir / "a.txnindex";
  auto index = open_index(path);
  ASSERT_TRUE(index->rename(path + ".deleted").ok());  // no file yet: only the name changes
  EXPECT_EQ(index->path(), path + ".deleted");
  auto other = open_index(dir / "b.txnindex.cleaned");
  ASSERT_TRUE(other->append(txn(1, 0, 4, 5)).ok());
  ASSERT_TRUE(other->rename(dir / "b.txnindex.swap").ok());  // a cleaned segment's steps
  ASSERT_TRUE(other->rename(dir / "b.txnindex").ok());
  ASSERT_TRUE(other->rename(dir / "b.txnindex.deleted").ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "b.txnindex"));
  EXPECT_FALSE(std::filesystem::exists(dir / "b.txnindex.swap"));
  EXPECT_TRUE(std::filesystem::exists(dir / "b.txnindex.deleted"));
  other->remove_file();
  EXPECT_FALSE(std::filesystem::exists(dir / "b.txnindex.deleted"));
}

TEST(TxnIndex, CreateRemovesALeftover) {
  TempDir dir;
  const std::string path = dir / "a.txnindex";
  write_file(path, file_bytes({txn(1, 0, 4, 5)}));
  auto index = TxnIndex::create(path, Offset(0));
  ASSERT_TRUE(index.ok());
  EXPECT_TRUE((*index)->entries().empty());
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace strata::storage

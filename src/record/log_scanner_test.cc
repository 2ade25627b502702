#include "record/log_scanner.h"

#include <gtest/gtest.h>

#include "record/batch_builder.h"
#include "record/stamp.h"

namespace strata::record {
namespace {

std::vector<uint8_t> segment_of(int batches) {
  std::vector<uint8_t> seg;
  for (int i = 0; i < batches; ++i) {
    BatchBuilder b({});
    b.append(0, std::nullopt, as_bytes("v"));
    b.append(1, std::nullopt, as_bytes("w"));
    auto bytes = std::move(b.finish()).value();
    stamp_batch(bytes, Offset(2 * i), LeaderEpoch(0));
    seg.insert(seg.end(), bytes.begin(), bytes.end());
  }
  return seg;
}

TEST(LogScanner, SplitsWholeEntries) {
  const auto seg = segment_of(4);
  LogScanner s(seg);
  int n = 0;
  while (auto e = s.next()) {
    EXPECT_EQ(e->offset, 2 * n);
    EXPECT_EQ(e->magic, 2);
    ++n;
  }
  EXPECT_EQ(n, 4);
  EXPECT_EQ(s.stop(), ScanStop::kEnd);
  EXPECT_EQ(s.tail_bytes(), 0u);
}

TEST(LogScanner, TruncatedTrailingEntryIsTheTail) {
  const auto seg = segment_of(3);
  const size_t one = seg.size() / 3;
  for (size_t cut = 1; cut < one; ++cut) {
    std::vector<uint8_t> torn(seg.begin(), seg.end() - long(cut));
    LogScanner s(torn);
    int n = 0;
    while (s.next()) ++n;
    EXPECT_EQ(n, 2);
    EXPECT_EQ(s.stop(), ScanStop::kPartialEntry);
    EXPECT_EQ(s.valid_bytes(), 2 * one);
    EXPECT_EQ(s.tail_bytes(), one - cut);
  }
}

TEST(LogScanner, BadSize) {
  auto seg = segment_of(2);
  store_be32(&seg[seg.size() / 2 + 8], 3);
  LogScanner s(seg);
  EXPECT_TRUE(s.next());
  EXPECT_FALSE(s.next());
  EXPECT_EQ(s.stop(), ScanStop::kBadSize);
  EXPECT_EQ(s.tail_bytes(), seg.size() / 2);
}

TEST(LogScanner, EntryOverLimit) {
  const auto seg = segment_of(1);
  LogScanner s(seg, seg.size() - 1);
  EXPECT_FALSE(s.next());
  EXPECT_EQ(s.stop(), ScanStop::kBadSize);
}

TEST(LogScanner, BadMagic) {
  auto seg = segment_of(1);
  seg[16] = 9;
  LogScanner s(seg);
  EXPECT_FALSE(s.next());
  EXPECT_EQ(s.stop(), ScanStop::kBadMagic);
}

TEST(LogScanner, ZeroFilledTail) {
  // A preallocated or crashed file can end in zeros: size 0 stops the scan there.
  auto seg = segment_of(1);
  const size_t valid = seg.size();
  seg.resize(seg.size() + 100, 0);
  LogScanner s(seg);
  EXPECT_TRUE(s.next());
  EXPECT_FALSE(s.next());
  EXPECT_EQ(s.valid_bytes(), valid);
  EXPECT_EQ(s.tail_bytes(), 100u);
}

}  // namespace
}  // namespace strata::record

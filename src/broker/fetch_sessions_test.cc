// FetchSessions against Kafka's FetchSessionTest expectations: which requests open,
// continue, close or fail a session, what an incremental answer lists, and eviction.
#include "broker/fetch_sessions.h"

#include <gtest/gtest.h>

#include "broker/errors.h"

namespace strata::broker {
namespace {

using Kind = FetchSessions::Kind;

FetchWant want(const std::string& topic, int32_t partition, int64_t offset = 0) {
  FetchWant w;
  w.topic = topic;
  w.partition = partition;
  w.fetch_offset = offset;
  w.max_bytes = 1 << 20;
  return w;
}

FetchAnswer answer(int64_t hw, uint64_t bytes = 0, int16_t error = 0) {
  return FetchAnswer{error, hw, 0, bytes};
}

// Opens a session over `parts` (answered with high watermark 10 each); returns its id.
int32_t open_session(FetchSessions& s, std::vector<FetchWant> parts, int64_t now = 0,
                     bool privileged = false) {
  auto ctx = s.open(12, 0, 0, privileged, parts, {}, now);
  EXPECT_EQ(ctx.kind, Kind::kFull);
  std::vector<FetchAnswer> answers(ctx.partitions.size(), answer(10));
  return s.close(ctx, answers, now).session_id;
}

TEST(FetchSessions, OldVersionsAndFinalEpochHaveNoSession) {
  FetchSessions s(10);
  auto old = s.open(6, 0, -1, false, {want("a", 0)}, {}, 0);
  EXPECT_EQ(old.kind, Kind::kSessionless);
  EXPECT_EQ(s.close(old, {answer(1)}, 0).session_id, 0);
  auto final_epoch = s.open(12, 0, -1, false, {want("a", 0)}, {}, 0);
  EXPECT_EQ(final_epoch.kind, Kind::kSessionless);
  auto out = s.close(final_epoch, {answer(1)}, 0);
  EXPECT_EQ(out.session_id, 0);
  EXPECT_EQ(out.included.size(), 1u);
  EXPECT_EQ(s.size(), 0u);
}

TEST(FetchSessions, IncrementalListsOnlyChangedPartitions) {
  FetchSessions s(10);
  int32_t id = open_session(s, {want("a", 0), want("a", 1), want("b", 0)});
  ASSERT_NE(id, 0);
  EXPECT_EQ(s.cached_partitions(), 3u);

  // Epoch 1, nothing listed: all three are read with their cached offsets.
  auto ctx = s.open(12, id, 1, false, {}, {}, 1);
  ASSERT_EQ(ctx.kind, Kind::kIncremental);
  ASSERT_EQ(ctx.partitions.size(), 3u);
  EXPECT_EQ(ctx.partitions[1].topic, "a");
  EXPECT_EQ(ctx.partitions[1].partition, 1);
  // a-0 unchanged, a-1 has records, b-0's high watermark moved.
  auto out = s.close(ctx, {answer(10), answer(10, 500), answer(11)}, 1);
  EXPECT_EQ(out.session_id, id);
  EXPECT_EQ(out.error, 0);
  EXPECT_EQ(out.included, (std::vector<size_t>{1, 2}));

  // a-1 returned records: it moved to the end. The fetcher advances a-1 only.
  ctx = s.open(12, id, 2, false, {want("a", 1, 7)}, {}, 2);
  ASSERT_EQ(ctx.kind, Kind::kIncremental);
  ASSERT_EQ(ctx.partitions.size(), 3u);
  EXPECT_EQ(ctx.partitions[0].topic, "a");
  EXPECT_EQ(ctx.partitions[1].topic, "b");
  EXPECT_EQ(ctx.partitions[2].partition, 1);
  EXPECT_EQ(ctx.partitions[2].fetch_offset, 7);
  out = s.close(ctx, {answer(10), answer(11), answer(10)}, 2);
  EXPECT_TRUE(out.included.empty());

  // An error is always answered, and the partition again once it clears.
  ctx = s.open(12, id, 3, false, {}, {}, 3);
  out = s.close(ctx, {answer(-1, 0, 3), answer(11), answer(10)}, 3);
  EXPECT_EQ(out.included, (std::vector<size_t>{0}));
  ctx = s.open(12, id, 4, false, {}, {}, 4);
  out = s.close(ctx, {answer(10), answer(11), answer(10)}, 4);
  EXPECT_EQ(out.included, (std::vector<size_t>{0}));
}

TEST(FetchSessions, ForgottenAndAddedPartitions) {
  FetchSessions s(10);
  int32_t id = open_session(s, {want("a", 0), want("a", 1)});
  auto ctx = s.open(12, id, 1, false, {want("c", 3)}, {want("a", 0)}, 1);
  ASSERT_EQ(ctx.kind, Kind::kIncremental);
  ASSERT_EQ(ctx.partitions.size(), 2u);
  EXPECT_EQ(ctx.partitions[0].partition, 1);
  EXPECT_EQ(ctx.partitions[1].topic, "c");
  // A new partition has no answered high watermark: it is listed.
  auto out = s.close(ctx, {answer(10), answer(0)}, 1);
  EXPECT_EQ(out.included, (std::vector<size_t>{1}));
  // Forgetting every partition ends the session; as in Kafka, the fetch still reads
  // what it listed (here c-3, listed and forgotten at once).
  ctx = s.open(12, id, 2, false, {want("c", 3, 5)}, {want("a", 1), want("c", 3)}, 2);
  EXPECT_EQ(ctx.kind, Kind::kSessionless);
  ASSERT_EQ(ctx.partitions.size(), 1u);
  EXPECT_EQ(ctx.partitions[0].fetch_offset, 5);
  EXPECT_EQ(s.close(ctx, {answer(1)}, 2).session_id, 0);
  EXPECT_EQ(s.size(), 0u);
}

TEST(FetchSessions, SessionErrors) {
  FetchSessions s(10);
  auto unknown = s.open(12, 12345, 1, false, {}, {}, 0);
  EXPECT_EQ(unknown.kind, Kind::kError);
  auto out = s.close(unknown, {}, 0);
  EXPECT_EQ(out.error, kafka_error::kFetchSessionIdNotFound);
  EXPECT_EQ(out.session_id, 0);

  int32_t id = open_session(s, {want("a", 0)});
  EXPECT_EQ(s.close(s.open(12, id, 5, false, {}, {}, 0), {}, 0).error,
            kafka_error::kInvalidFetchSessionEpoch);
  EXPECT_EQ(s.close(s.open(13, id, 1, false, {}, {}, 0), {}, 0).error,
            kafka_error::kFetchSessionTopicIdError);
  // The failed requests did not use up epoch 1.
  auto ctx = s.open(12, id, 1, false, {}, {}, 0);
  EXPECT_EQ(ctx.kind, Kind::kIncremental);
  // A second request on the same epoch while the first is in flight loses.
  auto racer = s.open(12, id, 1, false, {}, {}, 0);
  EXPECT_EQ(racer.kind, Kind::kError);
  auto next = s.open(12, id, 2, false, {}, {}, 0);
  ASSERT_EQ(next.kind, Kind::kIncremental);
  EXPECT_EQ(s.close(ctx, {answer(10)}, 0).error, kafka_error::kInvalidFetchSessionEpoch);
  EXPECT_EQ(s.close(next, {answer(10)}, 0).error, 0);
}

TEST(FetchSessions, FullFetchReplacesOrClosesTheSession) {
  FetchSessions s(10);
  int32_t id = open_session(s, {want("a", 0)});
  int32_t id2 = open_session(s, {want("a", 0)});
  EXPECT_NE(id, id2);
  EXPECT_EQ(s.size(), 2u);
  auto ctx = s.open(12, id, 0, false, {want("a", 0)}, {}, 0);  // replaces id
  int32_t id3 = s.close(ctx, {answer(1)}, 0).session_id;
  EXPECT_NE(id3, 0);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.open(12, id, 1, false, {}, {}, 0).error, kafka_error::kFetchSessionIdNotFound);
  auto close = s.open(12, id3, -1, false, {want("a", 0)}, {}, 0);  // closes id3
  EXPECT_EQ(close.kind, Kind::kSessionless);
  EXPECT_EQ(s.size(), 1u);
}

TEST(FetchSessions, TopicIdSessionsKeyOnIds) {
  FetchSessions s(10);
  FetchWant w = want("", 0);
  w.topic_id.bytes[0] = 7;
  auto ctx = s.open(13, 0, 0, false, {w}, {}, 0);
  int32_t id = s.close(ctx, {answer(1)}, 0).session_id;
  FetchWant forget;
  forget.topic_id = w.topic_id;
  ctx = s.open(13, id, 1, false, {}, {forget}, 0);
  EXPECT_EQ(ctx.kind, Kind::kSessionless);
  EXPECT_EQ(s.close(ctx, {}, 0).session_id, 0);
  EXPECT_EQ(s.open(12, 0, 0, false, {}, {}, 0).kind, Kind::kFull);
}

TEST(FetchSessions, EvictionFollowsKafkasRules) {
  const int64_t evict = FetchSessions::kEvictionMs;
  FetchSessions s(2);
  int32_t a = open_session(s, {want("a", 0), want("a", 1)}, 0);
  int32_t b = open_session(s, {want("b", 0)}, 10);
  // Full and both young: a larger consumer session cannot evict.
  EXPECT_EQ(open_session(s, {want("c", 0), want("c", 1), want("c", 2)}, 20), 0);
  // A follower evicts the smallest consumer session even when it is young.
  int32_t f = open_session(s, {want("f", 0)}, 30, true);
  EXPECT_NE(f, 0);
  EXPECT_EQ(s.open(12, b, 1, false, {}, {}, 31).kind, Kind::kError);
  // Past eviction_ms since creation, a consumer session with more partitions evicts
  // a smaller consumer one, never a follower's ...
  auto keep = s.open(12, a, 1, false, {}, {}, evict + 40);  // a stays recently used
  s.close(keep, {answer(10), answer(10)}, evict + 40);
  auto keep_f = s.open(12, f, 1, true, {}, {}, evict + 40);
  s.close(keep_f, {answer(10)}, evict + 40);
  EXPECT_EQ(open_session(s, {want("d", 0)}, evict + 50), 0);  // 1 partition: not more than a's 2
  int32_t d = open_session(s, {want("d", 0), want("d", 1), want("d", 2)}, evict + 60);
  EXPECT_NE(d, 0);
  EXPECT_EQ(s.open(12, a, 2, false, {}, {}, evict + 61).kind, Kind::kError);
  // ... and any session idle for eviction_ms goes first.
  int32_t e = open_session(s, {want("e", 0)}, 3 * evict);
  EXPECT_NE(e, 0);
  EXPECT_EQ(s.size(), 2u);
}

TEST(FetchSessions, SessionGoneMidFetchAnswersEverythingWithoutASession) {
  FetchSessions s(10);
  int32_t id = open_session(s, {want("a", 0), want("a", 1)});
  auto ctx = s.open(12, id, 1, false, {}, {}, 1);
  ASSERT_EQ(ctx.kind, Kind::kIncremental);
  // While it long-polls, the client's full fetch replaces the session.
  s.close(s.open(12, id, 0, false, {want("a", 0)}, {}, 2), {answer(10)}, 2);
  auto out = s.close(ctx, {answer(10), answer(10, 100)}, 3);
  EXPECT_EQ(out.error, 0);
  EXPECT_EQ(out.session_id, 0);
  EXPECT_EQ(out.included, (std::vector<size_t>{0, 1}));
}

TEST(FetchSessions, ZeroSlotsMeansNoSessions) {
  FetchSessions s(0);
  EXPECT_EQ(open_session(s, {want("a", 0)}), 0);
}

}  // namespace
}  // namespace strata::broker

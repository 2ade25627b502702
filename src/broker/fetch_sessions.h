// Incremental fetch sessions (KIP-227), with the rules of Kafka's FetchManager and
// FetchSessionCache. A fetcher that sends session id 0 and epoch 0 asks for a session;
// the broker caches its partitions (fetch offset, max bytes, and the high watermark and
// log start offset it last answered) and returns a session id. Later requests carry
// (id, epoch 1, 2, ...) and list only the partitions whose fetch parameters changed,
// plus the partitions to forget; the answer lists only the partitions with records, a
// changed high watermark or log start offset, or an error. Partitions that returned
// records move to the end of the session, so every partition gets its turn at the
// response's byte limits.
//
// Errors (top level, no partitions): an unknown session id FETCH_SESSION_ID_NOT_FOUND;
// an epoch other than the session's next INVALID_FETCH_SESSION_EPOCH (also when two
// requests race on one epoch); a session created with topic ids (v13+) continued by
// names (v7-12), or the reverse, FETCH_SESSION_TOPIC_ID_ERROR. Epoch -1 closes the
// session and fetches without one; epoch 0 with a session id replaces it.
//
// The cache holds at most max.incremental.fetch.session.cache.slots sessions. When it is
// full a new session may evict the least recently used one if that was idle for
// 2 minutes (Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS), else the smallest
// session older than that if the new one has more partitions; a follower's session
// outranks a consumer's. No session can be created otherwise (session id 0 answered:
// full fetches, which clients accept).
//
// Thread-safe: fetches on every shard share one cache behind one mutex; the work done
// under it is proportional to the partitions of one request or session, and to the
// number of sessions when a full cache decides whether to evict (at most
// max.incremental.fetch.session.cache.slots).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "protocol/types.h"

namespace strata::broker {

// One partition of a fetch: what the fetcher asked for.
struct FetchWant {
  std::string topic;        // the name (v0-12), or resolved from topic_id (v13+)
  protocol::Uuid topic_id;  // v13+
  int32_t partition = 0;
  int64_t fetch_offset = 0;
  int32_t max_bytes = 0;
  int32_t current_leader_epoch = -1;
  int64_t log_start_offset = -1;  // the fetcher's (followers)
  int32_t last_fetched_epoch = -1;
};

// What the broker answered for one partition, as far as sessions care.
struct FetchAnswer {
  int16_t error = 0;
  int64_t high_watermark = -1;
  int64_t log_start_offset = -1;
  uint64_t records_bytes = 0;
};

class FetchSessions {
 public:
  static constexpr int64_t kEvictionMs = 120000;

  enum class Kind { kSessionless, kFull, kIncremental, kError };

  // A session's entry for one partition.
  struct Cached {
    FetchWant want;
    int64_t high_watermark = -1;  // last answered; -1 after an error, so it is re-sent
    int64_t log_start_offset = -1;
  };

  // What one request fetches; made by open(), finished by close().
  struct Context {
    Kind kind = Kind::kSessionless;
    int16_t error = 0;
    bool privileged = false;      // a follower's fetch
    bool uses_topic_ids = false;  // v13+
    std::vector<FetchWant> partitions;  // to read, in this order
    int32_t session_id = 0;             // kIncremental: the session
    int32_t expected_epoch = 0;         // kIncremental: the session's epoch after open()
    // kIncremental: the session's entries for `partitions`, same order. Valid while the
    // session exists with expected_epoch: every change to its partitions bumps the epoch.
    std::vector<std::list<Cached>::iterator> cached;
  };
  struct Outcome {
    int16_t error = 0;
    int32_t session_id = 0;        // 0: no session
    std::vector<size_t> included;  // indexes into Context::partitions, in answer order
  };

  explicit FetchSessions(int32_t max_slots, int64_t eviction_ms = kEvictionMs);

  // Starts a fetch. `version` is the Fetch version (below 7 there are no sessions);
  // `wanted` the request's partitions, each once (key_of), `forgotten` its
  // forgotten_topics_data (only topic/topic_id and partition are used).
  Context open(int16_t version, int32_t session_id, int32_t epoch, bool privileged,
               std::vector<FetchWant> wanted, const std::vector<FetchWant>& forgotten,
               int64_t now_ms);
  // Ends it with the answers for ctx.partitions (same order): creates the session of a
  // full fetch, or picks and records what an incremental one must answer.
  Outcome close(const Context& ctx, const std::vector<FetchAnswer>& answers, int64_t now_ms);

  size_t size() const;
  size_t cached_partitions() const;

  // A partition's identity in a session: topic id and partition (v13+), else name and
  // partition.
  static std::string key_of(const FetchWant& w, bool uses_topic_ids);

 private:
  struct Session {
    int32_t id = 0;
    bool privileged = false;
    bool uses_topic_ids = false;
    int64_t creation_ms = 0;
    int64_t last_used_ms = 0;
    int32_t epoch = 1;
    std::list<Cached> parts;  // fetch order
    std::unordered_map<std::string, std::list<Cached>::iterator> index;
  };

  static void update(Session& s, std::vector<FetchWant>& wanted,
                     const std::vector<FetchWant>& forgotten);
  bool try_evict(bool privileged, size_t size, int64_t now_ms);
  int32_t new_session_id();
  void remove(int32_t id);

  const size_t max_slots_;
  const int64_t eviction_ms_;
  mutable std::mutex mu_;
  std::map<int32_t, std::unique_ptr<Session>> sessions_;
  std::mt19937 random_;
};

}  // namespace strata::broker

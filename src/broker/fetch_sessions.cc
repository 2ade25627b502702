#include "broker/fetch_sessions.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <tuple>

#include "broker/errors.h"

namespace strata::broker {

namespace {

constexpr int32_t kFinalEpoch = -1;
constexpr int32_t kInitialEpoch = 0;

// Kafka's FetchMetadata.nextEpoch: wraps to 1, never back to 0 (0 asks for a session).
int32_t next_epoch(int32_t epoch) {
  if (epoch < 0) return kFinalEpoch;
  return epoch == INT32_MAX ? 1 : epoch + 1;
}

}  // namespace

FetchSessions::FetchSessions(int32_t max_slots, int64_t eviction_ms)
    : max_slots_(size_t(std::max(max_slots, 0))),
      eviction_ms_(eviction_ms),
      random_(std::random_device{}()) {}

std::string FetchSessions::key_of(const FetchWant& w, bool uses_topic_ids) {
  std::string key;
  if (uses_topic_ids) {
    key.assign(reinterpret_cast<const char*>(w.topic_id.bytes.data()), w.topic_id.bytes.size());
  } else {
    key = w.topic;
    key.push_back('\0');  // topic names cannot hold NUL; ends the name
  }
  key.append(reinterpret_cast<const char*>(&w.partition), sizeof(w.partition));
  return key;
}

// Kafka's FetchSession.update: listed partitions are added or take the new fetch
// parameters (keeping their place and what was last answered); forgotten ones go.
void FetchSessions::update(Session& s, std::vector<FetchWant>& wanted,
                           const std::vector<FetchWant>& forgotten) {
  for (auto& w : wanted) {
    std::string key = key_of(w, s.uses_topic_ids);
    auto it = s.index.find(key);
    if (it == s.index.end()) {
      s.parts.push_back(Cached{std::move(w)});
      s.index.emplace(std::move(key), std::prev(s.parts.end()));
    } else {
      std::string name = std::move(it->second->want.topic);
      it->second->want = std::move(w);
      if (it->second->want.topic.empty()) it->second->want.topic = std::move(name);
    }
  }
  for (const auto& f : forgotten) {
    auto it = s.index.find(key_of(f, s.uses_topic_ids));
    if (it == s.index.end()) continue;
    s.parts.erase(it->second);
    s.index.erase(it);
  }
}

FetchSessions::Context FetchSessions::open(int16_t version, int32_t session_id, int32_t epoch,
                                           bool privileged, std::vector<FetchWant> wanted,
                                           const std::vector<FetchWant>& forgotten,
                                           int64_t now_ms) {
  Context ctx;
  ctx.privileged = privileged;
  ctx.uses_topic_ids = version >= 13;
  if (version < 7) {  // before KIP-227: (0, -1), no session
    ctx.partitions = std::move(wanted);
    return ctx;
  }
  std::lock_guard lock(mu_);
  if (epoch == kInitialEpoch || epoch == kFinalEpoch) {
    if (session_id != 0) remove(session_id);  // a full fetch closes the session it names
    ctx.kind = epoch == kFinalEpoch ? Kind::kSessionless : Kind::kFull;
    ctx.partitions = std::move(wanted);
    return ctx;
  }
  auto found = sessions_.find(session_id);
  if (found == sessions_.end()) {
    ctx.kind = Kind::kError;
    ctx.error = kafka_error::kFetchSessionIdNotFound;
    return ctx;
  }
  Session& s = *found->second;
  if (s.epoch != epoch) {
    ctx.kind = Kind::kError;
    ctx.error = kafka_error::kInvalidFetchSessionEpoch;
    return ctx;
  }
  if (s.uses_topic_ids != ctx.uses_topic_ids) {
    ctx.kind = Kind::kError;
    ctx.error = kafka_error::kFetchSessionTopicIdError;
    return ctx;
  }
  // Kafka reads the listed partitions when the session ends empty, even those the
  // same request forgot.
  std::vector<FetchWant> listed;
  if (!forgotten.empty()) listed = wanted;
  update(s, wanted, forgotten);
  if (s.parts.empty()) {  // nothing left: the session ends, this fetch is sessionless
    remove(session_id);
    ctx.kind = Kind::kSessionless;
    ctx.partitions = std::move(listed);
    return ctx;
  }
  s.last_used_ms = now_ms;
  s.epoch = next_epoch(s.epoch);
  ctx.kind = Kind::kIncremental;
  ctx.session_id = s.id;
  ctx.expected_epoch = s.epoch;
  ctx.partitions.reserve(s.parts.size());
  ctx.cached.reserve(s.parts.size());
  for (auto it = s.parts.begin(); it != s.parts.end(); ++it) {
    ctx.partitions.push_back(it->want);
    ctx.cached.push_back(it);
  }
  return ctx;
}

FetchSessions::Outcome FetchSessions::close(const Context& ctx,
                                            const std::vector<FetchAnswer>& answers,
                                            int64_t now_ms) {
  Outcome out;
  auto all = [&] {
    out.included.resize(answers.size());
    for (size_t i = 0; i < answers.size(); ++i) out.included[i] = i;
  };
  switch (ctx.kind) {
    case Kind::kSessionless:
      all();
      return out;
    case Kind::kError:
      out.error = ctx.error;
      return out;
    case Kind::kFull: {
      all();
      std::lock_guard lock(mu_);
      if (sessions_.size() >= max_slots_ &&
          !try_evict(ctx.privileged, ctx.partitions.size(), now_ms)) {
        return out;  // no room: session id 0
      }
      auto s = std::make_unique<Session>();
      s->id = new_session_id();
      s->privileged = ctx.privileged;
      s->uses_topic_ids = ctx.uses_topic_ids;
      s->creation_ms = s->last_used_ms = now_ms;
      s->epoch = next_epoch(kInitialEpoch);
      for (size_t i = 0; i < ctx.partitions.size(); ++i) {
        std::string key = key_of(ctx.partitions[i], ctx.uses_topic_ids);
        if (s->index.count(key)) continue;  // listed twice: the first place counts
        s->parts.push_back(Cached{ctx.partitions[i], answers[i].high_watermark,
                                  answers[i].log_start_offset});
        s->index.emplace(std::move(key), std::prev(s->parts.end()));
      }
      out.session_id = s->id;
      sessions_.emplace(s->id, std::move(s));
      return out;
    }
    case Kind::kIncremental:
      break;
  }
  std::lock_guard lock(mu_);
  out.session_id = ctx.session_id;
  auto found = sessions_.find(ctx.session_id);
  if (found == sessions_.end()) {
    // Evicted or replaced while this fetch ran: answer everything it read, as a
    // sessionless fetch (session id 0 tells the client its session is gone).
    all();
    out.session_id = 0;
    return out;
  }
  Session& s = *found->second;
  if (s.epoch != ctx.expected_epoch) {  // another request used this epoch meanwhile
    out.error = kafka_error::kInvalidFetchSessionEpoch;
    return out;
  }
  // Kafka's CachedPartition.maybeUpdateResponseData.
  // The epoch held, so no request changed the session's partitions since open().
  assert(answers.size() == ctx.cached.size());
  for (size_t i = 0; i < answers.size(); ++i) {
    const FetchAnswer& a = answers[i];
    Cached& c = *ctx.cached[i];
    bool respond = a.records_bytes > 0;
    if (c.high_watermark != a.high_watermark) {
      respond = true;
      c.high_watermark = a.high_watermark;
    }
    if (c.log_start_offset != a.log_start_offset) {
      respond = true;
      c.log_start_offset = a.log_start_offset;
    }
    if (a.error != 0) {
      respond = true;
      c.high_watermark = -1;  // re-sent once the error is gone
    }
    if (!respond) continue;
    out.included.push_back(i);
    if (a.records_bytes > 0) s.parts.splice(s.parts.end(), s.parts, ctx.cached[i]);
  }
  return out;
}

// Kafka's FetchSessionCacheShard.tryEvict.
bool FetchSessions::try_evict(bool privileged, size_t size, int64_t now_ms) {
  if (sessions_.empty()) return false;
  const Session* lru = nullptr;
  for (const auto& [id, s] : sessions_) {
    if (!lru || std::tie(s->last_used_ms, s->id) < std::tie(lru->last_used_ms, lru->id)) {
      lru = s.get();
    }
  }
  if (now_ms - lru->last_used_ms > eviction_ms_) {
    remove(lru->id);
    return true;
  }
  // Else the least valuable session past its first eviction_ms: (privileged, size, id)
  // smallest. A follower may also evict a younger consumer session.
  const Session* victim = nullptr;
  auto key = [](const Session& s) { return std::tuple(s.privileged, s.parts.size(), s.id); };
  for (const auto& [id, s] : sessions_) {
    const bool old = now_ms - s->creation_ms > eviction_ms_;
    const bool evictable = privileged ? (!s->privileged || old) : old;
    if (evictable && (!victim || key(*s) < key(*victim))) victim = s.get();
  }
  if (!victim || std::tuple(privileged, size, int32_t(0)) < key(*victim)) return false;
  remove(victim->id);
  return true;
}

int32_t FetchSessions::new_session_id() {
  std::uniform_int_distribution<int32_t> pick(1, INT32_MAX);
  int32_t id;
  do {
    id = pick(random_);
  } while (sessions_.count(id));
  return id;
}

void FetchSessions::remove(int32_t id) { sessions_.erase(id); }

size_t FetchSessions::size() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

size_t FetchSessions::cached_partitions() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [id, s] : sessions_) n += s->parts.size();
  return n;
}

}  // namespace strata::broker

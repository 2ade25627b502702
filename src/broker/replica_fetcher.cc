#include "broker/replica_fetcher.h"

#include <asio/post.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>
#include <future>
#include <optional>

#include "broker/broker.h"
#include "broker/errors.h"
#include "broker/leader_epochs.h"
#include "client/kafka_client.h"
#include "cluster/node.h"
#include "common/log_limit.h"
#include "common/thread_name.h"
#include "protocol/apis/fetch.h"
#include "record/validate.h"

namespace strata::broker {

namespace {

constexpr int32_t kMaxWaitMs = 500;
constexpr int32_t kResponseMaxBytes = 10 << 20;  // Kafka's replica.fetch.response.max.bytes
constexpr int32_t kPartitionMaxBytes = 1 << 20;  // Kafka's replica.fetch.max.bytes
constexpr auto kBackoff = std::chrono::milliseconds(200);  // replica.fetch.backoff.ms is 1000

struct Part {
  storage::TopicPartition tp;
  Uuid topic_id;
  int32_t leader_epoch = 0;
  bool throttled = false;  // a replica this broker is adding, not yet in sync (Replication::throttled)
};

// What the follower's log says before a fetch (read on its owner shard).
struct Local {
  bool present = false;
  int64_t log_end = 0;
  int64_t log_start = 0;
  int32_t last_epoch = -1;
};

// Runs `fn` on shard `s` and waits for its result (the fetcher is a plain thread).
template <class Fn>
auto run_on_shard(Broker& broker, size_t s, Fn fn) -> decltype(fn()) {
  using R = decltype(fn());
  auto promise = std::make_shared<std::promise<R>>();
  auto future = promise->get_future();
  asio::post(broker.shard(s), [promise, fn]() mutable { promise->set_value(fn()); });
  return future.get();
}

// The whole batches at the front of `records` (a leader may end an answer with part of a
// batch, as Kafka's do when a size limit cuts it).
MutableBytes whole_batches(MutableBytes records) {
  size_t pos = 0;
  while (pos < records.size()) {
    auto view = record::frame_batch(Bytes(records).subspan(pos));
    if (!view) break;
    pos += view->size();
  }
  return records.subspan(0, pos);
}

// An empty log (just started over at the leader's log start) whose first fetched batch
// begins below that start, because the start falls inside it (DeleteRecords to the
// middle of a batch): the log starts over at the batch's base offset instead, so the
// whole batch is kept as the leader has it; the log start then rises to the leader's
// again with the answer's log_start_offset. As Kafka's Partition does on its
// UnexpectedAppendOffsetException.
void start_at_first_batch(storage::Log& log, Bytes batches, int64_t now) {
  const Offset end = log.log_end_offset();
  auto first = record::frame_batch(batches);
  if (!first || end != log.log_start_offset() || first->base_offset() >= end || first->last_offset() < end) return;
  if (auto t = log.truncate_fully_and_start_at(first->base_offset(), now); !t) {
    spdlog::warn("{}: starting over at {}: {}", log.dir(), first->base_offset().value(), t.error().message());
  }
}

}  // namespace

struct ReplicaFetchers::Fetcher {
  Fetcher(Broker& b, int32_t l, std::atomic<uint64_t>& r) : broker(b), leader(l), rounds(r) {}

  Broker& broker;
  const int32_t leader;
  std::atomic<uint64_t>& rounds;
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;             // guarded by mu
  std::vector<Part> parts;           // guarded by mu
  client::KafkaClient* live = nullptr;  // guarded by mu: the connection in use, for stop()
  bool done_running = false;            // guarded by mu: run() returned
  ReplicationThrottle* throttle = nullptr;  // the broker's, shared by its fetchers

  void set_parts(std::vector<Part> p) {
    std::lock_guard lock(mu);
    parts = std::move(p);
    cv.notify_all();
  }
  // Asks the thread to end (its call in flight is broken); does not wait.
  void request_stop() {
    std::lock_guard lock(mu);
    stopping = true;
    if (live != nullptr) live->abort();
    cv.notify_all();
  }
  void stop() {
    request_stop();
    if (thread.joinable()) thread.join();
  }
  bool finished() {
    std::lock_guard lock(mu);
    return done_running;
  }
  bool wait(std::chrono::milliseconds d) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, d, [this] { return stopping; });
  }
  void run();
  void loop();
  std::optional<client::KafkaClient> connect();
  bool round(client::KafkaClient& c, const std::vector<Part>& snapshot);
  // Applies one partition's answer on its owner shard; a future when its append is being
  // made durable (strata.replica.fsync), which the round waits for before fetching on.
  // `refused` is set when the answer could not be applied (the round then backs off
  // rather than asking again at once).
  std::optional<std::future<void>> apply(const Part& part,
                                         protocol::FetchResponse::PartitionData& data,
                                         bool& refused, int64_t fetched_from);
};

std::optional<client::KafkaClient> ReplicaFetchers::Fetcher::connect() {
  auto meta = broker.metadata();
  const BrokerMeta* b = meta->cluster().broker(leader);
  if (b == nullptr) return std::nullopt;
  const BrokerConfig& config = broker.config();
  auto c = client::KafkaClient::connect(
      {b->host, uint16_t(b->port)},
      client::ConnectOptions{config.socket_connection_setup_timeout_ms, config.request_timeout_ms,
                             "strata-replica-fetcher-" + std::to_string(config.node_id),
                             broker.inter_broker_security()});
  if (!c) {
    static LogLimit failed("replica fetcher connect failed");
    failed.warn("replica fetcher: broker {} at {}:{}: {}", leader, b->host, b->port, c.error().message);
    return std::nullopt;
  }
  return std::move(*c);
}

void ReplicaFetchers::Fetcher::run() {
  name_thread_once("replica-fetch");
  loop();
  std::lock_guard lock(mu);
  done_running = true;
  live = nullptr;
}

void ReplicaFetchers::Fetcher::loop() {
  std::optional<client::KafkaClient> client;
  while (true) {
    std::vector<Part> snapshot;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [this] { return stopping || !parts.empty(); });
      if (stopping) return;
      snapshot = parts;
    }
    if (!client) {
      client = connect();
      if (!client) {
        if (wait(kBackoff)) return;
        continue;
      }
      std::lock_guard lock(mu);
      if (stopping) return;
      live = &*client;
    }
    const bool ok = round(*client, snapshot);
    if (!ok) {
      {
        std::lock_guard lock(mu);
        live = nullptr;
        if (stopping) return;
      }
      client.reset();
      if (wait(kBackoff)) return;
    }
  }
}

// One fetch of every partition; false when the connection failed.
bool ReplicaFetchers::Fetcher::round(client::KafkaClient& c, const std::vector<Part>& snapshot) {
  protocol::FetchRequest req;
  const int32_t self = broker.config().node_id;
  req.replica_id = self;
  req.replica_state = protocol::FetchRequest::ReplicaState{self, broker.broker_epoch()};
  req.max_wait_ms = kMaxWaitMs;
  req.min_bytes = 1;
  req.max_bytes = kResponseMaxBytes;
  std::vector<Local> locals(snapshot.size());
  std::vector<const Part*> asked;
  // follower.replication.throttled.rate, dynamic: read at every round.
  const int64_t rate = broker.dynamic_configs().follower_rate();
  const bool limited = rate < INT64_MAX;
  const bool throttle_open = !limited || throttle->open(rate);
  for (size_t i = 0; i < snapshot.size(); ++i) {
    const Part& p = snapshot[i];
    if (p.throttled && limited && !throttle_open) continue;
    locals[i] = run_on_shard(broker, broker.owner_shard(p.tp), [this, &p] {
      Local l;
      storage::Log* log = broker.owned_log(p.tp, p.topic_id);
      if (log == nullptr) return l;
      log->track_high_watermark();
      l.present = true;
      l.log_end = log->log_end_offset().value();
      l.log_start = log->log_start_offset().value();
      if (!log->epochs().empty()) l.last_epoch = log->epochs().back().epoch.value();
      return l;
    });
    if (!locals[i].present) continue;  // the log is being made or removed
    if (req.topics.empty() || req.topics.back().topic != p.tp.topic) {
      protocol::FetchRequest::FetchTopic t;
      t.topic = p.tp.topic;
      t.topic_id = p.topic_id;
      req.topics.push_back(std::move(t));
    }
    protocol::FetchRequest::FetchPartition fp;
    fp.partition = p.tp.partition.value();
    fp.current_leader_epoch = p.leader_epoch;
    fp.fetch_offset = locals[i].log_end;
    fp.last_fetched_epoch = locals[i].last_epoch;
    fp.log_start_offset = locals[i].log_start;
    fp.partition_max_bytes =
        p.throttled && limited ? int32_t(throttle->allowance(kPartitionMaxBytes)) : kPartitionMaxBytes;
    req.topics.back().partitions.push_back(fp);
    asked.push_back(&p);
  }
  if (asked.empty()) {
    wait(kBackoff);
    return true;
  }
  std::vector<uint8_t> keep;  // the response's records point into it
  auto r = c.call<protocol::FetchResponse>(req, keep);
  if (!r) {
    static LogLimit failed("replica fetch failed");
    failed.warn("replica fetch from broker {}: {}", leader, r.error().message);
    return false;
  }
  if (r->error_code != 0) {
    static LogLimit refused("replica fetch refused");
    refused.warn("replica fetch from broker {}: {}", leader, client::kafka_error_name(r->error_code));
    wait(kBackoff);
    return true;
  }
  // The answer names topics by id (v13+) or by name: each partition found in one lookup.
  std::map<std::pair<std::string, int32_t>, size_t> asked_at;
  std::unordered_map<Uuid, std::string> name_of;
  for (size_t i = 0; i < snapshot.size(); ++i) {
    asked_at[{snapshot[i].tp.topic, snapshot[i].tp.partition.value()}] = i;
    name_of[snapshot[i].topic_id] = snapshot[i].tp.topic;
  }
  bool retry_later = false;
  std::vector<std::future<void>> syncs;  // every partition's fdatasync asked first, then waited for
  for (auto& topic : r->responses) {
    const auto id = name_of.find(topic.topic_id);
    const std::string& name = topic.topic.empty() && id != name_of.end() ? id->second : topic.topic;
    for (auto& data : topic.partitions) {
      const auto found = asked_at.find({name, data.partition_index});
      if (found == asked_at.end()) continue;  // not asked for
      const size_t at = found->second;
      const Part* part = &snapshot[at];
      if (data.error_code != 0 && data.error_code != kafka_error::kOffsetOutOfRange) {
        retry_later = true;  // NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, ...: newer metadata
        continue;
      }
      if (part->throttled && limited && data.records.data) throttle->spend(data.records.data->size());
      bool refused = false;
      auto synced = apply(*part, data, refused, locals[at].log_end);
      if (synced) syncs.push_back(std::move(*synced));
      retry_later = retry_later || refused;
    }
  }
  for (auto& f : syncs) f.wait();
  rounds.fetch_add(1);
  if (retry_later) wait(kBackoff);
  return true;
}

// On the partition's owner shard: the answer for one partition.
std::optional<std::future<void>> ReplicaFetchers::Fetcher::apply(const Part& part,
                                                                 protocol::FetchResponse::PartitionData& data,
                                                                 bool& refused, int64_t fetched_from) {
  const bool fsync = broker.config().replica_fsync;
  auto done = std::make_shared<std::promise<void>>();
  auto synced = done->get_future();
  bool wait_sync = false;
  run_on_shard(broker, broker.owner_shard(part.tp), [this, &part, &data, fetched_from, fsync, done,
                                                     &wait_sync, &refused] {
    storage::Log* log = broker.owned_log(part.tp, part.topic_id);
    if (log == nullptr || log->log_end_offset().value() != fetched_from) return true;  // changed meanwhile
    // The newest metadata must still have this broker following `leader` at the epoch
    // fetched for: an answer that arrives after this broker became the leader (or began
    // following another) is dropped, never appended to a log that is now led here.
    {
      auto snapshot = broker.metadata();
      const PartitionMeta* now_meta = snapshot->partition(part.tp.topic, part.tp.partition.value());
      if (now_meta == nullptr || now_meta->leader != leader ||
          now_meta->leader_epoch != part.leader_epoch) {
        refused = true;
        return true;
      }
    }
    static LogLimit problems("replica append failed");
    const int64_t now = now_ms();
    if (data.diverging_epoch && data.diverging_epoch->end_offset >= 0) {
      // KIP-320: our log has records of that epoch past where the leader's ends, or of
      // an epoch the leader does not have: truncate to the end the leader gives, or to
      // our own end of that epoch when it is smaller.
      const auto ours = end_offset_for(log->epochs(), data.diverging_epoch->epoch,
                                       log->log_end_offset().value(), kUndefinedEpoch);
      int64_t to = data.diverging_epoch->end_offset;
      if (ours.first == data.diverging_epoch->epoch && ours.second >= 0) to = std::min(to, ours.second);
      if (to < log->log_start_offset().value()) {
        // Divergence below our log start: our epoch history is of no use (an epoch cache
        // left from before a crash in truncate_fully_and_start_at, say): start over where
        // we start, without it, so the next fetch asks with no last fetched epoch.
        if (auto t = log->truncate_fully_and_start_at(log->log_start_offset(), now); !t) {
          problems.warn("restarting {}-{}: {}", part.tp.topic, part.tp.partition.value(), t.error().message());
        }
        return true;
      }
      auto t = log->truncate_to(Offset(to), now);
      if (!t) {
        problems.warn("truncating {}-{}: {}", part.tp.topic, part.tp.partition.value(), t.error().message());
      } else {
        spdlog::info("{}-{}: diverged from leader {} at epoch {}; truncated to {}", part.tp.topic,
                     part.tp.partition.value(), leader, data.diverging_epoch->epoch, t->value());
      }
      return true;
    }
    if (data.error_code == kafka_error::kOffsetOutOfRange) {
      if (fetched_from < data.log_start_offset) {
        // Behind the leader's log start (its retention or DeleteRecords removed what we
        // would fetch next; or we are a new replica): Kafka's truncateFullyAndStartAt.
        auto t = log->truncate_fully_and_start_at(Offset(data.log_start_offset), now);
        if (!t) {
          problems.warn("restarting {}-{} at {}: {}", part.tp.topic, part.tp.partition.value(),
                        data.log_start_offset, t.error().message());
        } else {
          spdlog::info("{}-{}: log end {} below leader {}'s log start; the log starts over at {}",
                       part.tp.topic, part.tp.partition.value(), fetched_from, leader, data.log_start_offset);
        }
        return true;
      }
      // Ahead of the leader (it has no diverging-epoch answer for us): back to its high
      // watermark, below which every in-sync replica agrees.
      if (fetched_from > data.high_watermark && data.high_watermark >= log->log_start_offset().value()) {
        auto t = log->truncate_to(Offset(data.high_watermark), now);
        if (t) spdlog::info("{}-{}: ahead of leader {}; truncated to its high watermark {}", part.tp.topic,
                            part.tp.partition.value(), leader, t->value());
      } else {
        problems.warn("{}-{}: fetch offset {} out of the leader's range (log start {})", part.tp.topic,
                      part.tp.partition.value(), fetched_from, data.log_start_offset);
      }
      return true;
    }
    if (data.records.data && !data.records.data->empty()) {
      MutableBytes batches = whole_batches(*data.records.data);
      if (!batches.empty()) {
        start_at_first_batch(*log, batches, now);
        auto a = log->append_replicated(batches, now);
        if (!a) {
          // Never appended: the next fetch, after a pause, asks for the same offset again.
          refused = true;
          problems.warn("replicated append to {}-{} from broker {}: {}", part.tp.topic, part.tp.partition.value(),
                        leader, a.error().message());
          return true;
        }
        if (fsync) {
          wait_sync = true;
          log->sync([done](Result<void, storage::StorageError>) { done->set_value(); });
        }
      }
    }
    log->raise_high_watermark(Offset(data.high_watermark));
    if (data.log_start_offset > log->log_start_offset().value()) {
      (void)log->advance_log_start_offset(Offset(data.log_start_offset), now);
    }
    broker.fetch_waiters().notify(part.tp);
    return true;
  });
  if (!wait_sync) return std::nullopt;
  return synced;
}

ReplicaFetchers::ReplicaFetchers(Broker& broker) : broker_(broker) {}

ReplicaFetchers::~ReplicaFetchers() { stop(); }

void ReplicaFetchers::update(const MetadataSnapshot& snapshot) {
  const int32_t self = broker_.config().node_id;
  const int n = std::max(broker_.config().num_replica_fetchers, 1);
  std::map<Key, std::vector<Part>> wanted;
  for (const auto& topic : snapshot.topics()) {
    for (int32_t p = 0; p < topic->partition_count(); ++p) {
      const PartitionMeta& m = topic->partitions[size_t(p)];
      if (m.leader < 0 || m.leader == self) continue;
      if (std::find(m.replicas.begin(), m.replicas.end(), self) == m.replicas.end()) continue;
      storage::TopicPartition tp{topic->name, PartitionId(p)};
      const int index = int((std::hash<std::string>{}(tp.topic) * 31 + size_t(p)) % size_t(n));
      wanted[{m.leader, index}].push_back({std::move(tp), topic->id, m.leader_epoch, Replication::throttled(m, self)});
    }
  }
  std::lock_guard lock(mu_);
  if (stopped_) return;
  // Fetchers no longer needed are told to stop and joined later (stop()): update() may
  // run on a shard that such a fetcher is waiting for.
  std::erase_if(retired_, [](const std::shared_ptr<Fetcher>& f) {
    if (!f->finished()) return false;
    f->thread.join();  // it has returned: at once
    return true;
  });
  for (auto it = fetchers_.begin(); it != fetchers_.end();) {
    if (wanted.count(it->first) == 0) {
      it->second->request_stop();
      retired_.push_back(it->second);
      it = fetchers_.erase(it);
    } else {
      ++it;
    }
  }
  {
    for (auto& [key, parts] : wanted) {
      auto& f = fetchers_[key];
      if (!f) {
        f = std::make_shared<Fetcher>(broker_, key.leader, rounds_);
        f->throttle = &throttle_;
        f->set_parts(std::move(parts));
        f->thread = std::thread([f = f.get()] { f->run(); });
      } else {
        f->set_parts(std::move(parts));
      }
    }
  }
}

void ReplicaFetchers::stop() {
  std::vector<std::shared_ptr<Fetcher>> all;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    for (auto& [key, f] : fetchers_) all.push_back(f);
    fetchers_.clear();
    all.insert(all.end(), retired_.begin(), retired_.end());
    retired_.clear();
  }
  for (auto& f : all) f->request_stop();
  for (auto& f : all) f->stop();
}

}  // namespace strata::broker

// Fetch: whole batches straight from the segment files (never decoded), spliced onto
// the wire; the first partition with data gets at least one batch even past the byte
// limits (KIP-74). Less than min.bytes waits up to max.wait.ms for appends.
// Incremental fetch sessions (KIP-227): broker/fetch_sessions.h decides which partitions
// a request reads and which the answer lists. read_committed (isolation level 1) stops at the last
// stable offset (the first offset of the oldest open transaction) and lists the
// aborted transactions of the range, from the .txnindex files. Errors per partition: UNKNOWN_TOPIC_OR_PARTITION,
// UNKNOWN_TOPIC_ID, OFFSET_OUT_OF_RANGE, KAFKA_STORAGE_ERROR.
#include <chrono>
#include <unordered_map>

#include "broker/errors.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/leader_epochs.h"
#include "broker/partitions.h"

namespace strata::broker {

using protocol::FetchRequest;
using protocol::FetchResponse;

namespace {

struct Read {
  int16_t error = 0;
  // KIP-320: a follower whose last fetched epoch ends, on this leader, before its fetch
  // offset (or is not the leader's): the epoch and end offset to truncate to.
  std::optional<std::pair<int32_t, int64_t>> diverging;
  int64_t high_watermark = -1;
  int64_t last_stable_offset = -1;
  int64_t log_start_offset = -1;
  std::optional<storage::FileRegion> region;
  std::vector<storage::AbortedTxn> aborted;
  bool throttled = false;  // leader.replication.throttled.rate applies (a new replica's fetch)
  bool held = false;       // throttled, with its bucket spent: read nothing
};

// Kafka's last stable offset: below the high watermark, the first offset of the
// oldest open transaction.
int64_t last_stable_offset(const storage::Log& log, int64_t high_watermark) {
  auto unstable = log.first_unstable_offset();
  return unstable ? std::min(unstable->value(), high_watermark) : high_watermark;
}

// The request's partitions, flattened in request order. A partition listed twice is
// fetched once, at its first place with its last parameters (Kafka's LinkedHashMap).
std::vector<FetchWant> wants_of(const FetchRequest& request, int16_t version) {
  std::vector<FetchWant> out;
  size_t listed = 0;
  for (const auto& topic : request.topics) listed += topic.partitions.size();
  std::unordered_map<std::string, size_t> seen;  // only when a duplicate is possible
  for (const auto& topic : request.topics) {
    for (const auto& p : topic.partitions) {
      FetchWant w{topic.topic, topic.topic_id, p.partition, p.fetch_offset,
                  p.partition_max_bytes, p.current_leader_epoch, p.log_start_offset,
                  p.last_fetched_epoch};
      if (listed == 1) {
        out.push_back(std::move(w));
        continue;
      }
      auto [at, fresh] = seen.emplace(FetchSessions::key_of(w, version >= 13), out.size());
      if (fresh) {
        out.push_back(std::move(w));
      } else {
        out[at->second] = std::move(w);
      }
    }
  }
  return out;
}

std::vector<FetchWant> forgotten_of(const FetchRequest& request) {
  std::vector<FetchWant> out;
  for (const auto& topic : request.forgotten_topics_data) {
    for (int32_t partition : topic.partitions) {
      FetchWant w;
      w.topic = topic.topic;
      w.topic_id = topic.topic_id;
      w.partition = partition;
      out.push_back(std::move(w));
    }
  }
  return out;
}

bool from_follower(const FetchRequest& request, int16_t version) {
  return version >= 15 ? request.replica_state && request.replica_state->replica_id >= 0
                       : request.replica_id >= 0;
}

// One partition's read on its owner shard: figures, and whole batches from fetch_offset
// up to `limit` bytes (at least one batch when `min_one_batch`).
// A consumer reads up to the high watermark (the last stable offset with
// read_committed); a follower (`replica`) up to the log end, as Kafka's fetch isolation.
Read read_on_owner(const storage::Log* log, int64_t fetch_offset, uint64_t limit,
                   bool min_one_batch, bool committed, bool replica) {
  Read out;
  if (log == nullptr) {  // deleted or re-created since the request's snapshot
    out.error = kafka_error::kUnknownTopicOrPartition;
    return out;
  }
  out.high_watermark = log->high_watermark().value();
  out.last_stable_offset = last_stable_offset(*log, out.high_watermark);
  out.log_start_offset = log->log_start_offset().value();
  std::optional<Offset> max_offset;
  if (!replica) max_offset = Offset(committed ? out.last_stable_offset : out.high_watermark);
  auto region = log->read(Offset(fetch_offset), limit, min_one_batch, max_offset);
  if (!region) {
    out.error = code_of(kafka_error_of(region.error()));
  } else {
    out.region = *region;
  }
  if (committed && out.region) {
    out.aborted = log->aborted_transactions(Offset(fetch_offset), Offset(out.last_stable_offset));
  }
  return out;
}

// The request's partitions against its snapshot (by topic id from v13), each fetch's
// current_leader_epoch (v9+) checked against the partition's.
std::vector<PartitionRef> resolve_all(Broker& broker, const MetadataSnapshot& snapshot,
                                      const std::vector<FetchWant>& wants, int16_t version) {
  std::vector<PartitionRef> refs;
  refs.reserve(wants.size());
  for (const FetchWant& want : wants) {
    if (version >= 13) {
      const TopicMeta* topic = snapshot.topic(want.topic_id);
      refs.push_back(resolve_partition(broker, topic, want.partition));
      if (topic == nullptr) refs.back().error = kafka_error::kUnknownTopicId;
    } else {
      refs.push_back(resolve_partition(broker, snapshot, want.topic, want.partition));
    }
    PartitionRef& ref = refs.back();
    if (ref.error == 0) {
      const int32_t ours = ref.meta->partitions[size_t(want.partition)].leader_epoch;
      ref.error = check_current_epoch(want.current_leader_epoch, ours);
    }
  }
  return refs;
}

// Kafka's checks: a follower's fetch needs CLUSTER_ACTION on the cluster, a consumer's
// READ on each topic; a partition that fails answers TOPIC_AUTHORIZATION_FAILED (before
// any other error, so an unauthorized client learns nothing of the topic).
void authorize_all(Broker& broker, const RequestContext& ctx, bool follower,
                   const std::vector<FetchWant>& wants, std::vector<PartitionRef>& refs) {
  if (!broker.authorizer().enabled()) return;
  const bool cluster_ok = follower && cluster_authorized(broker, ctx, AclOperation::kClusterAction);
  for (size_t i = 0; i < refs.size(); ++i) {
    const std::string& topic = refs[i].meta != nullptr ? refs[i].meta->name : wants[i].topic;
    if (topic.empty()) continue;  // an unknown topic id: no name to check
    const bool ok = follower ? cluster_ok : authorized(broker, ctx, AclOperation::kRead, ResourceType::kTopic, topic);
    if (!ok) refs[i].error = kafka_error::kTopicAuthorizationFailed;
  }
}

// On the owner shard, for a follower's fetch: its divergence (KIP-320) or, when it has
// none, its progress, which may raise the high watermark.
std::optional<std::pair<int32_t, int64_t>> follow(Broker& broker, const PartitionRef& ref, const FetchWant& want,
                                                  int32_t follower, storage::Log& log) {
  const PartitionMeta& meta = ref.meta->partitions[size_t(want.partition)];
  if (want.last_fetched_epoch >= 0) {
    auto [epoch, end] = end_offset_for(log.epochs(), want.last_fetched_epoch, log.log_end_offset().value(),
                                       meta.leader_epoch);
    if (epoch != kUndefinedEpoch && end >= 0 && (epoch < want.last_fetched_epoch || end < want.fetch_offset)) {
      return std::make_pair(epoch, end);
    }
  }
  if (Replication::replicated(meta) &&
      broker.replication().on_follower_fetch(ref.tp, meta, follower, want.fetch_offset, log, now_ms())) {
    broker.fetch_waiters().notify(ref.tp);  // consumers waiting for the high watermark
  }
  return std::nullopt;
}

// One pass over the fetch's partitions; fills `parts` and `answers` (same order as
// `wants`) and returns the record bytes gathered. All partitions are read at once, one
// hop per owner shard, each up to its own limit; then, in request order, the response
// limit is applied (KIP-74: the first partition with data may exceed it by one batch),
// re-reading with the smaller limit the rare partition that does not fit. `tps`: the
// partitions whose appends should wake a long poll; `held_any`: a partition was held by
// the leader's throttle (the poll then waits out its time even with no `tps`).
asio::awaitable<uint64_t> read_all(Broker& broker, const FetchRequest& request,
                                   const std::vector<FetchWant>& wants,
                                   const std::vector<PartitionRef>& refs,
                                   std::vector<FetchResponse::PartitionData>& parts,
                                   std::vector<FetchAnswer>& answers,
                                   std::vector<storage::TopicPartition>& tps, int16_t version,
                                   int32_t follower, bool& held_any) {
  parts.clear();
  answers.clear();
  tps.clear();
  held_any = false;
  const uint64_t response_max = version >= 3 ? uint64_t(std::max(request.max_bytes, 0))
                                             : UINT64_MAX;
  const bool committed = request.isolation_level == 1;
  std::vector<Read> reads(wants.size());
  const bool replica = follower >= 0;
  // leader.replication.throttled.rate (dynamic), read once per pass.
  const int64_t rate = replica ? broker.dynamic_configs().leader_rate() : INT64_MAX;
  co_await for_each_log(broker, refs, [&broker, &refs, &reads, &wants, response_max, committed, follower,
                                       replica, rate](size_t i, storage::Log* log) {
    if (replica && log != nullptr) {
      if (auto diverging = follow(broker, refs[i], wants[i], follower, *log)) {
        reads[i].diverging = diverging;
        reads[i].high_watermark = log->high_watermark().value();
        reads[i].log_start_offset = log->log_start_offset().value();
        return;
      }
    }
    uint64_t limit = std::min<uint64_t>(uint64_t(std::max(wants[i].max_bytes, 0)), response_max);
    // A new replica's data waits while the leader's bucket is empty, and takes at most
    // what it holds (but one whole batch).
    const bool throttled = rate < INT64_MAX && log != nullptr && refs[i].error == 0 &&
                           Replication::throttled(refs[i].meta->partitions[size_t(wants[i].partition)], follower);
    bool held = false;
    if (throttled) {
      ReplicationThrottle& throttle = broker.replication().leader_throttle();
      held = !throttle.open(rate);
      limit = held ? 0 : std::min(limit, uint64_t(throttle.allowance(int64_t(limit))));
    }
    reads[i] = read_on_owner(log, wants[i].fetch_offset, limit, !held, committed, replica);
    reads[i].throttled = throttled;
    reads[i].held = held;
  });
  uint64_t total = 0;
  for (size_t i = 0; i < wants.size(); ++i) {
    const FetchWant& want = wants[i];
    FetchResponse::PartitionData pd;
    pd.partition_index = want.partition;
    if (request.isolation_level == 0) pd.aborted_transactions.reset();
    if (refs[i].error != 0) {
      pd.error_code = refs[i].error;
      pd.high_watermark = -1;  // Kafka's INVALID_HIGH_WATERMARK on a partition error
      answers.push_back(FetchAnswer{pd.error_code, pd.high_watermark, pd.log_start_offset, 0});
      parts.push_back(std::move(pd));
      continue;
    }
    if (!reads[i].held) tps.push_back(refs[i].tp);  // appends to a held one would wake it for nothing
    held_any = held_any || reads[i].held;
    const uint64_t room = total >= response_max ? 0 : response_max - total;
    const uint64_t limit = std::min<uint64_t>(uint64_t(std::max(want.max_bytes, 0)), room);
    Read& read = reads[i];
    const bool first = total == 0;
    if (read.region && read.region->size > limit && !first) {
      const int64_t fetch_offset = want.fetch_offset;
      const bool throttled = read.throttled;
      read = co_await broker.on_shard(refs[i].shard, [&broker, ref = &refs[i], fetch_offset, limit, committed, replica] {
        return read_on_owner(broker.owned_log(ref->tp, ref->topic_id), fetch_offset, limit, false, committed,
                             replica);
      });
      read.throttled = throttled;
    }
    if (read.diverging) pd.diverging_epoch = FetchResponse::EpochEndOffset{read.diverging->first, read.diverging->second};
    pd.error_code = read.error;
    // A consumer's offset out of this log's range while the view may be stale (cut from
    // etcd, the leadership may have moved): the offset may well exist at the new leader,
    // and OFFSET_OUT_OF_RANGE would make the client reset its position (auto.offset.reset:
    // issue 16's stale_leader_out_of_range). It is told to look for the leader instead.
    if (pd.error_code == kafka_error::kOffsetOutOfRange && !replica && !broker.view_current()) {
      pd.error_code = kafka_error::kNotLeaderOrFollower;
    }
    pd.high_watermark = read.error == kafka_error::kUnknownTopicOrPartition ? -1 : read.high_watermark;
    pd.last_stable_offset = read.last_stable_offset;
    if (pd.aborted_transactions) {
      for (const auto& a : read.aborted) {
        pd.aborted_transactions->push_back({a.producer_id.value(), a.first_offset.value()});
      }
    }
    pd.log_start_offset = read.log_start_offset;
    uint64_t bytes = 0;
    if (read.region) {
      const auto& file = read.region->file;
      pd.records.file = protocol::FileSlice{file, file->fd(), read.region->position,
                                            read.region->size};
      bytes = read.region->size;
      total += bytes;
      if (read.throttled) broker.replication().leader_throttle().spend(bytes);  // what is sent
    }
    answers.push_back(FetchAnswer{pd.error_code, pd.high_watermark, pd.log_start_offset, bytes});
    parts.push_back(std::move(pd));
  }
  co_return total;
}

// Kafka's BrokerTopicMetrics for a consumer's fetch (a follower's is replication, not
// counted here), per partition read as Kafka marks them: a fetch request, its bytes out,
// and a failed fetch for a partition answered with an error.
void account(Broker& broker, const std::vector<FetchWant>& wants, const std::vector<FetchAnswer>& answers) {
  TopicTraffic& all = broker.traffic().all();
  TopicTraffic* traffic = nullptr;
  const std::string* topic = nullptr;
  for (size_t i = 0; i < wants.size() && i < answers.size(); ++i) {
    if (topic == nullptr || *topic != wants[i].topic) {
      topic = &wants[i].topic;
      traffic = &broker.traffic().topic(*topic);
    }
    count(*traffic, all, &TopicTraffic::fetch_requests, 1);
    if (answers[i].error != 0) count(*traffic, all, &TopicTraffic::failed_fetch, 1);
    count(*traffic, all, &TopicTraffic::bytes_out, answers[i].records_bytes);
  }
}

// The response's topics: consecutive partitions of one topic share an entry, as
// Kafka's FetchResponse.of groups its ordered partition map.
void assemble(FetchResponse& r, const std::vector<FetchWant>& wants,
              std::vector<FetchResponse::PartitionData>& parts, const std::vector<size_t>& included,
              bool by_id) {
  r.responses.clear();
  for (size_t i : included) {
    const FetchWant& w = wants[i];
    bool same = !r.responses.empty() &&
                (by_id ? r.responses.back().topic_id == w.topic_id : r.responses.back().topic == w.topic);
    if (!same) {
      FetchResponse::FetchableTopicResponse tr;
      tr.topic = w.topic;
      tr.topic_id = w.topic_id;
      r.responses.push_back(std::move(tr));
    }
    r.responses.back().partitions.push_back(std::move(parts[i]));
  }
}

}  // namespace

asio::awaitable<FetchResponse> handle_fetch(Broker& broker, RequestContext& ctx,
                                            FetchRequest& request) {
  FetchResponse r;
  const int16_t version = ctx.header.api_version;
  auto fetch = broker.fetch_sessions().open(version, request.session_id, request.session_epoch,
                                            from_follower(request, version),
                                            wants_of(request, version), forgotten_of(request),
                                            now_ms());
  std::vector<FetchResponse::PartitionData> parts;
  std::vector<FetchAnswer> answers;
  std::vector<storage::TopicPartition> tps;
  std::vector<PartitionRef> refs;
  if (fetch.kind != FetchSessions::Kind::kError) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(std::max(request.max_wait_ms, 0));
    auto waiter = std::make_shared<FetchWaiters::Waiter>(co_await asio::this_coro::executor);
    const uint64_t min_bytes = uint64_t(std::max(request.min_bytes, 0));
    // The snapshot stays with the request; a partition deleted meanwhile answers
    // UNKNOWN_TOPIC_OR_PARTITION from its owner shard.
    refs = resolve_all(broker, *ctx.metadata, fetch.partitions, version);
    authorize_all(broker, ctx, from_follower(request, version), fetch.partitions, refs);
    const int32_t follower = !from_follower(request, version) ? -1
                             : version >= 15                  ? request.replica_state->replica_id
                                                              : request.replica_id;
    bool held = false;
    auto read = [&] {
      return read_all(broker, request, fetch.partitions, refs, parts, answers, tps, version, follower, held);
    };
    // The first read is posted before the turn passes on; the long poll that may follow
    // does not hold up the connection's next request.
    ctx.turn.release();
    uint64_t bytes = co_await read();
    while (bytes < min_bytes && (!tps.empty() || held) && std::chrono::steady_clock::now() < deadline) {
      // Register, then read again: an append between the two reads still wakes us.
      waiter->woken = false;
      broker.fetch_waiters().add(waiter, tps);
      bytes = co_await read();
      if (bytes >= min_bytes) break;
      waiter->timer.expires_at(deadline);
      asio::error_code ec;
      if (!waiter->woken) {
        co_await waiter->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      }
      bytes = co_await read();
    }
  }
  if (!from_follower(request, version) && broker.config().traffic_metrics) account(broker, fetch.partitions, answers);
  auto outcome = broker.fetch_sessions().close(fetch, answers, now_ms());
  r.error_code = outcome.error;
  r.session_id = outcome.session_id;
  if (version >= 16) {
    for (size_t i : outcome.included) {
      add_leader_hint(*ctx.metadata, ctx.session().listener->name, refs[i], parts[i].error_code, parts[i].current_leader, r.node_endpoints);
    }
  }
  assemble(r, fetch.partitions, parts, outcome.included, version >= 13);
  co_return r;
}

}  // namespace strata::broker

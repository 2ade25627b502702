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
#include "broker/handlers/handlers.h"
#include "broker/partitions.h"

namespace strata::broker {

using protocol::FetchRequest;
using protocol::FetchResponse;

namespace {

struct Read {
  int16_t error = 0;
  int64_t high_watermark = -1;
  int64_t last_stable_offset = -1;
  int64_t log_start_offset = -1;
  std::optional<storage::FileRegion> region;
  std::vector<storage::AbortedTxn> aborted;
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

// One pass over the fetch's partitions; fills `parts` and `answers` (same order as
// `wants`) and returns the record bytes gathered.
asio::awaitable<uint64_t> read_all(Broker& broker, const FetchRequest& request,
                                   const std::vector<FetchWant>& wants,
                                   std::vector<FetchResponse::PartitionData>& parts,
                                   std::vector<FetchAnswer>& answers,
                                   std::vector<storage::TopicPartition>& tps, int16_t version) {
  parts.clear();
  answers.clear();
  tps.clear();
  uint64_t total = 0;
  const uint64_t response_max = version >= 3 ? uint64_t(std::max(request.max_bytes, 0))
                                             : UINT64_MAX;
  for (const FetchWant& want : wants) {
    FetchResponse::PartitionData pd;
    pd.partition_index = want.partition;
    if (request.isolation_level == 0) pd.aborted_transactions.reset();
    std::string name = want.topic;
    if (version >= 13) {
      auto info = broker.topics().get(want.topic_id);
      name = info ? info->name : "";
    }
    Lookup found;
    if (name.empty()) {
      pd.error_code = kafka_error::kUnknownTopicId;
    } else {
      found = find_partition(broker, name, want.partition, false);
      if (!found.ref) pd.error_code = found.error;
    }
    if (!found.ref) {
      pd.high_watermark = -1;  // Kafka's INVALID_HIGH_WATERMARK on a partition error
      answers.push_back(FetchAnswer{pd.error_code, pd.high_watermark, pd.log_start_offset, 0});
      parts.push_back(std::move(pd));
      continue;
    }
    tps.push_back(found.ref->tp);
    const uint64_t room = total >= response_max ? 0 : response_max - total;
    const uint64_t limit = std::min<uint64_t>(uint64_t(std::max(want.max_bytes, 0)), room);
    const bool first = total == 0;
    const bool committed = request.isolation_level == 1;
    const int64_t fetch_offset = want.fetch_offset;
    Read read = co_await broker.on_shard(found.ref->shard, [log = found.ref->log, fetch_offset,
                                                             limit, first, committed] {
      Read out;
      out.high_watermark = log->log_end_offset().value();
      out.last_stable_offset = last_stable_offset(*log, out.high_watermark);
      out.log_start_offset = log->log_start_offset().value();
      std::optional<Offset> max_offset;
      if (committed) max_offset = Offset(out.last_stable_offset);
      auto region = log->read(Offset(fetch_offset), limit, first, max_offset);
      if (!region) {
        out.error = kafka_error_of(region.error());
      } else {
        out.region = *region;
      }
      if (committed && out.region) {
        out.aborted = log->aborted_transactions(Offset(fetch_offset), Offset(out.last_stable_offset));
      }
      return out;
    });
    pd.error_code = read.error;
    pd.high_watermark = read.high_watermark;
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
    } else {
      pd.records.data = MutableBytes();  // empty, not null
    }
    answers.push_back(FetchAnswer{pd.error_code, pd.high_watermark, pd.log_start_offset, bytes});
    parts.push_back(std::move(pd));
  }
  co_return total;
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
  if (fetch.kind != FetchSessions::Kind::kError) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(std::max(request.max_wait_ms, 0));
    auto waiter = std::make_shared<FetchWaiters::Waiter>(co_await asio::this_coro::executor);
    const uint64_t min_bytes = uint64_t(std::max(request.min_bytes, 0));
    auto read = [&] { return read_all(broker, request, fetch.partitions, parts, answers, tps, version); };
    uint64_t bytes = co_await read();
    while (bytes < min_bytes && !tps.empty() && std::chrono::steady_clock::now() < deadline) {
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
  auto outcome = broker.fetch_sessions().close(fetch, answers, now_ms());
  r.error_code = outcome.error;
  r.session_id = outcome.session_id;
  assemble(r, fetch.partitions, parts, outcome.included, version >= 13);
  co_return r;
}

}  // namespace strata::broker

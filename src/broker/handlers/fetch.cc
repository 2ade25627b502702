// Fetch: whole batches straight from the segment files (never decoded), spliced onto
// the wire; the first partition with data gets at least one batch even past the byte
// limits (KIP-74). Less than min.bytes waits up to max.wait.ms for appends.
// Sessions (KIP-227): this broker creates none (session id 0 in every answer), which
// clients accept as "full fetches"; an incremental request for an unknown session gets
// FETCH_SESSION_ID_NOT_FOUND. read_committed (isolation level 1) stops at the last
// stable offset (the first offset of the oldest open transaction) and lists the
// aborted transactions of the range, from the .txnindex files. Errors per partition: UNKNOWN_TOPIC_OR_PARTITION,
// UNKNOWN_TOPIC_ID, OFFSET_OUT_OF_RANGE, KAFKA_STORAGE_ERROR.
#include <chrono>

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

// One pass over every requested partition; returns the bytes gathered.
asio::awaitable<uint64_t> read_all(Broker& broker, FetchRequest& request,
                                   FetchResponse& response, std::vector<storage::TopicPartition>& tps,
                                   int16_t version) {
  response.responses.clear();
  tps.clear();
  uint64_t total = 0;
  const uint64_t response_max = version >= 3 ? uint64_t(std::max(request.max_bytes, 0))
                                             : UINT64_MAX;
  for (auto& topic : request.topics) {
    FetchResponse::FetchableTopicResponse tr;
    tr.topic = topic.topic;
    tr.topic_id = topic.topic_id;
    std::string name = topic.topic;
    if (version >= 13) {
      auto info = broker.topics().get(topic.topic_id);
      name = info ? info->name : "";
    }
    for (auto& p : topic.partitions) {
      FetchResponse::PartitionData pd;
      pd.partition_index = p.partition;
      if (request.isolation_level == 0) pd.aborted_transactions.reset();
      if (name.empty()) {
        pd.error_code = kafka_error::kUnknownTopicId;
        tr.partitions.push_back(std::move(pd));
        continue;
      }
      Lookup found = find_partition(broker, name, p.partition, false);
      if (!found.ref) {
        pd.error_code = found.error;
        tr.partitions.push_back(std::move(pd));
        continue;
      }
      tps.push_back(found.ref->tp);
      const uint64_t room = total >= response_max ? 0 : response_max - total;
      const uint64_t limit = std::min<uint64_t>(uint64_t(std::max(p.partition_max_bytes, 0)), room);
      const bool first = total == 0;
      const bool committed = request.isolation_level == 1;
      Read read = co_await broker.on_shard(found.ref->shard, [log = found.ref->log, &p, limit, first,
                                                               committed] {
        Read out;
        out.high_watermark = log->log_end_offset().value();
        out.last_stable_offset = last_stable_offset(*log, out.high_watermark);
        out.log_start_offset = log->log_start_offset().value();
        std::optional<Offset> max_offset;
        if (committed) max_offset = Offset(out.last_stable_offset);
        auto region = log->read(Offset(p.fetch_offset), limit, first, max_offset);
        if (!region) {
          out.error = kafka_error_of(region.error());
        } else {
          out.region = *region;
        }
        if (committed && out.region) {
          out.aborted = log->aborted_transactions(Offset(p.fetch_offset), Offset(out.last_stable_offset));
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
      if (read.region) {
        const auto& file = read.region->file;
        pd.records.file = protocol::FileSlice{file, file->fd(), read.region->position,
                                              read.region->size};
        total += read.region->size;
      } else {
        pd.records.data = MutableBytes();  // empty, not null
      }
      tr.partitions.push_back(std::move(pd));
    }
    response.responses.push_back(std::move(tr));
  }
  co_return total;
}

}  // namespace

asio::awaitable<FetchResponse> handle_fetch(Broker& broker, RequestContext& ctx,
                                            FetchRequest& request) {
  FetchResponse r;
  const int16_t version = ctx.header.api_version;
  if (version >= 7 && request.session_id != 0) {
    r.error_code = kafka_error::kFetchSessionIdNotFound;
    co_return r;
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::max(request.max_wait_ms, 0));
  auto waiter = std::make_shared<FetchWaiters::Waiter>(co_await asio::this_coro::executor);
  std::vector<storage::TopicPartition> tps;
  const uint64_t min_bytes = uint64_t(std::max(request.min_bytes, 0));
  uint64_t bytes = co_await read_all(broker, request, r, tps, version);
  while (bytes < min_bytes && !tps.empty() && std::chrono::steady_clock::now() < deadline) {
    // Register, then read again: an append between the two reads still wakes us.
    waiter->woken = false;
    broker.fetch_waiters().add(waiter, tps);
    bytes = co_await read_all(broker, request, r, tps, version);
    if (bytes >= min_bytes) break;
    waiter->timer.expires_at(deadline);
    asio::error_code ec;
    if (!waiter->woken) {
      co_await waiter->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    bytes = co_await read_all(broker, request, r, tps, version);
  }
  r.session_id = 0;
  co_return r;
}

}  // namespace strata::broker

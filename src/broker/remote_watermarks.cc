#include "broker/remote_watermarks.h"

#include <spdlog/spdlog.h>

#include <vector>

#include "broker/broker.h"
#include "client/peer_pool.h"
#include "protocol/apis/list_offsets.h"

namespace strata::broker {

namespace {

constexpr int64_t kLatest = -1;  // ListOffsets' "the high watermark"

}  // namespace

std::map<storage::TopicPartition, int64_t> RemoteWatermarks::get(const std::set<storage::TopicPartition>& wanted,
                                                                  Broker& broker) {
  const auto now = std::chrono::steady_clock::now();
  std::map<storage::TopicPartition, int64_t> out;
  bool due = false;
  {
    std::lock_guard lock(state_->mu);
    std::erase_if(state_->known, [now](const auto& entry) {
      return now - entry.second.second >= std::chrono::milliseconds(kRemoteWatermarksStaleMs);
    });
    for (const auto& tp : wanted) {
      auto it = state_->known.find(tp);
      if (it != state_->known.end() && now - it->second.second < std::chrono::milliseconds(kRemoteWatermarksStaleMs)) {
        out[tp] = it->second.first;
      }
    }
    if (now - asked_ >= std::chrono::milliseconds(kRemoteWatermarksRefreshMs)) {
      asked_ = now;
      due = true;
    }
  }
  if (due && !wanted.empty() && broker.in_cluster()) ask(wanted, broker);
  return out;
}

// One ListOffsets per leader, answered on the peer pool's threads into the state.
void RemoteWatermarks::ask(const std::set<storage::TopicPartition>& wanted, Broker& broker) {
  const auto snapshot = broker.metadata();
  std::map<int32_t, protocol::ListOffsetsRequest> by_leader;
  for (const auto& tp : wanted) {
    const int32_t leader = snapshot->leader(tp.topic, tp.partition.value());
    if (leader < 0 || leader == broker.config().node_id) continue;  // no leader, or the log is here after all
    auto& request = by_leader[leader];
    request.replica_id = -1;
    if (request.topics.empty() || request.topics.back().name != tp.topic) request.topics.push_back({tp.topic, {}});
    request.topics.back().partitions.push_back({tp.partition.value(), -1, kLatest, 1});
  }
  for (auto& [leader, request] : by_leader) {
    const BrokerMeta* b = snapshot->cluster().broker(leader);
    if (b == nullptr) continue;
    {
      std::lock_guard lock(state_->mu);
      if (!state_->asking.insert(leader).second) continue;  // the last call has not ended
    }
    broker.peers().call<protocol::ListOffsetsResponse>(
        {b->host, uint16_t(b->port)}, std::move(request),
        [state = state_, leader](Result<protocol::ListOffsetsResponse, client::ClientError> r) {
          const auto at = std::chrono::steady_clock::now();
          std::lock_guard lock(state->mu);
          state->asking.erase(leader);
          if (!r) {
            spdlog::debug("lag metrics: ListOffsets to broker {}: {}", leader, r.error().message);
            return;
          }
          for (const auto& t : r->topics) {
            for (const auto& p : t.partitions) {
              if (p.error_code == 0 && p.offset >= 0) state->known[{t.name, PartitionId(p.partition_index)}] = {p.offset, at};
            }
          }
        });
  }
}

}  // namespace strata::broker

// Partition reassignment requested (issue 15, item 7): AlterPartitionReassignments on any
// broker writes the moves into the topic's assignment in etcd (docs/formats/etcd.md,
// "assignment"), as topics are written; the controller completes them
// (cluster/reassignment.h) once the new replicas are in the ISR.
#include <spdlog/spdlog.h>

#include <set>

#include "broker/broker.h"
#include "broker/poll_until.h"
#include "cluster/node.h"
#include "cluster/reassignment.h"
#include "common/log_limit.h"

namespace strata::broker {

namespace {

using namespace std::chrono_literals;

// Why `target` cannot be a partition's replica set in `v`, if it cannot.
std::optional<std::string> invalid_target(const cluster::ClusterView& v, const std::vector<int32_t>& target) {
  if (target.empty()) return "The replica list is empty.";
  std::set<int32_t> seen;
  for (int32_t r : target) {
    if (!seen.insert(r).second) return "Broker " + std::to_string(r) + " is named twice.";
    if (!v.alive(r)) return "Broker " + std::to_string(r) + " is not registered.";
  }
  return std::nullopt;
}

}  // namespace

asio::awaitable<void> Broker::reassign_partitions(const std::string& topic, std::vector<PartitionMove>& moves,
                                                  int32_t timeout_ms) {
  static LogLimit failures("reassignment write failed");
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::shared_ptr<const cluster::ClusterView> view = cluster_->view();
    auto entry = view->topics.find(topic);
    cluster::TopicAssignment next;
    if (entry != view->topics.end()) next = entry->second.assignment;
    bool changed = false;
    for (PartitionMove& m : moves) {
      m.error = KafkaError::kNone;
      m.message.clear();
      if (entry == view->topics.end() || m.partition < 0 || size_t(m.partition) >= next.replicas.size()) {
        m.error = KafkaError::kUnknownTopicOrPartition;
        continue;
      }
      if (m.target) {
        if (auto why = invalid_target(*view, *m.target)) {
          m.error = KafkaError::kInvalidReplicaAssignment;
          m.message = *why;
          continue;
        }
      }
      if (auto r = cluster::reassign(next, m.partition, m.target); !r) {
        m.error = r.error();
        continue;
      }
      changed = true;
    }
    if (!changed) co_return;
    cluster::TxnRequest t;
    const std::string key = cluster_->keys().topic(topic);
    t.compare.push_back({key, cluster::Compare::Target::kMod, cluster::Compare::Result::kEqual,
                         entry->second.mod_revision, ""});
    t.success.push_back({cluster::Op::Kind::kPut, key, "", cluster::encode_assignment(next), 0});
    auto written = co_await blocking([this, &t] { return cluster_->etcd().txn(t); });
    if (!written) {
      failures.warn("reassignment of {}: {}", topic, written.error().message);
      for (PartitionMove& m : moves) {
        if (m.error != KafkaError::kNone) continue;
        m.error = KafkaError::kRequestTimedOut;
        m.message = "the cluster's metadata store is unavailable: " + written.error().message;
      }
      co_return;
    }
    if (!written->succeeded) {
      asio::steady_timer pause(co_await asio::this_coro::executor, 20ms);
      co_await pause.async_wait(asio::use_awaitable);
      continue;  // the assignment changed meanwhile: checked again from the newer view
    }
    for (const PartitionMove& m : moves) {
      if (m.error != KafkaError::kNone) continue;
      if (next.moving(m.partition)) {
        spdlog::info("reassignment of {}-{} started: replicas {} (adding {}, removing {})", topic, m.partition,
                     fmt::join(next.replicas[size_t(m.partition)], ","), fmt::join(next.adding[m.partition], ","),
                     fmt::join(next.removing[m.partition], ","));
      } else {
        spdlog::info("{}-{}: replicas {}{}", topic, m.partition, fmt::join(next.replicas[size_t(m.partition)], ","),
                     m.target ? "" : " (reassignment cancelled)");
      }
    }
    // Answered once this broker's view has the write (ListPartitionReassignments here
    // then shows it).
    co_await poll_until([this, at = written->revision] { return cluster_->view()->revision >= at; },
                        std::chrono::milliseconds(std::max(timeout_ms, 0)));
    co_return;
  }
  for (PartitionMove& m : moves) {
    if (m.error != KafkaError::kNone) continue;
    m.error = KafkaError::kRequestTimedOut;
    m.message = "The topic's assignment kept changing; retry.";
  }
}

}  // namespace strata::broker
